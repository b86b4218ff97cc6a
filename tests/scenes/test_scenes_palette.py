"""Lookups the colour checks rely on equal the slow ways they replace: nearest paint (ties
included) and paint under light and fog."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from lvlmbench.scenes import validate_scene
from lvlmbench.scenes.effects import _lut, apply_fog, lit_appearances
from lvlmbench.scenes.palette import COLORS, nearest_color, nearest_rows, pattern_color


def test_nearest_rows_is_the_brute_force_argmin_ties_included() -> None:
    paints = np.array([*COLORS.values(), COLORS["red"]], dtype=np.int32)  # a tie
    pixels = np.random.default_rng(0).integers(0, 256, size=(40, 30, 3)).astype(np.int32)
    pixels[0, :3] = [COLORS["red"], (128, 128, 128), (0, 0, 0)]
    brute = ((pixels[:, :, None, :] - paints[None, None, :, :]) ** 2).sum(axis=3).argmin(axis=2)
    found = nearest_rows(pixels, paints)
    assert found.shape == (40, 30) and (found == brute).all()
    assert found[0, 0] == list(COLORS).index("red")  # the first of two equal rows
    names = list(COLORS)
    assert names[int(nearest_rows(pixels[5, 5], paints[:-1]))] == nearest_color(
        tuple(int(v) for v in pixels[5, 5])
    )


@pytest.mark.parametrize("light", ["day", "dusk", "night", "spotlight"])
@pytest.mark.parametrize("fog", [0.0, 0.7])
def test_lit_appearances_are_what_the_renderer_paints(light: str, fog: float) -> None:
    """The colour check's references come from a table lookup: each must be the pixel that
    lighting (outside the spotlight's disc, or inside it: unlit) and fog make of the paint."""
    weather = {"kind": "fog", "intensity": fog} if fog else {"kind": "clear"}
    program = validate_scene({"lighting": {"kind": light}, "weather": weather, "objects": []})
    for rgb in [COLORS["red"], pattern_color("blue"), (7, 130, 251)]:
        swatch = Image.new("RGB", (1, 1), rgb)
        painted = (
            [apply_fog(swatch, program).getpixel((0, 0))] if light in ("day", "spotlight") else []
        )
        if light != "day":
            dark = swatch.point(_lut(light))
            painted.append(apply_fog(dark, program).getpixel((0, 0)))
        assert lit_appearances(rgb, program) == painted
