"""Facts from hand-written programs: relations, occlusion, containment, scene-level facts."""

from __future__ import annotations

import pytest

from lvlmbench.scenes import SceneProgram, compute_facts, validate_scene


def _obj(
    category: str, color: str, x: float, y: float, size: float = 0.2, **kw: object
) -> dict[str, object]:
    return {"category": category, "color": color, "position": {"x": x, "y": y}, "size": size, **kw}


def _program(*objects: dict[str, object], **scene: object) -> SceneProgram:
    return validate_scene({"objects": list(objects), **scene})


def test_left_right_above_below() -> None:
    facts = compute_facts(
        _program(
            _obj("circle", "red", 0.2, 0.5),
            _obj("square", "blue", 0.8, 0.5),
            _obj("star", "green", 0.2, 0.15, 0.15),
        )
    )
    assert facts.direction(0, 1) == "left of" and facts.direction(1, 0) == "right of"
    assert facts.direction(2, 0) == "above" and facts.direction(0, 2) == "below"
    assert facts.direction(2, 1) is None  # diagonal: no single direction word fits
    assert facts.counts_by_category == {"circle": 1, "square": 1, "star": 1}


def test_occlusion_visible_fraction_and_front_back() -> None:
    facts = compute_facts(
        _program(
            _obj("square", "blue", 0.4, 0.5, 0.3), _obj("circle", "red", 0.55, 0.5, 0.3, depth=1)
        )
    )
    square, circle = facts.objects
    assert circle.visible == pytest.approx(1.0, abs=0.01)
    assert 0.4 < square.visible < 0.9
    assert square.occluded_by == [1]
    assert facts.holds(1, "in front of", 0) and facts.holds(0, "behind", 1)


def test_depth_beats_list_order() -> None:
    facts = compute_facts(
        _program(
            _obj("square", "blue", 0.4, 0.5, 0.3, depth=5), _obj("circle", "red", 0.55, 0.5, 0.3)
        )
    )
    assert facts.holds(0, "in front of", 1)
    assert facts.objects[1].occluded_by == [0]


def test_hidden_objects_are_not_askable() -> None:
    program = _program(
        _obj("square", "blue", 0.5, 0.5, 0.2), _obj("circle", "red", 0.5, 0.5, 0.35, depth=1)
    )
    facts = compute_facts(program)
    assert facts.objects[0].visible < 0.05 and not facts.objects[0].askable
    assert compute_facts(program, threshold=0.0).objects[0].askable


def test_inside_and_nearest() -> None:
    facts = compute_facts(
        _program(
            _obj("circle", "blue", 0.3, 0.5, 0.4),
            _obj("star", "yellow", 0.3, 0.5, 0.1, depth=1),
            _obj("square", "red", 0.85, 0.15, 0.1),
            _obj("heart", "pink", 0.85, 0.85, 0.1),
        )
    )
    assert facts.holds(1, "inside", 0)
    assert not facts.holds(0, "inside", 1)
    assert facts.related(2, "nearest") == []  # the circle and star are about as near: not clear
    assert facts.holds(2, "apart from", 3)


def test_off_canvas_part_counts_as_hidden() -> None:
    facts = compute_facts(_program(_obj("square", "blue", 0.0, 0.5, 0.3)))
    assert facts.objects[0].visible == pytest.approx(0.5, abs=0.05)


def test_spotlight_leaves_far_objects_unlit() -> None:
    program = _program(
        _obj("circle", "red", 0.5, 0.5, 0.15),
        _obj("square", "blue", 0.1, 0.1, 0.1),
        lighting={"kind": "spotlight", "spot_x": 0.5, "spot_y": 0.5, "spot_radius": 0.3},
    )
    facts = compute_facts(program)
    assert facts.objects[0].lit and not facts.objects[1].lit
    assert not facts.objects[1].askable
    assert facts.scene["light_source"] == "a spotlight"


def test_scene_level_facts() -> None:
    street = _program(
        _obj("house", "red", 0.3, 0.7, 0.3),
        _obj("car", "blue", 0.7, 0.8, 0.25),
        _obj("sun", "yellow", 0.8, 0.15, 0.12),
        background={"kind": "sky_ground", "color": "blue", "color2": "gray"},
        weather={"kind": "rain"},
    )
    facts = compute_facts(street)
    assert facts.scene["scene_type"] == "street"
    assert facts.scene["mood"] == "gloomy" and facts.scene["time_of_day"] == "daytime"
    assert facts.scene["ground"] == "a road"
    night = compute_facts(
        street.model_copy(update={"lighting": street.lighting.model_copy(update={"kind": "night"})})
    )
    assert night.scene["time_of_day"] == "night-time" and night.scene["brightness"] == "dark"


def test_arrow_and_triangle_pointing() -> None:
    facts = compute_facts(
        _program(
            _obj("arrow", "red", 0.3, 0.3, orientation=90),
            _obj("triangle", "blue", 0.7, 0.7, orientation=180),
            _obj("car", "green", 0.3, 0.8, orientation=180),
        )
    )
    assert facts.objects[0].pointing == "up"
    assert facts.objects[1].pointing == "down"
    assert facts.objects[2].facing == "left"


def test_support_relations() -> None:
    table = _obj("table", "brown", 0.5, 0.75, 0.4)
    facts = compute_facts(_program(table))
    top = facts.objects[0].box[1]
    probe = compute_facts(_program(_obj("cup", "red", 0.5, 0.5, 0.1))).objects[0].box
    cup = _obj("cup", "red", 0.5, top - (probe[3] - 0.5) + 0.004, 0.1, depth=1)
    ball = _obj("ball", "blue", 0.5, facts.objects[0].box[3] - 0.04, 0.08, depth=-1)
    facts = compute_facts(_program(table, cup, ball))
    assert facts.holds(1, "on", 0) and not facts.holds(2, "on", 0)
    assert facts.holds(2, "under", 0)
