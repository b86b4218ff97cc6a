"""Stratified draws for budgeted evaluation: one seeded order of items whose every prefix keeps
the full set's mix of strata (capability × aspect × difficulty, or any item facets).

A budgeted run asks the first n items of the order, then the first 2n, and so on; stopping after
any round must not skew the mix towards whichever stratum happened to come first, so the order
interleaves the strata proportionally. Each stratum's items are shuffled with a seed of their own
(adding items to one stratum leaves the other strata's draws alone), and item k of a stratum of
size s gets the position key (k + ½) / s: sorting all items by that key spreads each stratum
evenly over the order (systematic sampling), so any prefix of length n holds within one item of
n·s/N items of every stratum. Ties break by stratum name, so the order is the same on every
machine and every run, which is what makes a restarted budgeted run take the same draws.

Where items cluster (items of one source share their outcome: an AutoBench-V fine aspect, a
CircularEval group, an MME picture), the draw is of whole clusters (:func:`cluster_order`): the
same stratified order over the clusters, each stratified by the facets its items share, and a
cluster's items asked together, so a stop never leaves a cluster half-asked and the sequential
test (:mod:`.sequential`) gets one independent value per cluster. Clusters of one item give
exactly :func:`stratified_order`'s order.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

__all__ = ["MIXED", "ClusterOrder", "cluster_order", "facet_mix", "stratified_order"]

MIXED = "*"
"""A cluster's value of a facet its items do not share (an AutoBench-V fine aspect's levels)."""


def stratified_order(strata: Mapping[str, Hashable], seed: int = 0) -> list[str]:
    """Every item id of ``strata`` (id → its stratum, e.g. a tuple of facet values), in an
    order whose prefixes keep the strata's proportions; deterministic for a given ``seed``."""
    by_stratum: dict[str, list[str]] = {}
    for item_id, stratum in strata.items():
        by_stratum.setdefault(repr(stratum), []).append(item_id)
    keyed: list[tuple[float, str, int, str]] = []
    for name in sorted(by_stratum):
        ids = sorted(by_stratum[name])
        random.Random(f"{seed}:{name}").shuffle(ids)
        size = len(ids)
        keyed.extend(((k + 0.5) / size, name, k, item_id) for k, item_id in enumerate(ids))
    keyed.sort()
    return [item_id for *_, item_id in keyed]


def facet_mix(ids: Sequence[str], strata: Mapping[str, Hashable]) -> dict[Hashable, float]:
    """Share of each stratum among ``ids`` (an early stop's items, or the full set)."""
    counts = Counter(strata[item_id] for item_id in ids)
    total = sum(counts.values())
    return {stratum: count / total for stratum, count in counts.items()} if total else {}


@dataclass(frozen=True)
class ClusterOrder:
    """Whole clusters in draw order, each its item ids; what a budgeted run asks, in rounds
    that end between clusters."""

    clusters: tuple[tuple[str, ...], ...]
    unit: str = "item"
    """What a cluster is ("fine aspect", "circular group", ...; "item": every item alone)."""

    @classmethod
    def of_sizes(cls, sizes: Sequence[int], unit: str = "cluster") -> ClusterOrder:
        """Consecutive clusters of the given sizes over items "0", "1", ... (simulations)."""
        ends = list(accumulate(sizes))
        return cls(
            tuple(
                tuple(str(i) for i in range(end - size, end))
                for size, end in zip(sizes, ends, strict=True)
            ),
            unit,
        )

    @property
    def items(self) -> list[str]:
        """Every item id in draw order."""
        return [item_id for cluster in self.clusters for item_id in cluster]

    @property
    def largest(self) -> int:
        """Items in the largest cluster (what scales a cluster's value into [-1, 1])."""
        return max((len(c) for c in self.clusters), default=1)

    @property
    def clustered(self) -> bool:
        """Whether some cluster holds more than one item."""
        return self.largest > 1

    @property
    def ends(self) -> list[int]:
        """Items asked once each cluster is: where a round may end."""
        return list(accumulate(len(c) for c in self.clusters))

    def whole(self, items: int) -> int:
        """The most items, at most ``items``, that are whole clusters of the order's start."""
        return max((end for end in self.ends if end <= items), default=0)

    def snapped(self, ends: Sequence[int]) -> list[int]:
        """Round ends moved up to the next cluster's end (a round never splits a cluster),
        repeats dropped; the same ends where every cluster is one item."""
        boundaries = self.ends
        snapped: list[int] = []
        for end in ends:
            at = next((b for b in boundaries if b >= end), boundaries[-1] if boundaries else 0)
            if not snapped or at > snapped[-1]:
                snapped.append(at)
        return snapped

    def split(self, items: Sequence[str]) -> list[list[str]]:
        """``items`` (a run of whole clusters of the order) grouped into their clusters."""
        size = {item_id: len(c) for c in self.clusters for item_id in c}
        groups: list[list[str]] = []
        at = 0
        while at < len(items):
            groups.append(list(items[at : at + size[items[at]]]))
            at += size[items[at]]
        return groups


def cluster_order(
    strata: Mapping[str, Hashable],
    clusters: Mapping[str, str] | None = None,
    seed: int = 0,
    unit: str = "item",
) -> ClusterOrder:
    """Whole clusters of ``strata``'s items (``clusters``: item id → cluster key; None: each
    item alone) in :func:`stratified_order` over the clusters, each stratified by the facets its
    items share (:data:`MIXED` for those they do not); a cluster's items in id order. A cluster
    of one item is ordered by its item id, so unclustered items come in exactly
    :func:`stratified_order`'s order."""
    members: dict[str, list[str]] = {}
    for item_id in strata:
        members.setdefault(item_id if clusters is None else clusters[item_id], []).append(item_id)
    named = {(ids[0] if len(ids) == 1 else key): sorted(ids) for key, ids in members.items()}
    if len(named) != len(members):
        raise ValueError("a cluster key is also another item's id")
    shared = {name: _shared([strata[i] for i in ids]) for name, ids in named.items()}
    order = stratified_order(shared, seed)
    return ClusterOrder(tuple(tuple(named[name]) for name in order), unit)


def _shared(values: Sequence[Hashable]) -> Hashable:
    """The stratum a cluster's items share: their common value, else per facet of equal-length
    tuples the common value or :data:`MIXED`."""
    first = values[0]
    if all(v == first for v in values):
        return first
    if isinstance(first, tuple) and all(
        isinstance(v, tuple) and len(v) == len(first) for v in values
    ):
        return tuple(
            part if all(v[k] == part for v in values) else MIXED  # type: ignore[index]
            for k, part in enumerate(first)
        )
    return MIXED
