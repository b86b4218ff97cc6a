"""``facts.scene`` is a typed, frozen record: its names, its stored form, its read paths agree."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import ValidationError

from lvlmbench.scenes import ProceduralExaminer, compute_facts, validate_scene
from lvlmbench.scenes.semantics import SceneFactName, SceneLevelFacts

_NIGHT_STREET = {
    "objects": [
        {"category": "house", "color": "red", "position": {"x": 0.3, "y": 0.7}, "size": 0.3},
        {"category": "car", "color": "blue", "position": {"x": 0.7, "y": 0.8}, "size": 0.25},
    ],
    "background": {"kind": "sky_ground", "color": "blue", "color2": "gray"},
    "lighting": {"kind": "night"},
}


def test_every_fact_name_is_a_field_and_back() -> None:
    # A name the Literal allows but the record lacks would type-check and fail at run time.
    assert list(get_args(SceneFactName)) == list(SceneLevelFacts.model_fields)


def test_name_subscript_get_and_attribute_agree() -> None:
    scene = compute_facts(validate_scene(_NIGHT_STREET)).scene
    assert scene.time_of_day == scene["time_of_day"] == scene.get("time_of_day") == "night-time"
    assert scene.lighting == "night" and scene.scene_type == "street"
    unsettled = [name for name in get_args(SceneFactName) if scene[name] is None]
    assert unsettled, "a night street leaves some fact open (e.g. the season)"
    assert all(scene.get(name, "fallback") == "fallback" for name in unsettled)
    with pytest.raises(ValidationError):
        scene.mood = "cheerful"  # type: ignore[misc]  # frozen: facts are computed, not set


def test_the_stored_facts_carry_every_scene_fact_by_name() -> None:
    sample = ProceduralExaminer().sample(
        "spatial understanding", "relative position", "left and right", "easy", 7
    )
    stored = sample.facts["scene"]
    assert list(stored) == list(SceneLevelFacts.model_fields)
    assert SceneLevelFacts.model_validate(stored).model_dump() == stored
