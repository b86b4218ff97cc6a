"""Scores whose unit is the item, kept with their clusters: the one rule every accuracy and its
interval follow.

An item may be answered several times (``evaluate --epochs K``: K samples of the same question).
Those samples are not K independent items: they share the picture, the wording and the key. So
each item's samples average to one score in [0, 1], items weigh equally, and an interval's n is
the number of items. Items that share a source (an AutoBench-V fine aspect, a CircularEval
group, an MME picture: :func:`lvlmbench.stats.cluster_key`) are not independent either, so the
interval is :func:`lvlmbench.stats.mean_interval` over the items with their clusters: clustered
t (CR1) where some cluster holds several items, Wilson where every item stands alone and every
score is 0 or 1.

Every accuracy figure is one :class:`ItemMean` (the CLI tables and ``--json``, the Python API,
the report, ``summary.json``, the leaderboard files, the web app, the experiments and budgeted
runs), so none can disagree with another. An :class:`ItemMean` keeps what the interval needs and
no more: the standalone items' scores as a histogram (a few distinct values: 0 and 1, or r/K
with K epochs) and each shared cluster's sum of scores and number of items. The clustered
interval depends on the items only through those (the CR1 sandwich sums each cluster's
deviations), so rebuilding a cluster as its items' mean, repeated, gives the same interval.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from lvlmbench.ratings import Interval, wilson_interval
from lvlmbench.stats._distributions import normal_quantile
from lvlmbench.stats.estimate import (
    CLUSTERED_T,
    Estimate,
    FloatArray,
    IntArray,
    NotEnoughClusters,
    mean_interval,
)

__all__ = ["NO_ITEMS", "WILSON_FLOOR", "ItemMean"]

NO_ITEMS = "none"
"""The method of an estimate over no items: the interval is the whole range."""
ONE_CLUSTER = "one cluster: whole range"
"""The method of an estimate whose scores vary over a single cluster (one item answered over
several epochs, say): no spread between clusters can be estimated, so the interval is the
whole range, never a confident one made up."""
WILSON_FLOOR = "clustered-t, Wilson floor"
"""A clustered t interval that was narrower than Wilson's over the items, widened to it."""


@dataclass(frozen=True)
class ItemMean:
    """A mean over items of each item's mean score, with how many items and samples it holds
    and the clusters its interval needs.

    Build one per item with :meth:`of_item` (or a run of items answered once with
    :meth:`answered_once`) and add them up (``+`` or :meth:`pooled`): items in different parts
    must be different items; parts may share clusters (a fine aspect spans levels)."""

    total: float = 0.0
    """Sum over the items of each item's mean score (each in [0, 1])."""
    items: int = 0
    """Items scored: the unit of the figure and the n of its interval."""
    samples: int = 0
    """Answers scored (items × epochs when every epoch is complete)."""
    singles: tuple[tuple[float, int], ...] = ()
    """Items that stand alone (each its own cluster): each distinct score and how many items
    have it, by score."""
    clusters: tuple[tuple[str, float, int, float], ...] = ()
    """Items that share a cluster: each cluster's key ("kind:key", as
    :func:`lvlmbench.stats.cluster_keys` writes it), its items' summed score, their number and
    their summed squared score, by key."""

    @classmethod
    def of_item(cls, right: float, samples: int, cluster: str | None = None) -> ItemMean:
        """One item whose ``samples`` scored answers sum to ``right`` (3 right of 4 epochs:
        ``of_item(3, 4)``, the item's score 0.75), in ``cluster`` (None: it stands alone)."""
        if samples < 1 or not 0 <= right <= samples:
            raise ValueError(f"an item needs 0 <= right <= samples >= 1, got {right}/{samples}")
        score = right / samples
        if cluster is None:
            return cls(score, 1, samples, singles=((score, 1),))
        return cls(score, 1, samples, clusters=((cluster, score, 1, score * score),))

    @classmethod
    def answered_once(cls, right: int, items: int, cluster: str | None = None) -> ItemMean:
        """``items`` items answered once each, ``right`` of them right, all standalone or all
        in ``cluster`` (no epochs: the sum of their scores, and of their squared scores, is
        the count of right answers)."""
        if not 0 <= right <= items:
            raise ValueError(f"right must be within 0..{items}, got {right}")
        if cluster is not None:
            sums = (cluster, float(right), items, float(right))
            return cls(float(right), items, items, clusters=(sums,))
        counts = ((0.0, items - right), (1.0, right))
        return cls(float(right), items, items, singles=tuple(c for c in counts if c[1]))

    @classmethod
    def pooled(cls, parts: Iterable[ItemMean]) -> ItemMean:
        """Parts over disjoint sets of items as one (their shared clusters merged)."""
        total, items, samples = 0.0, 0, 0
        singles: dict[float, int] = {}
        clusters: dict[str, list[float]] = {}
        for part in parts:
            total, items, samples = total + part.total, items + part.items, samples + part.samples
            for score, count in part.singles:
                singles[score] = singles.get(score, 0) + count
            for key, *sums in part.clusters:
                found = clusters.setdefault(key, [0.0, 0.0, 0.0])
                for i, value in enumerate(sums):
                    found[i] += value
        return cls(
            total,
            items,
            samples,
            tuple(sorted(singles.items())),
            tuple((key, s, int(n), q) for key, (s, n, q) in sorted(clusters.items())),
        )

    def __add__(self, other: ItemMean) -> ItemMean:
        return ItemMean.pooled((self, other))

    @property
    def mean(self) -> float:
        """The mean over items of each item's mean score (0 when no item was scored)."""
        return self.total / self.items if self.items else 0.0

    @property
    def epochs(self) -> float:
        """Scored answers per item (1 for a single run; a fraction when epochs are uneven)."""
        return self.samples / self.items if self.items else 1.0

    @property
    def cluster(self) -> str:
        """What an item's cluster is: the kinds of its shared clusters, with "item" where
        items stand alone ("fine aspect", "picture + item", ...)."""
        kinds = {key.split(":", 1)[0] for key, *_ in self.clusters}
        return " + ".join(sorted(kinds | ({"item"} if self.singles else set()))) or "item"

    @functools.cached_property
    def estimate(self) -> Estimate:
        """The mean with its 95% interval from :func:`lvlmbench.stats.mean_interval` over the
        items and their clusters, kept within [0, 1] (a score cannot leave it, so cutting the
        interval there loses no coverage). Within one cluster (a table cell holding a single
        fine aspect) the items are the units: the cluster's shared source is fixed there, so
        the interval is over items, and its cluster says so. No items: the whole range."""
        if not self.items:
            return Estimate(0.0, 0.0, 1.0, 0, 0, NO_ITEMS, "item")
        if len(self.singles) + len(self.clusters) == 0:
            raise ValueError("an ItemMean with items needs its scores (singles or clusters)")
        if not self.singles and len(self.clusters) == 1 and self.items > 1:
            values, labels = self._within_one_cluster(), None
            cluster = f"item (one {self.cluster})"
        else:
            values, found_labels = self._item_scores()
            labels, cluster = found_labels.tolist(), self.cluster
        try:
            found = mean_interval(values, labels, cluster=cluster)
        except NotEnoughClusters:
            return Estimate(self.mean, 0.0, 1.0, self.items, 1, ONE_CLUSTER, cluster)
        low, high, method = self._floored(found)
        return Estimate(
            self.mean,
            max(0.0, low),
            min(1.0, high),
            found.n_items,
            found.n_clusters,
            method,
            found.cluster,
            found.confidence,
            found.std_error,
        )

    @property
    def binary(self) -> bool:
        """Whether every item scores 0 or 1 (answered once, or its epochs all agree): a score
        in [0, 1] is 0 or 1 exactly when its square equals it."""
        return all(score in (0.0, 1.0) for score, _ in self.singles) and all(
            abs(squares - summed) < 1e-9 for _, summed, _, squares in self.clusters
        )

    def _floored(self, found: Estimate) -> tuple[float, float, str]:
        """A t interval over 0/1 scores widened, where it is narrower, to the Wilson interval
        over the items as if independent: clustering can only widen that one, and a t
        interval rests on an estimated variance, which is zero when every item (or every
        cluster) scores alike (8 of 8 right is no proof of 100 %). Scores averaged over epochs
        vary less than 0/1 ones, so Wilson is no floor for them, except at zero variance."""
        zero_spread = found.std_error is not None and found.std_error < 1e-12
        if found.method != CLUSTERED_T or not (self.binary or zero_spread):
            return found.low, found.high, found.method
        z = normal_quantile(0.5 + found.confidence / 2.0)
        floor = wilson_interval(min(self.total, float(self.items)), self.items, z)
        if floor.low >= found.low and floor.high <= found.high:
            return found.low, found.high, found.method
        return min(found.low, floor.low), max(found.high, floor.high), WILSON_FLOOR

    def _item_scores(self) -> tuple[FloatArray, IntArray]:
        """One score per item and its cluster label: standalone items as they are, a shared
        cluster's items each at the cluster's mean (the same cluster sums, so the same
        clustered interval)."""
        scores = [np.full(count, score) for score, count in self.singles]
        scores += [np.full(size, summed / size) for _, summed, size, _ in self.clusters]
        standalone = sum(count for _, count in self.singles)
        labels = [np.arange(standalone, dtype=np.intp)]
        labels += [
            np.full(size, standalone + g, dtype=np.intp)
            for g, (_, _, size, _) in enumerate(self.clusters)
        ]
        return np.concatenate(scores), np.concatenate(labels)

    def _within_one_cluster(self) -> FloatArray:
        """Scores with the one cluster's number of items, mean and spread: an interval over
        standalone items depends on nothing else. Scores in [0, 1] whose squares sum to their
        sum are all 0 or 1, and are rebuilt as they were (so Wilson applies); others as the
        mean with two points ± d/√2 around it, d² their sum of squared deviations."""
        _, summed, size, squares = self.clusters[0]
        if abs(squares - summed) < 1e-9:
            right = round(summed)
            return np.concatenate([np.ones(right), np.zeros(size - right)])
        mean = summed / size
        spread = math.sqrt(max(0.0, squares - size * mean * mean) / 2.0)
        values = np.full(size, mean)
        values[0], values[1] = mean + spread, mean - spread
        return values

    @property
    def interval(self) -> Interval:
        """The 95% interval of :attr:`mean` (see :attr:`estimate`)."""
        return Interval(self.estimate.low, self.estimate.high)
