"""Scores whose unit is the item: the one rule every accuracy and its interval follow.

An item may be answered several times (``evaluate --epochs K``: K samples of the same question).
Those samples are not K independent items: they share the picture, the wording and the key, so
they tell far less about the model than K different items would. So each item's samples average
to one score in [0, 1] (its mean over epochs), items weigh equally, and an interval's n is the
number of items. K samples of 24 items are 24 observations, not 24·K: an interval over samples
is about √K too narrow.

Every accuracy figure is one :class:`ItemMean` (the CLI tables and ``--json``, the Python API,
the report, ``summary.json``, the leaderboard files, the web app, the experiments and budgeted
runs), so none can disagree with another. An interval that also clusters items sharing a
picture or a scene changes :attr:`ItemMean.interval` (and what it needs to keep), nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lvlmbench.ratings.intervals import Interval, wilson_interval

__all__ = ["ItemMean"]


@dataclass(frozen=True)
class ItemMean:
    """A mean over items of each item's mean score, with how many items and samples it holds.

    Build one per item with :meth:`of_item` and add them up (``+`` or :meth:`pooled`): items
    in different parts must be different items."""

    total: float = 0.0
    """Sum over the items of each item's mean score (each in [0, 1])."""
    items: int = 0
    """Items scored: the unit of the figure and the n of its interval."""
    samples: int = 0
    """Answers scored (items × epochs when every epoch is complete)."""

    @classmethod
    def of_item(cls, right: float, samples: int) -> ItemMean:
        """One item whose ``samples`` scored answers sum to ``right`` (3 right of 4 epochs:
        ``of_item(3, 4)``, the item's score 0.75)."""
        if samples < 1 or not 0 <= right <= samples:
            raise ValueError(f"an item needs 0 <= right <= samples >= 1, got {right}/{samples}")
        return cls(right / samples, 1, samples)

    @classmethod
    def answered_once(cls, right: int, items: int) -> ItemMean:
        """``items`` items answered once each, ``right`` of them right (no epochs: the sum of
        their scores is the count of right answers)."""
        if not 0 <= right <= items:
            raise ValueError(f"right must be within 0..{items}, got {right}")
        return cls(float(right), items, items)

    @classmethod
    def pooled(cls, parts: Iterable[ItemMean]) -> ItemMean:
        """Parts over disjoint sets of items as one."""
        total = cls()
        for part in parts:
            total += part
        return total

    def __add__(self, other: ItemMean) -> ItemMean:
        return ItemMean(
            self.total + other.total, self.items + other.items, self.samples + other.samples
        )

    @property
    def mean(self) -> float:
        """The mean over items of each item's mean score (0 when no item was scored)."""
        return self.total / self.items if self.items else 0.0

    @property
    def epochs(self) -> float:
        """Scored answers per item (1 for a single run; a fraction when epochs are uneven)."""
        return self.samples / self.items if self.items else 1.0

    @property
    def interval(self) -> Interval:
        """Wilson 95% interval of :attr:`mean` with n = items (the whole range for none)."""
        # Each item's score is at most 1, so the total is at most the items; min() only
        # absorbs floating-point rounding of the fractions.
        return wilson_interval(min(self.total, float(self.items)), self.items)
