"""Object masks kept in bounding boxes equal masks drawn object by object on the whole canvas."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from lvlmbench.scenes import ProceduralExaminer, SceneProgram, object_masks, validate_scene
from lvlmbench.scenes.geometry import draw_order, place_parts

EXAMINER = ProceduralExaminer()


def _whole_canvas(program: SceneProgram, side: int, body_only: bool) -> tuple[list, list]:
    """The straightforward reference: every object alone on the padded canvas, then walked
    front to back, subtracting what nearer objects cover."""
    pad = side // 2
    full, painted = [], []
    for obj in program.objects:
        layers = []
        for only_body in (False, body_only):
            image = Image.new("L", (2 * side, 2 * side), 0)
            draw = ImageDraw.Draw(image)
            for part in place_parts(obj, side, side):
                fill = 255 if (part.is_body or not only_body) else 0
                if part.kind == "ellipse":
                    (cx, cy), (rx, ry) = part.points
                    box = (cx - rx + pad, cy - ry + pad, cx + rx + pad, cy + ry + pad)
                    draw.ellipse(box, fill=fill)
                elif part.kind == "polygon":
                    draw.polygon([(x + pad, y + pad) for x, y in part.points], fill=fill)
                else:
                    points = [(x + pad, y + pad) for x, y in part.points]
                    draw.line(points, fill=fill, width=max(1, round(part.width)))
            layers.append(np.asarray(image) > 127)
        full.append(layers[0])
        painted.append(layers[1])
    covered = np.ones((2 * side, 2 * side), dtype=bool)
    covered[pad : pad + side, pad : pad + side] = False
    visible = [np.zeros(1)] * len(full)
    for index in reversed(draw_order(program)):
        visible[index] = painted[index] & ~covered
        covered = covered | full[index]
    return full, visible


@pytest.mark.parametrize("body_only", [False, True])
@pytest.mark.parametrize("seed", [3, 11])
def test_boxed_masks_equal_whole_canvas_masks(seed: int, body_only: bool) -> None:
    sample = EXAMINER.sample(
        "spatial understanding", "depth and occlusion", "identifying hidden objects", "hard", seed
    )
    program, side = sample.program, 96
    masks = object_masks(program, size=(side, side), body_only=body_only)
    full, visible = _whole_canvas(program, side, body_only)
    assert len(program.objects) >= 3
    for i in range(len(program.objects)):
        assert masks.area(i) == int(full[i].sum()) > 0
        assert masks.visible_pixels(i) == int(visible[i].sum())
        assert (masks.full[i] == full[i]).all() and (masks.visible[i] == visible[i]).all()
        (rows, cols), inside = masks.visible_in_image(i)
        on_canvas = np.zeros((side, side), dtype=bool)
        on_canvas[rows, cols] = inside
        assert (on_canvas == visible[i][side // 2 : side // 2 + side, side // 2 : -side // 2]).all()
        for j in range(len(program.objects)):
            assert masks.overlap(i, j) == int((full[i] & full[j]).sum())


def test_an_object_half_off_the_canvas_keeps_its_area_but_shows_half() -> None:
    program = validate_scene(
        {
            "objects": [
                {"category": "circle", "color": "red", "position": {"x": 0.3, "y": 0.5}},
                {
                    "category": "square",
                    "color": "blue",
                    "position": {"x": 1.0, "y": 0.5},
                    "size": 0.3,
                },
            ]
        }
    )
    masks = object_masks(program, size=(64, 64))
    assert 0.4 * masks.area(1) < masks.visible_pixels(1) < 0.6 * masks.area(1)
    (rows, cols), inside = masks.visible_in_image(1)
    assert cols.stop == 64 and rows.start > 0 and rows.stop < 64  # clipped at the right edge
    assert int(inside.sum()) == masks.visible_pixels(1)
    assert masks.visible_pixels(0) == masks.area(0)  # alone and fully on the canvas
