"""A leaderboard row as a typed record: one :class:`LeaderboardRow` per benchmark × model whose
figures are typed :class:`Cell` values by column name (the columns depend on which judge
protocols have data, so they are a mapping, not fields). The files and the web API get the
flat JSON form (:meth:`LeaderboardRow.flat`) only at their edge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from lvlmbench.report.summary import BenchmarkSummary

__all__ = [
    "Bounds",
    "Cell",
    "CellValue",
    "Figures",
    "LeaderboardRow",
    "interval_cell",
    "rounded",
]

CellValue = float | int | str | None
"""What one leaderboard column holds: a figure, a count, a label, or nothing."""

_DECIMALS = 4
"""Floats in the files are rounded to this: the CSV is for reading, bootstraps are not exact."""


@dataclass(frozen=True)
class Bounds:
    """A figure's interval: ``low``/``high`` (None where it could not be computed, e.g. a
    non-finite bootstrap), and where known how it was computed and over how many units."""

    low: float | None
    high: float | None
    method: str | None = None
    n: int | None = None


@dataclass(frozen=True)
class Cell:
    """One figure of a row; with ``interval`` it fills three columns in the CSV (``X``,
    ``X_low``, ``X_high``) and one ``X [low, high]`` cell in the Markdown."""

    value: CellValue
    interval: Bounds | None = None

    def rounded(self) -> Cell:
        """Floats to 4 decimals (what the files and the web API show)."""
        bounds = self.interval
        if bounds is not None:
            bounds = replace(bounds, low=rounded(bounds.low), high=rounded(bounds.high))
        return Cell(_round(self.value), bounds)


def _round(value: CellValue) -> CellValue:
    return round(value, _DECIMALS) if isinstance(value, float) else value


def rounded(value: float | None) -> float | None:
    """``value`` rounded as the files show it."""
    return round(value, _DECIMALS) if value is not None else None


def interval_cell(
    value: CellValue,
    low: float | None,
    high: float | None,
    *,
    method: str | None = None,
    n: int | None = None,
) -> Cell:
    """A figure with its interval (``method`` and ``n``: how it was computed, where known)."""
    return Cell(value, Bounds(low, high, method, n))


@dataclass(frozen=True)
class LeaderboardRow:
    """One benchmark × model: its figures by column name, in the order they were added, and
    the short name tables show for ``model`` (its full identity stays in ``model``)."""

    benchmark: str
    kind: str | None
    model: str
    cells: Mapping[str, Cell] = field(default_factory=dict)
    display: str | None = None
    """The model's compact display name (``model`` where None)."""

    @property
    def shown(self) -> str:
        """What a table prints for the model: its display name, else its identity."""
        return self.display or self.model

    def value(self, column: str) -> CellValue:
        """The figure in ``column`` (None where this row has none)."""
        cell = self.cells.get(column)
        return None if cell is None else cell.value

    def flat(self) -> dict[str, CellValue]:
        """The JSON/CSV form: ``benchmark``, ``kind``, ``model`` (the full identity),
        ``display`` (its short name), then each cell, an interval as ``X_low`` and ``X_high``
        right after ``X``."""
        out: dict[str, CellValue] = {
            "benchmark": self.benchmark,
            "kind": self.kind,
            "model": self.model,
            "display": self.shown,
        }
        for name, cell in self.cells.items():
            out[name] = cell.value
            if cell.interval is not None:
                out[f"{name}_low"] = cell.interval.low
                out[f"{name}_high"] = cell.interval.high
        return out


Figures = Callable[[BenchmarkSummary], Iterator[tuple[str, Mapping[str, Cell]]]]
"""A source of leaderboard cells: (model, {column: cell}) pairs from one benchmark's summary."""
