"""Scene program schema: validation messages with JSON paths, JSON schema export."""

from __future__ import annotations

import json

import pytest

from lvlmbench.scenes import SceneError, SceneProgram, validate_scene


def _scene(**objects_override: object) -> dict[str, object]:
    obj: dict[str, object] = {
        "category": "circle",
        "color": "red",
        "position": {"x": 0.5, "y": 0.5},
    }
    obj.update(objects_override)
    return {
        "objects": [{"category": "square", "color": "blue", "position": {"x": 0.2, "y": 0.2}}, obj]
    }


def test_minimal_program_validates_with_defaults() -> None:
    program = validate_scene(
        {"objects": [{"category": "star", "color": "yellow", "position": {"x": 0.3, "y": 0.7}}]}
    )
    assert program.canvas.width == 512 and program.lighting.kind == "day"
    assert program.objects[0].texture == "solid" and program.objects[0].depth == 0


def test_unknown_category_names_path_and_allowed_values() -> None:
    with pytest.raises(SceneError) as err:
        validate_scene(_scene(category="dragon"))
    message = str(err.value)
    assert "objects[1].category: 'dragon' is not one of circle, square" in message
    assert "sign" in message


def test_off_canvas_position_names_axis() -> None:
    with pytest.raises(SceneError) as err:
        validate_scene(_scene(position={"x": 1.3, "y": 0.5}))
    assert "objects[1].position: off canvas, x must be in [0, 1]" in str(err.value)
    with pytest.raises(SceneError, match=r"objects\[1\]\.position: off canvas, y must be"):
        validate_scene(_scene(position={"x": 0.3, "y": -0.1}))


def test_unknown_colour_lists_palette() -> None:
    with pytest.raises(SceneError) as err:
        validate_scene(_scene(color="blurple"))
    assert "objects[1].color: 'blurple' is not a known colour (red, orange" in str(err.value)


def test_text_only_on_signs_and_books() -> None:
    with pytest.raises(SceneError, match=r"objects\[1\]\.text: only sign and book carry text"):
        validate_scene(_scene(text="HELLO"))
    assert validate_scene(_scene(category="sign", text="STOP")).objects[1].text == "STOP"


def test_range_missing_and_extra_fields() -> None:
    with pytest.raises(SceneError, match=r"objects\[1\]\.size: 5 is out of range"):
        validate_scene(_scene(size=5))
    with pytest.raises(SceneError, match=r"objects\[0\]\.color: required field is missing"):
        validate_scene({"objects": [{"category": "circle", "position": {"x": 0.5, "y": 0.5}}]})
    with pytest.raises(SceneError, match=r"objects\[1\]\.glow: unknown field"):
        validate_scene(_scene(glow=True))
    with pytest.raises(SceneError, match=r"lighting\.kind: 'noon' is not one of day, dusk"):
        validate_scene({"lighting": {"kind": "noon"}})


def test_several_problems_are_all_reported() -> None:
    with pytest.raises(SceneError) as err:
        validate_scene(_scene(category="dragon", color="blurple"))
    assert len(err.value.problems) == 2
    assert isinstance(err.value, ValueError)


def test_not_an_object() -> None:
    with pytest.raises(SceneError, match="expected a JSON object"):
        validate_scene(["circle"])


def test_json_schema_is_small_and_closed() -> None:
    schema = SceneProgram.model_json_schema()
    json.dumps(schema)
    obj = schema["$defs"]["SceneObject"]
    assert obj["additionalProperties"] is False
    assert "dragon" not in obj["properties"]["category"]["enum"]
    assert "tree" in obj["properties"]["category"]["enum"]
    assert obj["properties"]["position"]["$ref"].endswith("/Position")
    assert set(schema["properties"]) == {
        "seed",
        "canvas",
        "background",
        "lighting",
        "weather",
        "season",
        "objects",
        "labels",
    }


def test_round_trip_through_json() -> None:
    program = validate_scene(_scene(category="sign", text="EXIT", texture="striped"))
    again = validate_scene(json.loads(program.model_dump_json()))
    assert again == program
    assert validate_scene(program) is program
