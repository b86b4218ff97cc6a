"""Per-object silhouettes at low resolution, drawn from the renderer's own primitives.

Visibility and occlusion come from these masks: each object's full silhouette is drawn alone,
then objects are walked front to back and every pixel already covered by something nearer is
subtracted. The canvas is padded by half its size on every side, so a part that hangs off the
edge still counts towards the object's area (and so towards how much of it is hidden).

Each object is drawn once, on the whole padded canvas (so every primitive is rasterised at the
same coordinates whatever else is in the scene), with its own-colour parts and its other
parts in two different inks: the silhouette is every inked pixel, the painted part the pixels
in the first ink. Only the silhouette's bounding box is kept, and every later step (hiding,
areas, overlaps) works inside those boxes: an object covers a few percent of the padded
canvas, and whole-canvas arrays per object were most of the cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from lvlmbench.scenes.geometry import Part, draw_order, place_parts
from lvlmbench.scenes.schema import SceneProgram

__all__ = ["MASK_RESOLUTION", "MaskSet", "object_masks"]

MASK_RESOLUTION = 192
"""Longest side of the canvas, in mask pixels."""

Mask = NDArray[np.bool_]
Box = tuple[int, int, int, int]
"""(row0, row1, col0, col1), end-exclusive, on the padded canvas."""

_PAINTED, _OTHER = 1, 2
"""Inks of an object's own-colour parts and of its other parts (windows, wheels, faces)."""


@dataclass(frozen=True)
class MaskSet:
    """Full and visible silhouettes of every object, indexed like ``program.objects``, each
    kept inside the bounding box of the object's full silhouette."""

    width: int
    height: int
    boxes: list[Box]
    """Bounding box of each full silhouette on the padded canvas."""
    full_in_box: list[Mask]
    """Whole silhouette inside its box, including what is hidden and what hangs off the
    canvas."""
    visible_in_box: list[Mask]
    """Pixels of the box where this object is the front-most thing and on the canvas."""
    areas: list[int] = field(default_factory=list)
    """Pixels in each full silhouette."""
    _overlaps: dict[tuple[int, int], int] = field(default_factory=dict, compare=False)

    @property
    def padding(self) -> tuple[int, int]:
        """(x, y) padding on each side of the canvas, in mask pixels."""
        return self.width // 2, self.height // 2

    def area(self, index: int) -> int:
        """Pixels in the full silhouette."""
        return self.areas[index]

    def visible_pixels(self, index: int) -> int:
        """Pixels where this object is the front-most thing and on the canvas."""
        return int(np.count_nonzero(self.visible_in_box[index]))

    def visible_in_image(self, index: int) -> tuple[tuple[slice, slice], Mask]:
        """(rows, columns) of the object's box on the unpadded canvas, clipped to it, and its
        visible pixels there: ``image[rows, cols][mask]`` lists them in row-major order."""
        pad_x, pad_y = self.padding
        r0, r1, c0, c1 = self.boxes[index]
        top, bottom = max(r0, pad_y), min(r1, pad_y + self.height)
        left, right = max(c0, pad_x), min(c1, pad_x + self.width)
        if top >= bottom or left >= right:
            return (slice(0, 0), slice(0, 0)), np.zeros((0, 0), dtype=bool)
        mask = self.visible_in_box[index][top - r0 : bottom - r0, left - c0 : right - c0]
        return (slice(top - pad_y, bottom - pad_y), slice(left - pad_x, right - pad_x)), mask

    def overlap(self, a: int, b: int) -> int:
        """Pixels where the full silhouettes of ``a`` and ``b`` overlap (memoised; only the
        intersection of their bounding boxes is compared)."""
        key = (a, b) if a < b else (b, a)
        if key not in self._overlaps:
            (a0, _, a2, _), (b0, _, b2, _) = self.boxes[a], self.boxes[b]
            r0, r1, c0, c1 = _intersection(self.boxes[a], self.boxes[b])
            shared = 0
            if r0 < r1 and c0 < c1:
                window = (
                    self.full_in_box[a][r0 - a0 : r1 - a0, c0 - a2 : c1 - a2]
                    & self.full_in_box[b][r0 - b0 : r1 - b0, c0 - b2 : c1 - b2]
                )
                shared = int(np.count_nonzero(window))
            self._overlaps[key] = shared
        return self._overlaps[key]

    @cached_property
    def full(self) -> list[Mask]:
        """Whole silhouettes on the padded canvas (built on first use)."""
        return [self._on_canvas(i, self.full_in_box) for i in range(len(self.boxes))]

    @cached_property
    def visible(self) -> list[Mask]:
        """Visible pixels on the padded canvas (built on first use)."""
        return [self._on_canvas(i, self.visible_in_box) for i in range(len(self.boxes))]

    def _on_canvas(self, index: int, crops: list[Mask]) -> Mask:
        padded = np.zeros((2 * self.height, 2 * self.width), dtype=bool)
        r0, r1, c0, c1 = self.boxes[index]
        padded[r0:r1, c0:c1] = crops[index]
        return padded


def _intersection(a: Box, b: Box) -> Box:
    return max(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), min(a[3], b[3])


def _inked(
    parts: list[Part], width: int, height: int, body_only: bool
) -> tuple[Box, NDArray[np.uint8]]:
    """The object's bounding box and, inside it, each pixel's ink (0 where nothing is drawn;
    a later part paints over an earlier one, as in the renderer)."""
    pad_x, pad_y = width // 2, height // 2
    image = Image.new("L", (width + 2 * pad_x, height + 2 * pad_y), 0)
    draw = ImageDraw.Draw(image)
    for part in parts:
        _draw(draw, part, pad_x, pad_y, _PAINTED if (part.is_body or not body_only) else _OTHER)
    found = image.getbbox()
    if found is None:
        return (0, 0, 0, 0), np.zeros((0, 0), dtype=np.uint8)
    left, top, right, bottom = found
    return (top, bottom, left, right), np.asarray(image.crop(found), dtype=np.uint8)


def _draw(draw: ImageDraw.ImageDraw, part: Part, dx: float, dy: float, fill: int) -> None:
    if part.kind == "ellipse":
        (cx, cy), (rx, ry) = part.points
        draw.ellipse((cx - rx + dx, cy - ry + dy, cx + rx + dx, cy + ry + dy), fill=fill)
        return
    points = [(x + dx, y + dy) for x, y in part.points]
    if part.kind == "polygon":
        draw.polygon(points, fill=fill)
    else:
        draw.line(points, fill=fill, width=max(1, round(part.width)))


def object_masks(
    program: SceneProgram,
    resolution: int = MASK_RESOLUTION,
    *,
    body_only: bool = False,
    size: tuple[int, int] | None = None,
) -> MaskSet:
    """Masks for every object. ``size`` (width, height) overrides ``resolution``; with
    ``body_only`` the visible masks keep only the pixels painted in the object's own colour
    (no windows, wheels or faces), which is what a colour check wants."""
    if size is None:
        scale = resolution / max(program.canvas.width, program.canvas.height)
        size = (
            max(8, round(program.canvas.width * scale)),
            max(8, round(program.canvas.height * scale)),
        )
    width, height = size
    inked = [
        _inked(place_parts(obj, width, height), width, height, body_only) for obj in program.objects
    ]
    boxes = [box for box, _ in inked]
    full = [ink > 0 for _, ink in inked]
    pad_x, pad_y = width // 2, height // 2
    # Off the canvas counts as covered: nothing there is visible.
    covered = np.ones((height + 2 * pad_y, width + 2 * pad_x), dtype=bool)
    covered[pad_y : pad_y + height, pad_x : pad_x + width] = False
    visible: list[Mask] = [np.zeros((0, 0), dtype=bool)] * len(inked)
    for index in reversed(draw_order(program)):  # front to back
        (r0, r1, c0, c1), ink = inked[index]
        window = covered[r0:r1, c0:c1]
        visible[index] = (ink == _PAINTED) & ~window
        window |= full[index]
    return MaskSet(
        width=width,
        height=height,
        boxes=boxes,
        full_in_box=full,
        visible_in_box=visible,
        areas=[int(np.count_nonzero(m)) for m in full],
    )
