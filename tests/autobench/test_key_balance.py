"""Answer keys of generated benchmarks: multiple-choice letters exact within every difficulty
level × fine aspect, true/false truth values planned before the question is written (never
flipped afterwards), the position-bias experiment's "even" copy even per stratum, and two
capabilities of one seed with key sequences of their own."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import ScriptedExaminer, assigned_truth, description_colours

from lvlmbench.autobench._backend import AspectPlan, PlannedAspect
from lvlmbench.autobench.keyplan import key_plan
from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.position_bias import rekey_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.scenes.recipes import RECIPES
from lvlmbench.store import Store, iter_items, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

LETTERS = "ABCD"


def _generate(path: Path, settings: GenerateSettings) -> tuple[Store, dict[str, Any]]:
    store = Store.open(str(path))
    images = ImageClient(load_image_model("procedural"), store)

    async def run() -> dict[str, Any]:
        try:
            made = await generate_benchmark(store, settings, ProceduralBackend(), images)
            return made.as_json()
        finally:
            await images.aclose()

    return store, asyncio.run(run())


def _tallies(items: list[BenchmarkItem]) -> dict[tuple[str, ...], Counter[str]]:
    """Keys per (level,) and per (level, fine aspect), multiple choice and true/false apart."""
    out: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
    for item in items:
        level, fine = item.meta["difficulty"], item.meta["fine_aspect"]
        out[(item.kind, level)][item.answer or ""] += 1
        out[(item.kind, level, fine)][item.answer or ""] += 1
    return out


# reasoning capacity, 2 general × 3 fine aspects: four ask multiple choice (adding counts,
# difference of counts, counting after removal, most numerous kind) and two true/false (more or
# fewer, size comparison).
REASONING = GenerateSettings(capability="reasoning capacity", n=2, m=3, per_aspect=5)


@pytest.mark.parametrize(
    ("per_aspect", "seed", "stratum_mc", "level_mc", "stratum_tf", "level_tf"),
    [
        # ω = 5: a stratum's 5 letters are 2/1/1/1, a level's 4 strata 20 = 5 each; 5
        # statements are 3/2, a level's two strata 10 = 5/5.
        (5, 0, [1, 1, 1, 2], [5, 5, 5, 5], [2, 3], [5, 5]),
        # ω = 6: 2/2/1/1 per stratum, 24 = 6 each per level; 3/3 and 6/6.
        (6, 2, [1, 1, 2, 2], [6, 6, 6, 6], [3, 3], [6, 6]),
        # ω = 3: 1/1/1/0 per stratum (the blanks rotated), 12 = 3 each; 2/1 and 3/3.
        (3, 7, [0, 1, 1, 1], [3, 3, 3, 3], [1, 2], [3, 3]),
    ],
)
def test_generated_keys_are_exact_within_every_level_and_fine_aspect(
    tmp_path: Path,
    per_aspect: int,
    seed: int,
    stratum_mc: list[int],
    level_mc: list[int],
    stratum_tf: list[int],
    level_tf: list[int],
) -> None:
    settings = dataclasses.replace(REASONING, per_aspect=per_aspect, seed=seed)
    store, report = _generate(tmp_path / "s.db", settings)
    try:
        assert report["self_check"]["dropped"] == 0  # so the hand-worked counts apply
        items = list(iter_items(store, settings.benchmark))
        tallies = _tallies(items)
        for key, counts in tallies.items():
            if key[0] == "mc":
                found = sorted(counts[letter] for letter in LETTERS)
                assert found == (stratum_mc if len(key) == 3 else level_mc), (key, counts)
            else:
                found = sorted(counts[truth] for truth in ("true", "false"))
                assert found == (stratum_tf if len(key) == 3 else level_tf), (key, counts)
        by_level = report["answer_letters_by_level"]
        assert {lv: sorted(c.values()) for lv, c in by_level.items()} == dict.fromkeys(
            ("easy", "hard", "medium"), level_mc
        )
        assert report["truth_by_level"] == {
            lv: {"true": tallies[("tf", lv)]["true"], "false": tallies[("tf", lv)]["false"]}
            for lv in ("easy", "hard", "medium")
        }
    finally:
        store.close()


def test_two_capabilities_of_one_seed_get_their_own_key_sequences(tmp_path: Path) -> None:
    # Each has three multiple-choice fine aspects here, so a key sequence drawn from the seed
    # alone would be the same for both.
    sequences = []
    for capability in ("spatial understanding", "basic understanding"):
        settings = GenerateSettings(
            capability=capability, n=1, m=3, per_aspect=4, levels=("easy", "hard"), seed=1
        )
        store, report = _generate(tmp_path / f"{capability}.db", settings)
        fines = [a["fine"] for a in report["plan"]["aspects"]]

        def planned(item: BenchmarkItem, fines: list[str] = fines) -> tuple[int, int, int]:
            meta = item.meta  # the plan's order: aspect, level, description index
            index = int(meta["unit"].rsplit("|", 1)[1])
            return (
                fines.index(meta["fine_aspect"]),
                ("easy", "hard").index(meta["difficulty"]),
                index,
            )

        items = sorted(iter_items(store, settings.benchmark), key=planned)
        store.close()
        assert report["self_check"]["dropped"] == 0 and all(i.kind == "mc" for i in items)
        sequences.append([i.answer for i in items])
    assert sequences[0] != sequences[1]


def test_the_key_plan_spreads_statements_per_stratum_and_is_stable() -> None:
    aspects = [
        PlannedAspect(capability="c", general="g", fine=f, guideline="")
        for f in ("odd or even", "adding counts", "size comparison")
    ]
    settings = GenerateSettings(capability="reasoning capacity", per_aspect=7)
    plan = AspectPlan(capability="c", aspects=aspects)

    def recipe_kind(aspect: PlannedAspect, key: str) -> Any:
        return RECIPES[aspect.fine].kind

    assigned = key_plan(plan, settings, recipe_kind)
    assert assigned == key_plan(plan, settings, recipe_kind)  # a resumed run: the same
    per: dict[tuple[str, str], Counter[bool | None]] = defaultdict(Counter)
    for key, value in assigned.items():
        _, fine, level, _ = key.split("|")
        per[(fine, level)][value.truth] += 1
        assert (value.kind == "tf") == (value.truth is not None)
    for (fine, _), counts in per.items():
        if fine == "adding counts":
            assert counts == {None: 7}
        else:  # 7 statements: 4/3, and a level's two strata 7/7
            assert sorted(counts.values()) == [3, 4]
    for level in settings.levels:
        truths = Counter(
            v.truth for k, v in assigned.items() if k.split("|")[2] == level and v.kind == "tf"
        )
        assert truths[True] == truths[False] == 7
    other = key_plan(plan, dataclasses.replace(settings, capability="counting"), recipe_kind)
    assert [v.truth for v in other.values()] != [v.truth for v in assigned.values()]


def test_a_model_examiner_is_asked_for_the_planned_truth_value(tmp_path: Path) -> None:
    settings = GenerateSettings(
        capability="spatial relations",
        n=1,
        m=2,
        per_aspect=4,
        levels=("easy",),
        k_checks=2,
        tf_share=1.0,
    )
    store = Store.open(str(tmp_path / "s.db"))
    examiner = ScriptedExaminer()
    backend = ModelBackend(ModelClient(examiner, store), mode="scene", k_checks=2)
    images = ImageClient(load_image_model("procedural"), store)

    async def run() -> None:
        try:
            await generate_benchmark(store, settings, backend, images)
        finally:
            await images.aclose()

    asyncio.run(run())
    items = list(iter_items(store, settings.benchmark))
    store.close()
    assert len(items) == 8 and all(i.kind == "tf" for i in items)
    for fine in {i.meta["fine_aspect"] for i in items}:
        truths = Counter(i.answer for i in items if i.meta["fine_aspect"] == fine)
        assert truths == {"true": 2, "false": 2}
    for item in items:  # each statement written to be what its key says
        circle, square = description_colours(item.caption or "")
        claim = circle if item.answer == "true" else square
        assert item.question == f"The circle is {claim}."
    prompts = [c[-1].text() for c in examiner.calls if "true/false statement" in c[-1].text()]
    assert sorted(assigned_truth(p) or "" for p in prompts) == ["false"] * 4 + ["true"] * 4


def _biased_source(store: Store) -> None:
    """Every key at A, over 2 levels × 3 fine aspects × 10 items, and a true/false item."""
    items = [
        BenchmarkItem(
            id=f"{level}-{fine}-{i}",
            benchmark="src",
            question=f"Question {i} about {fine}?",
            kind="mc",
            options={"A": f"right {i}", "B": f"x {i}", "C": f"y {i}", "D": f"z {i}"},
            answer="A",
            category="cap",
            meta={
                "capability": "cap",
                "general_aspect": "g",
                "fine_aspect": fine,
                "difficulty": level,
            },
        )
        for level in ("easy", "hard")
        for fine in ("f1", "f2", "f3")
        for i in range(10)
    ]
    truth = BenchmarkItem(
        id="tf",
        benchmark="src",
        question="It is day.",
        kind="tf",
        answer="false",
        meta={"difficulty": "easy", "fine_aspect": "f4"},
    )
    put_benchmark(store, "src", "autobench", {})
    put_items(store, [*items, truth])


@pytest.mark.parametrize("seed", [0, 3])
def test_the_even_copy_is_even_per_stratum_and_the_pinned_copies_pinned(
    tmp_path: Path, seed: int
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        _biased_source(store)
        even = list(iter_items(store, rekey_benchmark(store, "src", "even", seed)))
        tallies = _tallies(even)
        for key, counts in tallies.items():
            if key[0] == "mc":  # 10 per stratum: 3/3/2/2; 30 per level: 8/8/7/7
                expected = [2, 2, 3, 3] if len(key) == 3 else [7, 7, 8, 8]
                assert sorted(counts[letter] for letter in LETTERS) == expected, key
        for item in even:
            if item.kind == "mc":
                assert item.options[item.answer or ""].startswith("right")
            else:
                assert item.answer == "false"
        for target in ("A", "D"):
            copy = list(iter_items(store, rekey_benchmark(store, "src", target, seed)))
            assert {i.answer for i in copy if i.kind == "mc"} == {target}
            assert all(i.options[target].startswith("right") for i in copy if i.kind == "mc")
    finally:
        store.close()
