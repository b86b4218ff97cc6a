"""Generation in rounds under a budget (:class:`RoundBuilder`), with the procedural examiner and
renderer and with a scripted model examiner: the budget is kept and reported, the units built
are a stratified prefix of the order, earlier rounds' items never change, a re-run pays nothing
and a larger budget continues the same benchmark, and descriptions written a few at a time are
the ones a plain run writes."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import Call, ScriptedExaminer

from lvlmbench.autobench._backend import AspectPlan, ExaminerBackend
from lvlmbench.autobench.backends import generate_within
from lvlmbench.autobench.balance import letter_counts
from lvlmbench.autobench.budgeted import COSTS, RoundBuilder
from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.autobench.rounds import unit_order
from lvlmbench.autobench.unit_costs import (
    GENERATION,
    GenerationMoney,
    GenerationPrices,
    UnitUsage,
)
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient, metered
from lvlmbench.store import Store, get_artifact, get_benchmark, iter_artifacts, iter_items
from lvlmbench.store import _schema as tables

SETTINGS = GenerateSettings(
    capability="spatial understanding",
    n=2,
    m=2,
    per_aspect=5,
    levels=("easy", "hard"),
    seed=1,
    concurrency=2,
)
PLANNED = 2 * 2 * 2 * 5


def _generate(store: Store, budget: int, first_round: int = 4) -> tuple[dict[str, Any], int]:
    """A procedural generation within ``budget``; its report and the requests it sent."""

    async def run() -> tuple[dict[str, Any], int]:
        with metered() as meter:
            report = await generate_within(
                store,
                SETTINGS,
                "procedural",
                "procedural",
                "scene",
                budget=budget,
                first_round=first_round,
            )
        return report.as_json(), meter.requests

    return asyncio.run(run())


def _item_rows(store: Store) -> dict[str, str]:
    """Each stored item's row as stored (the JSON text), by id."""
    return {r["id"]: r["data"] for r in store.iter_rows(tables.items, benchmark=SETTINGS.benchmark)}


def _stored_letters(store: Store, report: dict[str, Any]) -> dict[str, int]:
    """Answer letters of the stored multiple-choice items: what the report says, and within one
    of each other (what examinees see, not what a re-balancing would have given)."""
    letters = letter_counts(
        i.answer or "" for i in iter_items(store, SETTINGS.benchmark) if i.kind == "mc"
    )
    assert letters == report["answer_letters"]
    assert max(letters.values()) - min(letters.values()) <= 1, letters
    return letters


def _units_stored(store: Store) -> set[str]:
    return {u["meta"]["unit"] for u in iter_artifacts(store, SETTINGS.benchmark, "units")}


def test_budget_is_kept_reported_and_built_as_a_stratified_prefix(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    report, requests = _generate(store, budget=15)
    budget = report["budget"]
    # Every unit here is fresh, so what the units cost is what was sent: at most the budget
    # plus the units in flight when it was reached (2 at a time, each up to 3 renders).
    assert budget["calls"] == budget["generation_calls"] == requests
    assert requests <= 15 + SETTINGS.concurrency * SETTINGS.max_attempts
    assert budget["stopped_by_budget"] and budget["budget"] == 15
    built = budget["units_built"]
    assert 0 < built < PLANNED and budget["units_planned"] == PLANNED
    assert report["self_check"]["units"] == built
    assert report["items"] == report["self_check"]["accepted"]
    order = unit_order(report_plan(store), SETTINGS)
    assert _units_stored(store) == {u.key for u in order[:built]}  # a prefix of the order
    sizes = Counter(u.stratum for u in order)
    seen = Counter(u.stratum for u in order[:built])
    for stratum, size in sizes.items():
        assert abs(seen[stratum] - built * size / PLANNED) <= 1
    assert budget["strata_share_gap"] <= 1 / built + 1e-9
    # The full plan is estimated from the mean cost of the units built, and said to be.
    mean = budget["calls_per_unit"]
    assert mean == requests / built
    assert budget["calls_full_estimate"] == round(PLANNED * mean)
    assert budget["calls_saved_estimate"] == budget["calls_full_estimate"] - requests
    stored = get_benchmark(store, SETTINGS.benchmark)
    assert stored is not None and stored.data.budget.units_built == built
    store.close()


def report_plan(store: Store) -> AspectPlan:
    plan = get_artifact(store, SETTINGS.benchmark, "plan", "plan")
    assert plan is not None
    return AspectPlan.model_validate(plan)


def test_a_rerun_pays_nothing_and_a_larger_budget_continues(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    first, paid = _generate(store, budget=10)
    assert paid == first["budget"]["calls"] > 0
    before = _item_rows(store)
    again, repaid = _generate(store, budget=10)
    assert repaid == 0
    assert {k: v for k, v in again.items() if k != "wall_s"} == {
        k: v for k, v in first.items() if k != "wall_s"
    }
    more, extra = _generate(store, budget=25)
    assert more["budget"]["units_built"] > first["budget"]["units_built"]
    assert extra == more["budget"]["calls"] - first["budget"]["calls"] > 0
    after = _item_rows(store)
    assert {k: after[k] for k in before} == before  # earlier items untouched, byte for byte
    _stored_letters(store, more)
    store.close()


def test_round_one_items_are_unchanged_by_round_two(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))

    async def rounds() -> tuple[dict[str, str], list[str], dict[str, str], dict[str, Any]]:
        images = ImageClient(load_image_model("procedural"), store)
        try:
            builder = await RoundBuilder.start(store, SETTINGS, ProceduralBackend(), images)
            await builder.build_until(9)
            first = [i.id for i in builder.finalize()]
            one = _item_rows(store)
            await builder.build_until(27)
            second = [i.id for i in builder.finalize()]
            assert not set(first) & set(second)  # each round hands out only its new items
            return one, first, _item_rows(store), builder.report.as_json()
        finally:
            await images.aclose()

    one, first, two, report = asyncio.run(rounds())
    assert set(one) == set(first) and len(two) > len(one)
    assert {k: two[k] for k in one} == one
    _stored_letters(store, report)
    # And finishing the plan without a budget keeps them too.
    images = ImageClient(load_image_model("procedural"), store)
    try:
        made = asyncio.run(generate_benchmark(store, SETTINGS, ProceduralBackend(), images))
        full = made.as_json()
    finally:
        asyncio.run(images.aclose())
    three = _item_rows(store)
    assert len(three) == full["items"] and {k: three[k] for k in one} == one
    _stored_letters(store, full)
    store.close()


# -- a model examiner --------------------------------------------------------------------------

LLM = GenerateSettings(
    capability="spatial understanding",
    name="llm-rounds",
    n=1,
    m=2,
    per_aspect=3,
    levels=("easy", "hard"),
    k_checks=2,
    seed=4,
)
LLM_UNITS = 1 * 2 * 2 * 3


async def _examined(store: Store, model: ScriptedExaminer, budget: int | None) -> int:
    """A scene-mode run of the scripted examiner (in rounds when ``budget`` is given); the
    requests it sent (examiner and renderer)."""
    client = ModelClient(model, store)
    backend: ExaminerBackend = ModelBackend(client, mode="scene", k_checks=LLM.k_checks)
    images = ImageClient(load_image_model("procedural"), store)
    try:
        with metered() as meter:
            if budget is None:
                await generate_benchmark(store, LLM, backend, images)
            else:
                builder = await RoundBuilder.start(store, LLM, backend, images, budget=budget)
                async for _ in builder.rounds_built(2):
                    pass
                assert builder.report.as_json()["budget"]["generation_calls"] == meter.requests
        return meter.requests
    finally:
        await images.aclose()
        await backend.aclose()


def _stage(store: Store, stage: str) -> dict[str, Any]:
    return {
        r["id"]: r["data"] for r in store.iter_rows(tables.artifacts, run=LLM.name, stage=stage)
    }


def test_model_examiner_descriptions_in_rounds_are_a_plain_runs(tmp_path: Path) -> None:
    plain_store = Store.open(str(tmp_path / "plain.db"))
    asyncio.run(_examined(plain_store, ScriptedExaminer(), None))
    rounds_store = Store.open(str(tmp_path / "rounds.db"))
    early = ScriptedExaminer()
    asyncio.run(_examined(rounds_store, early, budget=20))
    built = len(_stage(rounds_store, "units"))
    assert 0 < built < LLM_UNITS
    kinds = Counter(early.kinds)
    # Descriptions are written as units need them, not all up front.
    assert kinds["description"] < LLM_UNITS
    rest = ScriptedExaminer()
    asyncio.run(_examined(rounds_store, rest, None))  # the plain run finishes the plan
    # Every description was asked once over both runs: the stored ones were not paid again.
    assert kinds["description"] + Counter(rest.kinds)["description"] == LLM_UNITS
    for stage in ("plan", "descriptions", "units"):
        assert _stage(rounds_store, stage) == _stage(plain_store, stage), stage
    plain_store.close()
    rounds_store.close()


# -- a money cap -------------------------------------------------------------------------------

EXAMINER_PRICE = (100.0, 200.0)
CALL_USD = (50 * 100 + 20 * 200) / 1e6
"""What one scripted examiner call costs (50 input + 20 output tokens)."""
IMAGE_USD = 0.002
PRICES = GenerationPrices(EXAMINER_PRICE, IMAGE_USD)


@dataclass
class PricedRun:
    """What a priced run of the scripted examiner did: its money and what the guarantee lets
    it pass a cap above the plan and one unit by (each round's units' excess over the dearest
    unit seen before the round)."""

    summary: dict[str, Any]
    paid_usd: float
    slack_usd: float
    examiner_calls: int
    renders: int


def _unit_usd(store: Store, key: str) -> float:
    record = get_artifact(store, LLM.name or "", COSTS, key)
    assert record is not None
    usage = UnitUsage.from_record(record)
    assert usage is not None
    return PRICES.usd(usage)


async def _priced(store: Store, model: ScriptedExaminer, cap: float | None) -> PricedRun:
    client = ModelClient(model, store, price_per_mtok=EXAMINER_PRICE)
    backend: ExaminerBackend = ModelBackend(client, mode="scene", k_checks=LLM.k_checks)
    images = ImageClient(load_image_model("procedural"), store, price_per_image=IMAGE_USD)
    money = GenerationMoney.create(PRICES, [], cap)
    slack = 0.0
    try:
        with metered() as meter:
            builder = await RoundBuilder.start(store, LLM, backend, images, money=money)
            build = builder.build_until

            async def watched(end: int) -> None:
                nonlocal slack
                spend = money.spend
                known = spend.known  # else a probe: it passes only a cap below one unit
                dearest = spend.dearest.get(GENERATION, 0.0)
                before = len(builder.built)
                await build(end)
                for unit in builder.order[before : len(builder.built)] if known else []:
                    slack += max(0.0, _unit_usd(store, unit.key) - dearest)

            builder.build_until = watched  # type: ignore[method-assign]
            async for _ in builder.rounds_built(4):
                pass
        calls = len(model.kinds)
        return PricedRun(
            builder.summary().as_json(), money.paid_usd, slack, calls, meter.requests - calls
        )
    finally:
        await images.aclose()
        await backend.aclose()


def _fumbling() -> ScriptedExaminer:
    """The scripted examiner, answering some questions with no JSON at first: the units it
    re-asks cost one call more, so units differ in cost."""

    def first_try(call: Call) -> str | None:
        return "no JSON here" if not call.reask and len(call.description) % 2 == 0 else None

    return ScriptedExaminer(overrides={"mc": first_try, "tf": first_try})


@pytest.mark.parametrize(
    ("cap", "passed"),
    [
        # The plan ($0.036) and a $0.056 probe leave $0.060: a second unit fits at the dearest
        # cost seen, and turns out to cost $0.065 (a re-ask), passing the cap by its excess.
        (0.152, True),
        (0.3, False),
    ],
)
def test_a_money_cap_is_kept_within_its_slack_and_a_rerun_pays_nothing(
    tmp_path: Path, cap: float, passed: bool
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    run = asyncio.run(_priced(store, _fumbling(), cap=cap))
    money = run.summary["money"]
    built = run.summary["units_built"]
    assert 0 < built < LLM_UNITS and run.summary["stopped_by_budget"]
    # Fresh work: what was counted is what was sent, at the prices, split exactly.
    assert money["examiner_usd"] == pytest.approx(run.examiner_calls * CALL_USD)
    assert money["images_usd"] == pytest.approx(run.renders * IMAGE_USD) and run.renders > 0
    assert (
        money["used_usd"] == pytest.approx(money["generation_usd"]) == pytest.approx(run.paid_usd)
    )
    assert money["examinees_usd"] == 0 and money["cap_usd"] == cap
    # Passed only as the guarantee says: by rounds' units dearer than every unit before them.
    assert (money["used_usd"] > cap) == passed
    assert money["used_usd"] <= cap + run.slack_usd + 1e-12
    # The next unit would not have fitted at the dearest unit's cost.
    dearest = max(_unit_usd(store, u["meta"]["unit"]) for u in _stage_units(store))
    assert money["used_usd"] + dearest > cap
    full = money["full_estimate_usd"]
    assert full == pytest.approx(money["used_usd"] + (LLM_UNITS - built) * money["unit_mean_usd"])
    again = _fumbling()
    rerun = asyncio.run(_priced(store, again, cap=cap))
    assert again.kinds == [] and rerun.paid_usd == 0 and rerun.renders == 0
    assert rerun.summary == run.summary  # the same rounds, units and money
    store.close()


def _stage_units(store: Store) -> list[dict[str, Any]]:
    return list(iter_artifacts(store, LLM.name or "", "units"))


def test_without_a_cap_the_money_is_only_counted(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    run = asyncio.run(_priced(store, ScriptedExaminer(), cap=None))
    money = run.summary["money"]
    assert run.summary["units_built"] == LLM_UNITS and not run.summary["stopped_by_budget"]
    assert money["cap_usd"] is None and money["full_estimate_usd"] == pytest.approx(
        money["used_usd"]
    )
    assert money["used_usd"] == pytest.approx(
        run.examiner_calls * CALL_USD + run.renders * IMAGE_USD
    )
    store.close()
