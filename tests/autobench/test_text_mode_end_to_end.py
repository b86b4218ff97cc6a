"""Text mode end to end: a scripted model examiner and a tiny random diffusers pipeline as the
text-to-image model. Aspects → guidelines → descriptions → images → VQA self-check (with
redraws under a new seed) → questions → balanced items → an examinee's evaluation; and a run
interrupted mid-way resumes to the same benchmark, paying for no examiner call twice."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("diffusers")
pytest.importorskip("transformers")

from examiner_fakes import Call, ScriptedExaminer
from fakes import ScriptedModel
from tiny_diffusers import build_tiny_stable_diffusion

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, iter_artifacts, iter_items

pytestmark = pytest.mark.integration  # builds and runs a (tiny) diffusion model: ~30 s

SETTINGS = GenerateSettings(
    capability="reading shop signs",
    n=1,
    m=2,
    per_aspect=2,
    levels=("easy", "hard"),
    seed=3,
    image_size=32,
    k_checks=2,
    max_attempts=2,
)
UNITS = 1 * 2 * 2 * 2


@pytest.fixture(scope="module")
def tiny_sd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny-sd")
    build_tiny_stable_diffusion(path)
    return path


def _picky_eye(call: Call) -> str | None:
    """The examiner's VQA answer: "No" to every check on a third of the pictures (chosen by
    the picture's bytes, so the reply is a pure function of the call), which rejects that
    render; "Yes" (the default) otherwise."""
    (image,) = [p for m in call.messages for p in m.images()]
    return "No." if int(image.sha256()[:2], 16) % 3 == 0 else None


def _examiner(**kwargs: Any) -> ScriptedExaminer:
    return ScriptedExaminer(overrides={"answer": _picky_eye}, **kwargs)


async def _generate(
    store: Store, sd: Path, examiner: ScriptedExaminer, settings: GenerateSettings = SETTINGS
) -> dict[str, Any]:
    backend = ModelBackend(ModelClient(examiner, store), mode="text", k_checks=settings.k_checks)
    images = ImageClient(load_image_model(f"diffusers/{sd}", device="cpu", steps="2"), store)
    try:
        return (await generate_benchmark(store, settings, backend, images)).as_json()
    finally:
        await images.aclose()


def _benchmark(store: Store) -> tuple[list[dict[str, Any]], list[bytes]]:
    items = list(iter_items(store, SETTINGS.benchmark))
    return [i.model_dump() for i in items], [store.read_image(h) for i in items for h in i.images]


@dataclass
class Full:
    store: Store
    report: dict[str, Any]
    kinds: list[str]
    items: list[dict[str, Any]]
    images: list[bytes]


@pytest.fixture(scope="module")
def full(tiny_sd: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Full]:
    store = Store.open(str(tmp_path_factory.mktemp("text") / "full.db"))
    examiner = _examiner()
    report = asyncio.run(_generate(store, tiny_sd, examiner))
    items, images = _benchmark(store)
    yield Full(store, report, list(examiner.kinds), items, images)
    store.close()


def test_every_stage_ran_in_text_mode(full: Full) -> None:
    check = full.report["self_check"]
    assert check["units"] == UNITS and full.report["items"] == check["accepted"] > 0
    assert full.kinds.count("description") == UNITS  # free text for the T2I model
    assert "scene" not in full.kinds  # no scene programs in text mode
    units = list(iter_artifacts(full.store, SETTINGS.benchmark, "units"))
    redrawn = [u for u in units if sum("image" in h for h in u["history"]) == 2]
    assert redrawn, "the picky examiner rejected no first render"
    for unit in redrawn:
        first, second = (h for h in unit["history"] if "image" in h)
        assert first["decision"] == "reject" and first["score"] == 0.0
        # The redraw asked the deterministic diffusion model with another seed: a new picture.
        assert first["image"] != second["image"]
    for item in iter_items(full.store, SETTINGS.benchmark):
        png = full.store.read_image(item.images[0])
        assert hashlib.sha256(png).hexdigest() == item.images[0]
        assert item.caption and item.meta["check_method"] == "examiner VQA"
        assert item.meta["key_check"]["verdict"] == "not checkable"  # text mode: no program
        assert item.meta["capability"] == SETTINGS.capability


async def test_an_examinee_is_evaluated_on_the_generated_items(full: Full) -> None:
    examinee = ScriptedModel(spec="fake/always-a", default_text="A")
    summary = await run_examinee(full.store, SETTINGS.benchmark, ModelClient(examinee, full.store))
    items = list(iter_items(full.store, SETTINGS.benchmark))
    assert summary.total == len(items) and summary.failed == 0
    (row,) = accuracy_table(full.store, SETTINGS.benchmark, models=["fake/always-a"])
    assert row.answered == len(items)
    assert row.correct == sum(item.answer == "A" for item in items)


def test_an_interrupted_run_resumes_to_the_same_benchmark(
    full: Full, tiny_sd: Path, tmp_path: Path
) -> None:
    stop = full.kinds.index("checks") + 3  # some units finished, others in flight
    store = Store.open(str(tmp_path / "interrupted.db"))
    try:
        stuck = _examiner(block_after=stop)

        async def interrupt() -> None:
            slow = replace(SETTINGS, concurrency=2)
            task = asyncio.create_task(_generate(store, tiny_sd, stuck, slow))
            while stuck.blocked == 0:
                assert not task.done(), "the run ended before it reached the stop"
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupt())
        fresh = _examiner()
        report = asyncio.run(_generate(store, tiny_sd, fresh))
        assert stop + len(fresh.calls) == len(full.kinds)  # nothing paid twice
        assert _benchmark(store) == (full.items, full.images)
        assert report["self_check"] == full.report["self_check"]
    finally:
        store.close()
