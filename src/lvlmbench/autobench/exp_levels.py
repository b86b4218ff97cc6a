"""Per-difficulty experiments: answer leakage by level (the paper: 0.4 % easy to 2.4 % hard)
and each model's rank at each level (the paper's Figure 8).

Both read responses the evaluation runner stored (``experiment leakage`` writes the
``no-image`` ones), so they cost no model call of their own.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from lvlmbench.choice.accuracy import AccuracyRow, accuracy_table
from lvlmbench.stats import ItemMean
from lvlmbench.store import Store

__all__ = [
    "LEVEL_ORDER",
    "LevelAccuracy",
    "LevelLeakage",
    "LevelRank",
    "leakage_by_level",
    "ranks_by_level",
    "ranks_from_table",
]

LEVEL_ORDER = ("easy", "medium", "hard")


@dataclass(frozen=True)
class LevelAccuracy:
    """One model at one level: the accuracy row's answer counts and its item-level figure
    (accuracy and its 95% interval over items, clustered where they share a source, as every
    accuracy table has them)."""

    correct: int
    answered: int
    score: ItemMean = field(default_factory=ItemMean)

    @classmethod
    def of(cls, row: AccuracyRow) -> LevelAccuracy:
        return cls(row.correct, row.answered, row.score)

    @property
    def accuracy(self) -> float:
        return self.score.mean

    @property
    def items(self) -> int:
        """Items scored: the interval's n."""
        return self.score.items

    @property
    def interval(self) -> tuple[float, float]:
        ci = self.score.interval
        return ci.low, ci.high

    def as_dict(self) -> dict[str, float | int | str]:
        found = self.score.estimate
        return {
            "correct": self.correct,
            "answered": self.answered,
            "items": self.items,
            "clusters": found.n_clusters,
            "cluster": found.cluster,
            "estimator": found.method,
            "epochs": self.score.epochs,
            "accuracy": self.accuracy,
            "low": found.low,
            "high": found.high,
        }


@dataclass(frozen=True)
class LevelLeakage:
    """One level: each model with the image and from the description only, and how far the
    models' description-only accuracies spread (near zero: no examiner-specific leak)."""

    level: str
    with_image: dict[str, LevelAccuracy]
    description_only: dict[str, LevelAccuracy]

    @property
    def spread_std(self) -> float:
        """Population std of description-only accuracy across models (0–1 scale)."""
        values = [a.accuracy for a in self.description_only.values()]
        return statistics.pstdev(values) if len(values) > 1 else 0.0

    @property
    def spread_range(self) -> float:
        """Highest − lowest description-only accuracy across models."""
        values = [a.accuracy for a in self.description_only.values()]
        return max(values) - min(values) if values else 0.0


def _level_key(level: str) -> tuple[int, str]:
    return (LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER), level)


def _by_level(rows: Sequence[AccuracyRow]) -> dict[str, dict[str, LevelAccuracy]]:
    out: dict[str, dict[str, LevelAccuracy]] = {}
    for row in rows:
        out.setdefault(row.group[0], {})[row.model] = LevelAccuracy.of(row)
    return {level: out[level] for level in sorted(out, key=_level_key)}


def leakage_by_level(store: Store, benchmark: str, models: Sequence[str]) -> list[LevelLeakage]:
    """Per difficulty level, accuracy with the image and from the description only."""
    image = _by_level(accuracy_table(store, benchmark, ["difficulty"], models=models))
    described = _by_level(
        accuracy_table(store, benchmark, ["difficulty"], variant="no-image", models=models)
    )
    levels = sorted(set(image) | set(described), key=_level_key)
    return [LevelLeakage(lv, image.get(lv, {}), described.get(lv, {})) for lv in levels]


@dataclass(frozen=True)
class LevelRank:
    """A model's accuracy and rank (1 = best; ties share the better rank) at one level."""

    level: str
    model: str
    rank: int
    score: LevelAccuracy


def ranks_by_level(
    store: Store, benchmark: str, models: Sequence[str] | None = None
) -> list[LevelRank]:
    """Every model's rank at every level, by accuracy with the image ("competition" ranking:
    two models tied for first are both 1, the next is 3)."""
    return ranks_from_table(accuracy_table(store, benchmark, ["difficulty"], models=models))


def ranks_from_table(rows: Sequence[AccuracyRow]) -> list[LevelRank]:
    """:func:`ranks_by_level` from an accuracy table by difficulty already computed. Only the
    models that answered every item of a level any model answered are ranked there: a model
    right on the 2 items it answered would otherwise rank first at 100 %."""
    items = {(row.group[0], row.model): row.items for row in rows}
    table = _by_level(rows)
    ranks = []
    for level, every in table.items():
        size = max(items[level, m] for m in every)
        scores = {m: score for m, score in every.items() if items[level, m] >= size}
        ordered = sorted(scores, key=lambda m: (-scores[m].accuracy, m))
        for model in ordered:
            better = sum(1 for other in scores.values() if other.accuracy > scores[model].accuracy)
            ranks.append(LevelRank(level, model, better + 1, scores[model]))
    return ranks
