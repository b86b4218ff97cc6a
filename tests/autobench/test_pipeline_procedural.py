"""AutoBench-V end to end with the embedded default: procedural examiner + procedural renderer.

One small benchmark (2 general x 2 fine aspects x 2 images x 3 levels = 24 units) is generated
into a fresh SQLite store and then checked against what the pipeline stored along the way: the
unit artifacts (self-check history), the scene facts, the rendered images and the report.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.ids import content_id
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.scenes import ProceduralExaminer, render_png
from lvlmbench.store import Store, get_benchmark, iter_artifacts, iter_items
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem

SETTINGS = GenerateSettings(
    capability="spatial understanding", name="spatial-e2e", n=2, m=2, per_aspect=2, seed=2
)
"""With the daylight-only check below, seed 2 exercises every self-check path: rejections,
regeneration, acceptance with errors, a question refused for a wrong element, and a unit
dropped after all its attempts."""


def _daylight_only(rgb: tuple[int, int, int], program: Any) -> list[tuple[int, int, int]]:
    # The exact renderer hardly ever fails the real check (which compares against paint as it
    # looks under the scene's light). Comparing against daylight paint instead makes dusk,
    # night and fog scenes fail, so every path of the self-check runs in this small benchmark.
    return [rgb]


UNITS = SETTINGS.n * SETTINGS.m * SETTINGS.per_aspect * len(SETTINGS.levels)


@dataclass
class Built:
    store: Store
    settings: GenerateSettings
    report: dict[str, Any]
    items: list[BenchmarkItem]
    units: list[dict[str, Any]]


def _generate(path: Path, settings: GenerateSettings) -> Built:
    """Generate ``settings`` into a new store at ``path`` the way the CLI wires it up."""
    store = Store.open(str(path))
    images = ImageClient(load_image_model("procedural"), store)

    async def run() -> dict[str, Any]:
        try:
            made = await generate_benchmark(store, settings, ProceduralBackend(), images)
            return made.as_json()
        finally:
            await images.aclose()

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LVLMBENCH_WORKERS", "0")  # in this process, where the patch applies
        patch.setattr("lvlmbench.autobench.procedural.lit_appearances", _daylight_only)
        report = asyncio.run(run())
    return Built(
        store,
        settings,
        report,
        list(iter_items(store, settings.benchmark)),
        list(iter_artifacts(store, settings.benchmark, "units")),
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    result = _generate(tmp_path_factory.mktemp("first") / "x.db", SETTINGS)
    yield result
    result.store.close()


def _image_bytes(built: Built) -> list[bytes]:
    return [built.store.read_image(h) for item in built.items for h in item.images]


def _public(item: BenchmarkItem) -> dict[str, Any]:
    """What an examinee and the scorer see of an item (plus its id and image hashes)."""
    return item.model_dump(include={"id", "question", "kind", "images", "options", "answer"})


def test_items_are_the_accepted_units_with_balanced_keys(built: Built) -> None:
    report, items = built.report, built.items
    assert report["plan"]["problems"] == [] and len(report["plan"]["aspects"]) == 4
    assert len(built.units) == UNITS == report["self_check"]["units"]
    accepted = [u for u in built.units if u["status"] == "accepted"]
    assert len(accepted) > 0
    assert len(items) == len(accepted) == report["items"] == report["self_check"]["accepted"]
    assert report["self_check"]["dropped"] == UNITS - len(accepted)
    assert {i.meta["unit"] for i in items} == {u["meta"]["unit"] for u in accepted}
    assert len({i.id for i in items}) == len(items)
    for item in items:
        assert item.id == content_id("autobench", SETTINGS.benchmark, item.meta["unit"])
        assert item.benchmark == SETTINGS.benchmark and item.category == "spatial understanding"
        assert len(item.images) == 1 and item.caption

    choice = [i for i in items if i.kind == "mc"]
    assert len(choice) >= 8  # enough items for the balance check to mean something
    counts = Counter(i.answer for i in choice)
    assert set(counts) <= set("ABCD")
    spread = [counts.get(letter, 0) for letter in "ABCD"]
    assert max(spread) - min(spread) <= 1
    assert report["answer_letters"] == dict(zip("ABCD", spread, strict=True))
    for item in choice:
        assert sorted(item.options) == ["A", "B", "C", "D"]
        assert len({t.lower() for t in item.options.values()}) == 4
    for item in items:
        if item.kind == "tf":
            assert item.options == {} and item.answer in ("true", "false")


def test_each_key_matches_the_scene_it_was_drawn_from(built: Built) -> None:
    """Re-draw every item's scene from its stored seed (and a statement's truth value, which
    the key plan assigned before the scene was drawn): facts, image and key must agree."""
    examiner = ProceduralExaminer()
    for item in built.items:
        meta = item.meta
        sample = examiner.sample(
            meta["capability"],
            meta["general_aspect"],
            meta["fine_aspect"],
            meta["difficulty"],
            meta["scene_seed"],
            None if item.kind == "mc" else item.answer == "true",
        )
        assert meta["scene_program"] == sample.program.model_dump(mode="json")
        assert json.loads(json.dumps(sample.facts)) == meta["facts"]
        assert item.caption == sample.description
        assert item.question == sample.question.text
        question = sample.question
        if item.kind == "mc":
            assert item.options[item.answer or ""] == question.correct
            assert sorted(item.options.values()) == sorted(
                [question.correct, *question.distractors]
            )
        else:
            assert item.answer == question.correct
        # The stored image is exactly the drawn program at the benchmark's size.
        png = render_png(sample.program, SETTINGS.image_size, SETTINGS.image_size)
        digest = hashlib.sha256(png).hexdigest()
        assert item.images == [digest]
        assert hashlib.sha256(built.store.read_image(digest)).hexdigest() == digest
        # Error control: the question is never about an element the image got wrong.
        subjects = {
            f"the {o['color']} {o['category']}"
            for o in meta["facts"]["objects"]
            if o["index"] in meta["facts"]["subjects"]
        }
        assert not subjects & set(meta["errors"])
        assert meta["alignment"] >= SETTINGS.zeta[meta["difficulty"]]


def test_self_check_report_adds_up(built: Built) -> None:
    check = built.report["self_check"]
    histories = [u["history"] for u in built.units]
    renders = [h for history in histories for h in history if "score" in h]
    rejected = [h for h in renders if h["decision"] == "reject"]
    assert check["renders"] == len(renders)
    assert check["rejected_renders"] == len(rejected)
    assert check["rejection_rate"] == pytest.approx(len(rejected) / len(renders))
    assert check["accepted"] + check["dropped"] == check["units"]
    regenerated = sum(len(history) > 1 for history in histories)
    assert check["regeneration_rate"] == pytest.approx(regenerated / len(histories))
    # Hard and medium scenes (fog, night, clutter) do fail the pixel check sometimes: the
    # rejection path must actually have run in this benchmark.
    assert len(rejected) > 0 and regenerated > 0

    not_accepting = 0
    for unit in built.units:
        history, level = unit["history"], unit["meta"]["difficulty"]
        assert 1 <= len(history) <= SETTINGS.max_attempts
        assert [h["attempt"] for h in history] == list(range(len(history)))
        for entry in history[:-1]:
            assert entry["decision"] not in ("accept", "accept_with_errors")
        for entry in history:
            if "score" in entry:  # rendered and checked: rejected exactly when below ζ
                assert (entry["decision"] == "reject") == (entry["score"] < SETTINGS.zeta[level])
            if entry["decision"] not in ("accept", "accept_with_errors"):
                not_accepting += 1
        if unit["status"] == "accepted":
            last = history[-1]
            assert last["image"] == unit["image"] and last["score"] == unit["score"]
            assert last["decision"] == ("accept" if unit["score"] == 1.0 else "accept_with_errors")
            assert (unit["errors"] == []) == (last["decision"] == "accept")
    assert sum(check["failure_reasons"].values()) == not_accepting

    by_unit = {u["meta"]["unit"]: u for u in built.units}
    with_errors = [i for i in built.items if i.meta["decision"] == "accept_with_errors"]
    assert check["accepted_with_errors"] == len(with_errors)
    for item in built.items:
        unit = by_unit[item.meta["unit"]]
        assert item.meta["attempts"] == len(unit["history"])
        assert item.meta["alignment"] == unit["score"] and item.meta["errors"] == unit["errors"]
    alignments = [i.meta["alignment"] for i in built.items]
    assert check["mean_alignment"] == pytest.approx(sum(alignments) / len(alignments))
    # Every render went through the image cache once, rejected ones included, and was stored.
    assert built.store.count(tables.cache, kind="image") == len(renders)
    for entry in renders:
        assert built.store.image_path(entry["image"]).exists()
    stored = get_benchmark(built.store, SETTINGS.benchmark)
    assert stored is not None and stored.kind == "autobench"
    assert stored.data.self_check == check


def test_same_seed_gives_the_same_benchmark_in_another_store(built: Built, tmp_path: Path) -> None:
    # One unit in flight at a time instead of eight: scheduling must not change anything.
    again = _generate(tmp_path / "x.db", replace(SETTINGS, concurrency=1))
    try:
        assert [_public(i) for i in again.items] == [_public(i) for i in built.items]
        assert [i.model_dump() for i in again.items] == [i.model_dump() for i in built.items]
        assert _image_bytes(again) == _image_bytes(built)
        same = {k: v for k, v in again.report.items() if k not in ("wall_s", "settings")}
        assert same == {k: v for k, v in built.report.items() if k not in ("wall_s", "settings")}
    finally:
        again.store.close()


def test_another_seed_gives_other_items(built: Built, tmp_path: Path) -> None:
    # Same name, so the ids (name + unit) coincide: the content is what must differ.
    other = _generate(tmp_path / "x.db", replace(SETTINGS, seed=3))
    try:
        first = {i.meta["unit"]: i for i in built.items}
        second = {i.meta["unit"]: i for i in other.items}
        shared = sorted(first.keys() & second.keys())
        assert len(shared) >= UNITS // 2
        same_image = [u for u in shared if first[u].images == second[u].images]
        same_caption = [u for u in shared if first[u].caption == second[u].caption]
        assert same_image == [] and len(same_caption) <= 2
        assert {i.meta["scene_seed"] for i in built.items}.isdisjoint(
            i.meta["scene_seed"] for i in other.items
        )
    finally:
        other.store.close()


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"per_aspect": 3}, "per_aspect"),
        ({"seed": 3}, "seed"),
        ({"levels": ("easy", "hard")}, "levels"),
        ({"zeta": {"easy": 1.0, "medium": 0.6, "hard": 0.8}}, "zeta"),
        ({"max_attempts": 2, "k_checks": 3}, "k_checks, max_attempts"),
    ],
)
def test_reusing_a_name_with_other_settings_is_refused(
    built: Built, change: dict[str, Any], named: str
) -> None:
    before = built.store.count(tables.artifacts), built.store.count(tables.items)
    store = built.store
    images = ImageClient(load_image_model("procedural"), store)
    changed = replace(SETTINGS, **change)
    with pytest.raises(ValueError, match=r"'spatial-e2e' already exists with other") as refused:
        asyncio.run(generate_benchmark(store, changed, ProceduralBackend(), images))
    # Each changed setting is named with its stored and asked values, and only those.
    said = str(refused.value).split("(", 1)[1].split(");")[0]
    assert [part.split(":")[0] for part in said.split("; ")] == named.split(", ")
    assert all(": stored " in part and ", asked " in part for part in said.split("; "))
    assert (store.count(tables.artifacts), store.count(tables.items)) == before


def test_rerun_with_other_concurrency_resumes_without_recomputing(built: Built) -> None:
    rows = {r["id"]: r for r in built.store.iter_rows(tables.artifacts, run=SETTINGS.benchmark)}
    store = built.store
    images = ImageClient(load_image_model("procedural"), store)
    report = asyncio.run(
        generate_benchmark(store, replace(SETTINGS, concurrency=3), ProceduralBackend(), images)
    ).as_json()
    assert images.stats.requests == 0 and images.stats.cache_hits == 0  # no unit re-ran
    after = {r["id"]: r for r in store.iter_rows(tables.artifacts, run=SETTINGS.benchmark)}
    assert after == rows  # same rows, same data, same created_at: nothing was rewritten
    assert [i.model_dump() for i in iter_items(store, SETTINGS.benchmark)] == [
        i.model_dump() for i in built.items
    ]
    assert report["self_check"] == built.report["self_check"]
    assert report["answer_letters"] == built.report["answer_letters"]
