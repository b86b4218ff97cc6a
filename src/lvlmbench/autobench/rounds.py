"""The order a generation in rounds builds its units in: one seeded order over the plan whose
every prefix keeps the plan's mix of capability × general aspect × difficulty.

The strata's places come from :func:`lvlmbench.budget.stratified_order` (the draws a budgeted
evaluation asks items in), so a run stopped after any unit holds within one unit of each
stratum's share of the plan. Which unit of a stratum fills its next place is not drawn at random:
units go by description index first (every fine aspect's first description, then every second
one, ...) and by a seeded order of the fine aspects within an index. A model examiner writes a
fine aspect's descriptions one after the other (each bans the themes of the earlier ones), so a
stopped run has paid only for the first few descriptions of each fine aspect instead of every
description of the few fine aspects it happened to draw, and the fine aspects stay interleaved
too.

A generation that decides a question (``generate --until``) builds whole fine aspects instead
(:func:`cluster_units`): a fine aspect's items share their source, so they are one cluster of
the sequential test (:mod:`lvlmbench.budget.rules`), which needs every cluster it tests
complete. Its order is the stratified order of the fine aspects over capability × general
aspect (the levels are in every fine aspect), and a fine aspect's units by level, then index;
its rounds end between fine aspects, and :class:`WholeClusters` hands the decision each fine
aspect once all its units are built. A budget that stops the run inside a fine aspect leaves
that one untested (its items are answered, and counted in the accuracy tables).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from lvlmbench.autobench._backend import AspectPlan, PlannedAspect
from lvlmbench.autobench._finalize import item_id
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.autobench.stages import group_key, unit_key
from lvlmbench.budget import ClusterOrder, cluster_order, facet_mix, stratified_order
from lvlmbench.types import BenchmarkItem

__all__ = [
    "STRATA",
    "PlannedUnit",
    "WholeClusters",
    "cluster_units",
    "ordered",
    "strata_gap",
    "unit_order",
]

STRATA = ("capability", "general_aspect", "difficulty")
"""What the order is stratified over (the item facets of the same names)."""


@dataclass(frozen=True)
class PlannedUnit:
    """One unit of the plan: a fine aspect at a level, and its description's index."""

    aspect: PlannedAspect
    level: str
    index: int

    @property
    def group(self) -> str:
        """The fine aspect and level (its descriptions' key)."""
        return group_key(self.aspect, self.level)

    @property
    def key(self) -> str:
        """The unit's key: the one the pipeline stores it under."""
        return unit_key(self.aspect, self.level, self.index)

    @property
    def cluster(self) -> str:
        """Its fine aspect, all levels (the cluster its item is tested in)."""
        a = self.aspect
        return f"{a.capability}|{a.general}|{a.fine}"

    @property
    def stratum(self) -> tuple[str, str, str]:
        """Its capability, general aspect and difficulty."""
        return (self.aspect.tested, self.aspect.general, self.level)


def _planned(plan: AspectPlan, settings: GenerateSettings) -> dict[str, PlannedUnit]:
    units = (
        PlannedUnit(aspect, level, index)
        for aspect in plan.aspects
        for level in settings.levels
        for index in range(settings.per_aspect)
    )
    return {unit.key: unit for unit in units}  # by key: the pipeline builds a key once


def unit_order(plan: AspectPlan, settings: GenerateSettings) -> list[PlannedUnit]:
    """Every unit of the plan, in the order a generation in rounds builds them (seeded by
    ``settings.seed``: the same on every run, so a resumed run continues the same order)."""
    planned = _planned(plan, settings)
    strata = {key: unit.stratum for key, unit in planned.items()}
    members: dict[tuple[str, str, str], list[PlannedUnit]] = {}
    for unit in planned.values():
        members.setdefault(unit.stratum, []).append(unit)
    queues = {}
    for stratum, units in members.items():
        fines = sorted({u.aspect.fine for u in units})
        random.Random(f"{settings.seed}:{stratum!r}").shuffle(fines)
        rank = {fine: position for position, fine in enumerate(fines)}
        queues[stratum] = deque(sorted(units, key=lambda u: (u.index, rank[u.aspect.fine])))
    return [queues[strata[key]].popleft() for key in stratified_order(strata, settings.seed)]


def cluster_units(plan: AspectPlan, settings: GenerateSettings) -> ClusterOrder:
    """The plan's unit keys in whole fine aspects, each a cluster (seeded by ``settings.seed``:
    the same on every run); :func:`ordered` gives the units themselves."""
    planned = _planned(plan, settings)
    level = {name: k for k, name in enumerate(settings.levels)}
    order = cluster_order(
        {key: unit.stratum for key, unit in planned.items()},
        {key: unit.cluster for key, unit in planned.items()},
        settings.seed,
        "fine aspect",
    )
    # Within a fine aspect by level then index: a group's descriptions are written in order.
    return ClusterOrder(
        tuple(
            tuple(sorted(keys, key=lambda k: (level[planned[k].level], planned[k].index)))
            for keys in order.clusters
        ),
        order.unit,
    )


def ordered(plan: AspectPlan, settings: GenerateSettings, order: ClusterOrder) -> list[PlannedUnit]:
    """The plan's units in ``order`` (:func:`cluster_units`)."""
    planned = _planned(plan, settings)
    return [planned[key] for key in order.items]


@dataclass
class WholeClusters:
    """Hands a decision each fine aspect of a generation in rounds once all its units are
    built, as its items (a fine aspect whose units were all rejected has none: left out)."""

    order: ClusterOrder
    benchmark: str
    tested: int = 0
    """Clusters handed out."""
    items: dict[str, BenchmarkItem] = field(default_factory=dict)

    def take(
        self, built: Sequence[PlannedUnit], new: Sequence[BenchmarkItem]
    ) -> list[list[BenchmarkItem]]:
        """The clusters ``built`` (a prefix of the order) now holds whole that were not handed
        out before; ``new``: the items finalized since the last call."""
        self.items.update((item.id, item) for item in new)
        done = {unit.key for unit in built}
        whole = []
        for keys in self.order.clusters[self.tested :]:
            if not done.issuperset(keys):
                break  # a prefix: no later cluster is whole either
            self.tested += 1
            ids = [item_id(self.benchmark, key) for key in keys]
            whole.append([self.items[i] for i in ids if i in self.items])
        return [items for items in whole if items]


def strata_gap(built: Sequence[PlannedUnit], planned: Sequence[PlannedUnit]) -> float:
    """Largest difference between a stratum's share among the units built and in the plan."""
    strata = {u.key: u.stratum for u in planned}
    full, early = (
        facet_mix([u.key for u in planned], strata),
        facet_mix([u.key for u in built], strata),
    )
    return max((abs(share - early.get(s, 0.0)) for s, share in full.items()), default=0.0)
