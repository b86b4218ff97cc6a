"""What each unit of a budgeted generation cost, stored once so a resumed run counts the same
requests (the records :class:`lvlmbench.autobench.budgeted.RoundBuilder` keeps)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.autobench.unit_costs import UnitUsage
from lvlmbench.models import RequestMeter
from lvlmbench.store import Store, get_artifact, put_artifact
from lvlmbench.types import BenchmarkItem

__all__ = ["COSTS", "BuiltRound", "Recorded", "UnitCost", "recorded_cost"]

COSTS = "costs"
"""Artifact stage of the requests each unit (key) and the plan (``plan``) cost when built."""


@dataclass(frozen=True)
class UnitCost:
    """What a unit cost and gave: None requests for one built without a record (by a run that
    kept no budget: it costs this run nothing and says nothing about the mean)."""

    requests: int | None
    item: bool


@dataclass(frozen=True)
class Recorded:
    """A stored cost record: the requests sent and what their answers used (None: the record
    predates usage)."""

    requests: int
    usage: UnitUsage | None

    @classmethod
    def read(cls, stored: dict[str, Any]) -> Recorded:
        return cls(int(stored["requests"]), UnitUsage.from_record(stored))


@dataclass(frozen=True)
class BuiltRound:
    """One round's new items (in the order) and the items the budget still affords."""

    items: list[BenchmarkItem]
    remaining: int


def recorded_cost(store: Store, s: GenerateSettings, key: str, meter: RequestMeter) -> Recorded:
    """The stored cost of ``key``, or what ``meter`` counted stored as it. The first record
    stands: a run killed after its unit's calls replays them from the cache for nothing."""
    stored = get_artifact(store, s.benchmark, COSTS, key)
    if stored is not None:
        return Recorded.read(stored)
    usage = UnitUsage.of(meter)
    put_artifact(store, s.benchmark, COSTS, key, {"requests": meter.requests, **usage.record()})
    return Recorded(meter.requests, usage)
