"""The descriptions artifact is typed per back-end (a model examiner's description or failed
round, the procedural examiner's scene seed), and the shapes stores already hold read back as
exactly those kinds and are written back byte for byte."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lvlmbench.autobench._drafts import (
    AspectPlan,
    Description,
    FailedDescription,
    SceneSeed,
    stored_descriptions,
)
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.autobench.stages import group_key, unit_key
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.store import Store, get_artifact, put_artifact

SETTINGS = GenerateSettings(
    capability="spatial understanding", n=1, m=1, per_aspect=2, levels=("easy",), seed=4
)

# The three shapes as stores hold them (written by every version since the pipeline began).
WRITTEN = {
    "text": "A red cube left of a blue ball on a wooden table.",
    "topic": "table",
    "keywords": ["cube", "ball", "wood"],
    "round": 2,
    "banned_words_shown": ["kitchen"],
    "violations": [],
}
FAILED = {"text": None, "failure": "unparseable: no JSON object in the reply"}
SEED = {"index": 1, "seed": 912_334}


def test_each_stored_shape_reads_back_as_its_kind_and_dumps_the_same_bytes() -> None:
    read = stored_descriptions([WRITTEN, FAILED, SEED])
    assert [type(d) for d in read] == [Description, FailedDescription, SceneSeed]
    assert read[0].text.startswith("A red cube") and read[0].round == 2
    assert read[1].failure == FAILED["failure"]
    assert (read[2].index, read[2].seed) == (1, 912_334)
    again = [d.model_dump(mode="json") for d in read]
    assert json.dumps(again) == json.dumps([WRITTEN, FAILED, SEED])


def test_a_shape_of_no_back_end_is_refused() -> None:
    with pytest.raises(ValueError, match="seed"):
        stored_descriptions([{"index": 0}])


def _generate(store: Store, settings: GenerateSettings) -> None:
    images = ImageClient(load_image_model("procedural"), store)

    async def run() -> None:
        try:
            await generate_benchmark(store, settings, ProceduralBackend(k_checks=1), images)
        finally:
            await images.aclose()

    asyncio.run(run())


def test_a_store_s_scene_seeds_are_read_not_drawn_again(tmp_path: Path) -> None:
    """A store whose descriptions were written before (here by hand, in the stored JSON shape)
    resumes from them: the units are drawn from the stored seeds, which stay as they were."""
    first = Store.open(str(tmp_path / "first.db"))
    try:
        _generate(first, SETTINGS)
        plan = AspectPlan.model_validate(get_artifact(first, SETTINGS.benchmark, "plan", "plan"))
    finally:
        first.close()
    aspect = plan.aspects[0]
    key = group_key(aspect, "easy")
    stored = {"descriptions": [{"index": 0, "seed": 7}, {"index": 1, "seed": 8}]}
    later = Store.open(str(tmp_path / "later.db"))
    try:
        put_artifact(later, SETTINGS.benchmark, "plan", "plan", plan.model_dump(mode="json"))
        put_artifact(later, SETTINGS.benchmark, "descriptions", key, stored)
        _generate(later, SETTINGS)
        assert get_artifact(later, SETTINGS.benchmark, "descriptions", key) == stored
        for index in (0, 1):
            unit = get_artifact(later, SETTINGS.benchmark, "units", unit_key(aspect, "easy", index))
            assert unit is not None
            assert unit["meta"]["description_meta"] == {"index": index, "seed": 7 + index}
    finally:
        later.close()
