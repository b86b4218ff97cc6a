"""A table of paired comparisons, as every front door shows it: A − B per group, each with its
interval, raw and adjusted p-value, excluded items and, when asked, a power plan. The records
are built by :func:`lvlmbench.workflows.compare` from the estimators here; the CLI, the report
and the web app only display them."""

from __future__ import annotations

from dataclasses import dataclass

from lvlmbench.stats.multiple import Adjustment
from lvlmbench.stats.paired import PairedComparison
from lvlmbench.stats.power import PowerPlan

__all__ = ["ALL", "Comparison", "ComparisonTable"]

ALL = ("all",)
"""The group of a row over every item."""


@dataclass(frozen=True)
class Comparison:
    """A − B in one group: the figures both models got on the items both answered."""

    model_a: str
    model_b: str
    group: tuple[str, ...]
    """The group's facet values (``("all",)``: every item)."""
    mean_a: float | None
    """A's figure on the compared items: its mean score, or its Bradley-Terry rating."""
    mean_b: float | None
    paired: PairedComparison | None
    """The difference, its interval and p-value; None when it cannot be computed (``note``)."""
    adjusted_p: float | None
    discordant: tuple[int, int] | None
    """McNemar's counts (A right and B wrong, B right and A wrong) where McNemar was used."""
    plan: PowerPlan | None
    note: str | None = None
    """Why there is no figure (no item in common, a single cluster)."""
    only_a: int = 0
    """Items of the group only A answered: excluded."""
    only_b: int = 0


@dataclass(frozen=True)
class ComparisonTable:
    """Every comparison of one benchmark's models under one metric, p-values adjusted together."""

    benchmark: str
    metric: str
    judge: str | None
    cluster: str
    """What an item's cluster is on this benchmark ("item" when items stand alone)."""
    by: tuple[str, ...]
    baseline: str | None
    adjustment: Adjustment
    models: tuple[str, ...]
    rows: tuple[Comparison, ...]
    alpha: float
    power: float
