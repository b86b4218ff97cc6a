"""The procedural self-check: colours are judged under the scene's own light, and a wrong
colour is still caught."""

from __future__ import annotations

from typing import Any

import pytest

from lvlmbench.autobench.procedural import colour_checks
from lvlmbench.scenes import render_png, validate_scene


def _program(colour: str, lighting: str, weather: str = "clear") -> Any:
    return validate_scene(
        {
            "background": {"kind": "plain", "color": "white"},
            "lighting": {"kind": lighting, "spot_x": 0.25, "spot_y": 0.5},
            "weather": {"kind": weather, "intensity": 0.8},
            "objects": [
                {"category": "ball", "color": colour, "position": {"x": 0.25, "y": 0.5}},
                {"category": "square", "color": "green", "position": {"x": 0.75, "y": 0.5}},
            ],
        }
    )


CHECKED = [
    {"index": 0, "color": "red", "category": "ball"},
    {"index": 1, "color": "green", "category": "square"},
]


@pytest.mark.parametrize(
    ("lighting", "weather"),
    [
        ("day", "clear"),
        ("dusk", "clear"),
        ("night", "clear"),
        ("night", "fog"),
        ("spotlight", "clear"),
        ("day", "fog"),
    ],
)
def test_true_colours_pass_under_any_light(lighting: str, weather: str) -> None:
    program = _program("red", lighting, weather)
    checks = colour_checks(program, render_png(program), CHECKED, k=5)
    assert [c.correct for c in checks] == [True, True], [c.answered for c in checks]


@pytest.mark.parametrize("lighting", ["day", "night"])
def test_a_misrendered_colour_is_caught(lighting: str) -> None:
    described = _program("red", lighting)
    drawn = _program("blue", lighting)  # the image got the ball's colour wrong
    checks = colour_checks(described, render_png(drawn), CHECKED, k=5)
    assert [c.correct for c in checks] == [False, True]
    assert checks[0].answered == "blue" and checks[0].element == "the red ball"
