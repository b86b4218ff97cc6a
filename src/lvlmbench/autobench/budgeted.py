"""AutoBench-V generation in rounds under a budget of calls or money (``generate --budget``,
``--budget-usd``, and the generation half of ``generate --until``).

Units are built in the stratified order of :mod:`.rounds`, in rounds of doubling size
(:func:`lvlmbench.budget.round_ends`); after each round the benchmark is finalized from the
units built so far, and items stored earlier keep their options and answer letters (the new ones
are balanced against them), so examinees' answers on earlier rounds stay valid.

What a unit costs is what it sent: the requests of the examiner and text-to-image clients made
while it was built (its descriptions included; cached and shared calls cost nothing), counted by
:func:`lvlmbench.models.metered` and stored with the unit (artifact stage ``costs``), and
likewise the plan's; with them the tokens and images their answers used, which a money cap
prices (:mod:`.unit_costs`). The accounting is positional: what the units built so far cost
when they were built, plus ``per_item`` examinee calls for each item they became. A resumed run
reads those records instead of re-counting (its replays are free), so it sizes every round as
the first run did and reaches the same benchmark; a larger budget continues where a smaller one
stopped.

The budget's guarantee: a unit starts only while the calls counted (those of finished units plus
those the units in flight have sent so far) are below the budget, and, once some units are built,
a round asks only as many units as the budget still pays for at their mean cost. Units already
started finish, so a run passes the budget by at most what the units in flight when it is
reached go on to cost (at most ``concurrency`` units). The plan is made whatever the budget: no
unit can be named without it.

A money cap (``generate --budget-usd``) sizes the rounds as ``evaluate --budget-usd`` does
(:class:`lvlmbench.budget.Spend`: a probe unit first, then at most as many units as were built
before, each costed as the dearest unit seen with its examinees' dearest answers) and refuses a
unit once the money counted, the units in flight included, reaches the cap. It is passed only by
the plan (made whatever the cap) and the probe (a cap below what they cost), or by a round whose
units turn out dearer than every unit before them, by at most that round's units times the
difference; units in flight finish. With both caps, the first reached stops.

A generation that decides a question builds whole fine aspects, the sequential test's clusters
(``by_cluster``: :func:`.rounds.cluster_units`, :class:`.rounds.WholeClusters`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import defaultdict
from collections.abc import AsyncGenerator
from functools import partial
from itertools import takewhile

from lvlmbench._concurrency import drain
from lvlmbench.autobench._backend import AspectPlan, ExaminerBackend
from lvlmbench.autobench._finalize import finalize_benchmark, item_id
from lvlmbench.autobench._unit_costs_stored import (
    COSTS,
    BuiltRound,
    Recorded,
    UnitCost,
    recorded_cost,
)
from lvlmbench.autobench.keyplan import key_plan
from lvlmbench.autobench.pipeline import (
    ProgressHook,
    claim,
    described,
    load_plan,
    process_unit,
    store_unit,
)
from lvlmbench.autobench.rounds import (
    STRATA,
    PlannedUnit,
    WholeClusters,
    cluster_units,
    ordered,
    strata_gap,
    unit_order,
)
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.autobench.stages import Unit
from lvlmbench.autobench.unit_costs import GenerationMoney, UnitUsage
from lvlmbench.budget import round_ends
from lvlmbench.images import ImageClient
from lvlmbench.models import RequestMeter, metered
from lvlmbench.store import GenerationBudget, GenerationReport, Store, get_artifact, iter_items
from lvlmbench.types import BenchmarkItem

__all__ = ["COSTS", "BuiltRound", "RoundBuilder"]


class RoundBuilder:
    """Builds a plan's units in rounds within a budget; start it with :meth:`start`."""

    def __init__(
        self,
        store: Store,
        settings: GenerateSettings,
        backend: ExaminerBackend,
        images: ImageClient,
        plan: AspectPlan,
        plan_cost: int,
        *,
        budget: int | None,
        per_item: int,
        on_progress: ProgressHook | None,
        money: GenerationMoney | None = None,
        by_cluster: bool = False,
    ) -> None:
        self.store, self.settings, self.backend, self.images = store, settings, backend, images
        self.plan, self.plan_cost = plan, plan_cost
        self.budget, self.per_item = budget, per_item
        self.money = money
        """The money counted and its cap (None: costs are not priced)."""
        clusters = cluster_units(plan, settings) if by_cluster else None
        self.whole = None if clusters is None else WholeClusters(clusters, settings.benchmark)
        """The fine aspects whole, in build order (None: units interleaved by description)."""
        self.order = (
            unit_order(plan, settings) if clusters is None else ordered(plan, settings, clusters)
        )
        # Over the whole plan: a unit's assignment does not depend on the round that builds it.
        self.assigned = key_plan(plan, settings, partial(backend.question_kind, settings))
        self.built: list[PlannedUnit] = []
        """The prefix of the order built so far."""
        self.known: dict[str, UnitCost] = {}
        self.short = False
        """The budget stopped the run (a round was cut, or a unit refused)."""
        self.rounds = 0
        self._report: GenerationReport | None = None
        self.warnings: tuple[str, ...] = ()
        """The run's warnings, stored in every report it finalizes."""
        self.on_progress = on_progress
        """Called with (units known, units planned) as units are found or built."""
        self._live: dict[str, RequestMeter] = {}
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._chain = backend.stages()
        self._handed = 0
        self._started = time.perf_counter()

    @classmethod
    async def start(
        cls,
        store: Store,
        settings: GenerateSettings,
        backend: ExaminerBackend,
        images: ImageClient,
        *,
        budget: int | None = None,
        per_item: int = 0,
        on_progress: ProgressHook | None = None,
        money: GenerationMoney | None = None,
        by_cluster: bool = False,
    ) -> RoundBuilder:
        """Claim the benchmark's name and make (or read) the plan; ``per_item``: examinee calls
        each item will cost (counted against ``budget`` with the generation's requests);
        ``money``: what the work costs, against its cap (the examinees' answers fed to its
        ``spend`` by the caller); ``by_cluster``: build whole fine aspects (a decision's
        clusters) instead of interleaving their descriptions."""
        settings.validate()
        claim(store, settings, f"{backend.name} + {images.spec}")
        with metered() as meter:
            plan = await load_plan(store, settings, backend)
        cost = recorded_cost(store, settings, "plan", meter)
        if money is not None:
            money.plan(cost.usage, paid=UnitUsage.of(meter))
        return cls(
            store,
            settings,
            backend,
            images,
            plan,
            cost.requests,
            budget=budget,
            per_item=per_item,
            on_progress=on_progress,
            money=money,
            by_cluster=by_cluster,
        )

    # Accounting -------------------------------------------------------------------------------

    @property
    def generation_calls(self) -> int:
        """Examiner and text-to-image requests the plan and the units cost when built."""
        return self.plan_cost + sum(c.requests or 0 for c in self.known.values())

    @property
    def examinee_calls(self) -> int:
        return self.per_item * sum(c.item for c in self.known.values())

    def spent(self) -> int:
        """Calls counted so far, the requests of units in flight included."""
        live = sum(m.requests for m in self._live.values())
        return self.generation_calls + self.examinee_calls + live

    def mean_unit_calls(self) -> float | None:
        """Mean requests of the units built with a record (None before the first)."""
        measured = [c.requests for c in self.known.values() if c.requests is not None]
        return sum(measured) / len(measured) if measured else None

    def item_share(self) -> float:
        """Share of the units built that became items (1 before the first)."""
        return sum(c.item for c in self.known.values()) / len(self.known) if self.known else 1.0

    def _unit_estimate(self) -> float | None:
        mean = self.mean_unit_calls()
        return None if mean is None else mean + self.per_item * self.item_share()

    def _affordable(self, units: int) -> int:
        """How many of ``units`` more units the budget left pays for at the mean cost."""
        estimate = self._unit_estimate()
        if self.budget is None or estimate is None or estimate <= 0:
            return units
        return max(0, min(units, math.floor((self.budget - self.spent()) / estimate)))

    def _over_budget(self) -> bool:
        """Whether a cap is reached, counting what the units in flight have sent so far."""
        if self.budget is not None and self.spent() >= self.budget:
            return True
        money = self.money
        if money is None or money.spend.cap_usd is None:
            return False
        return money.spend.used_usd + money.live_usd(self._live.values()) >= money.spend.cap_usd

    def _target(self, end: int) -> tuple[int, bool]:
        """Where the round towards ``end`` stops, and whether the calls budget cut it (only
        where the calls bind: a round the money cap sizes is cut to what is known to fit and
        the next one goes on)."""
        used = len(self.built)
        by_calls = used + self._affordable(end - used)
        if self.money is None:
            return by_calls, by_calls < end
        by_money = used + self.money.spend.next_round(end - used, used)
        return min(by_calls, by_money), by_calls < end and by_calls <= by_money

    @property
    def complete(self) -> bool:
        """Every unit of the plan is built."""
        return len(self.built) == len(self.order)

    @property
    def stopped(self) -> bool:
        """A budget stopped the run: a round cut or a unit refused, or the money left affords
        no further unit (known only once the last round's examinees have answered)."""
        money_out = self.money is not None and self.money.exhausted(len(self.built))
        return not self.complete and (self.short or money_out)

    @property
    def finished(self) -> bool:
        """The plan is built, or a budget stopped the run."""
        return self.complete or self.stopped

    def remaining_items(self) -> int:
        """Items the plan and the budget can still give (an estimate from the rounds so far)."""
        if self.finished:
            return 0
        units = self._affordable(len(self.order) - len(self.built))
        if self.money is not None:
            units = self.money.spend.items_affordable(units)
        return math.floor(units * self.item_share())

    # Building ---------------------------------------------------------------------------------

    def _progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(len(self.known), len(self.order))

    def _found(self, unit: PlannedUnit) -> bool:
        """Whether the unit is stored (then it is known, and costs this run nothing)."""
        stored = get_artifact(self.store, self.settings.benchmark, "units", unit.key)
        if stored is None:
            return False
        stored_cost = get_artifact(self.store, self.settings.benchmark, COSTS, unit.key)
        cost = None if stored_cost is None else Recorded.read(stored_cost)
        requests = None if cost is None else cost.requests
        self.known[unit.key] = UnitCost(requests, stored["status"] == "accepted")
        if self.money is not None and cost is not None:
            self.money.unit(cost.usage, paid=None)
        self._progress()
        return True

    async def _build(self, unit: PlannedUnit) -> None:
        s = self.settings
        with metered() as meter:
            self._live[unit.key] = meter
            try:
                async with self._locks[unit.group]:  # one writer extends a group's descriptions
                    texts = await described(
                        self.store, s, self.backend, unit.aspect, unit.level, unit.index + 1
                    )
                assigned = self.assigned[unit.key]
                planned = Unit(unit.key, unit.aspect, unit.level, texts[unit.index], assigned)
                result = await process_unit(planned, s, self._chain, self.images)
            finally:
                del self._live[unit.key]
        # The cost before the unit: a run killed between the two writes keeps what was paid.
        cost = recorded_cost(self.store, s, unit.key, meter)
        store_unit(self.store, s, unit.key, result)
        self.known[unit.key] = UnitCost(cost.requests, result.accepted is not None)
        if self.money is not None:
            self.money.unit(cost.usage, paid=UnitUsage.of(meter))
        self._progress()

    async def build_until(self, end: int) -> None:
        """Build the order's units up to ``end`` (exclusive), as far as the budgets go."""
        target, cut = self._target(end)
        todo = self.order[len(self.built) : target]
        refused = False

        async def one(unit: PlannedUnit) -> None:
            nonlocal refused
            if self._found(unit):
                return
            # Once one unit is refused every later one is, so the units built stay a prefix.
            refused = refused or self._over_budget()
            if not refused:
                await self._build(unit)

        await drain(todo, one, self.settings.concurrency)
        self.built += takewhile(lambda u: u.key in self.known, todo)
        self.short = self.short or refused or cut or self._over_budget()
        self.rounds += bool(todo)

    def finalize(self) -> list[BenchmarkItem]:
        """Store the benchmark from the units built; returns the items new since the last call,
        in the order."""
        s = self.settings
        self._report = finalize_benchmark(
            self.store,
            s,
            self.plan,
            [u.key for u in self.built],
            f"{self.backend.name} + {self.images.spec}",
            time.perf_counter() - self._started,
            budget=self.summary(),
            warnings=self.warnings,
            measure=self.images.prompt_length,
        )
        wanted = [item_id(s.benchmark, u.key) for u in self.built[self._handed :]]
        self._handed = len(self.built)
        fresh = set(wanted)
        stored = {i.id: i for i in iter_items(self.store, s.benchmark) if i.id in fresh}
        return [stored[i] for i in wanted if i in stored]

    async def rounds_built(self, first_round: int) -> AsyncGenerator[BuiltRound, None]:
        """Build, finalize and hand out round after round until the plan or the budget ends:
        each round goes to the doubling schedule's next end, or as far as the money cap lets it
        (then the next round goes on towards the same end)."""
        if not self.order:
            self.finalize()
            return
        ends = round_ends(len(self.order), first_round)
        if self.whole is not None:
            ends = self.whole.order.snapped(ends)
        while True:
            if not self.finished:  # else the plan alone spent the money: one empty round
                await self.build_until(next(end for end in ends if end > len(self.built)))
            items = self.finalize()
            yield BuiltRound(items, self.remaining_items())
            if self.finished:
                return

    @property
    def report(self) -> GenerationReport:
        """The report stored by the last :meth:`finalize` (every run of rounds makes one)."""
        if self._report is None:
            raise RuntimeError("no round was finalized: there is no report yet")
        return self._report

    def settle(self) -> None:
        """Store the report once more if it changed since the last round was finalized: with
        ``--until`` the last round's answers are costed (and may spend the money) after it."""
        stored = None if self._report is None else self._report.budget
        if stored is None or stored.as_json() != self.summary().as_json():
            self.finalize()

    def summary(self) -> GenerationBudget:
        """The budget section of the generation report (full-plan figures are estimates)."""
        mean = self.mean_unit_calls()
        planned = len(self.order)
        full = None
        if mean is not None:
            examinees = self.per_item * planned * self.item_share()
            full = round(self.plan_cost + planned * mean + examinees)
        calls = self.generation_calls + self.examinee_calls
        money = self.money
        return GenerationBudget(
            units_built=len(self.built),
            units_planned=planned,
            rounds=self.rounds,
            budget=self.budget,
            stopped_by_budget=self.stopped,
            calls=calls,
            generation_calls=self.generation_calls,
            examinee_calls=self.examinee_calls,
            calls_per_unit=mean,
            calls_full_estimate=full,
            calls_saved_estimate=None if full is None else max(0, full - calls),
            strata=list(STRATA),
            strata_share_gap=strata_gap(self.built, self.order),
            money=None
            if money is None
            else money.summary(planned, len(self.built), self.item_share()),
        )
