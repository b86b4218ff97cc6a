"""How many items a paired comparison needs to see a given difference.

From the observed per-item differences A − B (their spread already reflects how correlated
the two models' answers are) and their clusters: the clustered variance of the mean difference
times n is the variance one item adds, design effect included; a two-sided test at ``alpha``
then detects ``difference`` with probability ``power`` once
``n ≥ (z_{1−α/2} + z_{power})² · (n · Var̂) / difference²`` (normal approximation, items drawn
like the observed ones, clusters of the same sizes).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from lvlmbench.stats._distributions import normal_quantile
from lvlmbench.stats.estimate import FloatArray, clustered_mean

__all__ = ["PowerPlan", "items_needed"]


@dataclass(frozen=True)
class PowerPlan:
    items_needed: int
    items_now: int
    more_needed: int
    """Items beyond those already scored (0 when there are enough)."""
    difference: float
    alpha: float
    power: float
    item_variance: float
    """n · the clustered variance of the mean difference: one item's share, clusters included."""


def items_needed(
    differences: Sequence[float] | FloatArray,
    clusters: Sequence[Hashable] | None = None,
    *,
    difference: float,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PowerPlan:
    """Items a paired comparison needs to detect ``difference`` (on the scores' scale)."""
    if difference <= 0:
        raise ValueError(f"difference must be positive, got {difference}")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError("alpha and power must be strictly between 0 and 1")
    observed = clustered_mean(differences, clusters)
    spread = observed.std_error or 0.0  # the clustered t interval always has one
    item_variance = observed.n_items * spread**2
    z = normal_quantile(1 - alpha / 2) + normal_quantile(power)
    needed = max(1, math.ceil(z * z * item_variance / difference**2))
    return PowerPlan(
        needed,
        observed.n_items,
        max(0, needed - observed.n_items),
        difference,
        alpha,
        power,
        item_variance,
    )
