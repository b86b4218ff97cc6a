"""Stage 2 (guidelines), the scene-program hook and the shared StageResult."""

import json
from typing import Literal

from fakes import ScriptedModel
from pydantic import BaseModel, Field

from lvlmbench.autobench._results import StageResult
from lvlmbench.autobench.guidelines import write_guideline
from lvlmbench.autobench.scene_mode import write_scene_program
from lvlmbench.models import ModelClient
from lvlmbench.types import ModelOutput, Status


class Thing(BaseModel):
    kind: Literal["cube", "ball"]
    x: float = Field(ge=0, le=1)


class MiniScene(BaseModel):
    """A stand-in for lvlmbench.scenes.SceneProgram."""

    background: str
    objects: list[Thing] = Field(min_length=1)


async def test_guideline_happy_path():
    text = "Elements in the background and foreground must be clearly distinguishable."
    model = ScriptedModel([ModelOutput(text=json.dumps({"text": f"  {text}\n"}))])
    result = await write_guideline(
        ModelClient(model, None), "spatial", "Depth", "Background versus foreground"
    )
    assert result.ok and result.value is not None
    assert result.value.text == text
    assert result.calls == 1
    prompt = model.calls[0][-1].text()
    assert "Background versus foreground" in prompt and "spatial" in prompt and "Depth" in prompt


async def test_guideline_unparseable_is_a_value_without_a_guess():
    model = ScriptedModel([ModelOutput(text=json.dumps({"text": "   "}))] * 3)
    result = await write_guideline(ModelClient(model, None), "c", "g", "f")
    assert result.status is Status.UNPARSEABLE and result.value is None and not result.ok
    assert result.calls == 3


async def test_scene_program_validates_against_the_given_schema_with_reask():
    bad = {"background": "sky", "objects": [{"kind": "pyramid", "x": 0.5}]}
    good = {"background": "sky", "objects": [{"kind": "cube", "x": 0.2}]}
    model = ScriptedModel([ModelOutput(text=json.dumps(bad)), ModelOutput(text=json.dumps(good))])
    result = await write_scene_program(ModelClient(model, None), "A cube on the left.", MiniScene)

    assert result.ok and isinstance(result.value, MiniScene)
    assert result.value.objects[0].kind == "cube"
    assert result.calls == 2
    prompt = model.calls[0][-1].text()
    assert "A cube on the left." in prompt and '"pyramid"' not in prompt
    assert json.dumps(MiniScene.model_json_schema(), separators=(",", ":")) in prompt
    assert "objects.0.kind" in model.calls[1][-1].text()


async def test_scene_program_failure_is_recorded():
    model = ScriptedModel(default_text="{}")
    result = await write_scene_program(ModelClient(model, None), "d", MiniScene, max_reasks=0)
    assert result.status is Status.UNPARSEABLE and result.value is None
    assert result.calls == 1


def test_stage_result_failure_has_no_value():
    failed: StageResult[int] = StageResult.failure(Status.ERROR, "down", 2)
    assert not failed.ok and failed.value is None and failed.reason == "down"
    assert StageResult(3, Status.OK, None, 1).ok
