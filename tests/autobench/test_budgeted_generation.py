"""Generation in rounds under a budget (:class:`RoundBuilder`), with the procedural examiner and
renderer and with a scripted model examiner: the budget is kept and reported, the units built
are a stratified prefix of the order, earlier rounds' items never change, a re-run pays nothing
and a larger budget continues the same benchmark, and descriptions written a few at a time are
the ones a plain run writes."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from examiner_fakes import ScriptedExaminer

from lvlmbench.autobench._backend import AspectPlan, ExaminerBackend
from lvlmbench.autobench.backends import generate_within
from lvlmbench.autobench.balance import letter_counts
from lvlmbench.autobench.budgeted import RoundBuilder
from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.autobench.rounds import unit_order
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
        return report, meter.requests

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
    assert stored is not None and stored["data"]["budget"]["units_built"] == built
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
            return one, first, _item_rows(store), builder.report
        finally:
            await images.aclose()

    one, first, two, report = asyncio.run(rounds())
    assert set(one) == set(first) and len(two) > len(one)
    assert {k: two[k] for k in one} == one
    _stored_letters(store, report)
    # And finishing the plan without a budget keeps them too.
    images = ImageClient(load_image_model("procedural"), store)
    try:
        full = asyncio.run(generate_benchmark(store, SETTINGS, ProceduralBackend(), images))
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
                assert builder.report["budget"]["generation_calls"] == meter.requests
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
