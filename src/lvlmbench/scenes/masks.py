"""Per-object silhouettes at low resolution, drawn from the renderer's own primitives.

Visibility and occlusion come from these masks: each object's full silhouette is drawn alone,
then objects are walked front to back and every pixel already covered by something nearer is
subtracted. The canvas is padded by half its size on every side, so a part that hangs off the
edge still counts towards the object's area (and so towards how much of it is hidden).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from lvlmbench.scenes.geometry import Part, draw_order, place_parts
from lvlmbench.scenes.schema import SceneProgram

__all__ = ["MASK_RESOLUTION", "MaskSet", "object_masks"]

MASK_RESOLUTION = 192
"""Longest side of the canvas, in mask pixels."""

Mask = NDArray[np.bool_]


@dataclass(frozen=True)
class MaskSet:
    """Full and visible silhouettes of every object, indexed like ``program.objects``."""

    full: list[Mask]
    """Whole silhouette, including what is hidden and what hangs off the canvas."""
    visible: list[Mask]
    """Pixels where this object is the front-most thing and on the canvas."""
    width: int
    height: int
    areas: list[int] = field(default_factory=list)
    """Pixels in each full silhouette."""
    boxes: list[tuple[int, int, int, int]] = field(default_factory=list)
    """Bounding box (row0, row1, col0, col1), end-exclusive, of each full silhouette."""
    _overlaps: dict[tuple[int, int], int] = field(default_factory=dict, compare=False)

    def area(self, index: int) -> int:
        """Pixels in the full silhouette."""
        return self.areas[index]

    def overlap(self, a: int, b: int) -> int:
        """Pixels where the full silhouettes of ``a`` and ``b`` overlap (memoised; only the
        intersection of their bounding boxes is compared)."""
        key = (a, b) if a < b else (b, a)
        if key not in self._overlaps:
            r0, r1 = (
                max(self.boxes[a][0], self.boxes[b][0]),
                min(self.boxes[a][1], self.boxes[b][1]),
            )
            c0, c1 = (
                max(self.boxes[a][2], self.boxes[b][2]),
                min(self.boxes[a][3], self.boxes[b][3]),
            )
            shared = 0
            if r0 < r1 and c0 < c1:
                window = self.full[a][r0:r1, c0:c1] & self.full[b][r0:r1, c0:c1]
                shared = int(np.count_nonzero(window))
            self._overlaps[key] = shared
        return self._overlaps[key]


def _bbox(mask: Mask) -> tuple[int, int, int, int]:
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if rows.size == 0:
        return 0, 0, 0, 0
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def _mask_of(parts: list[Part], width: int, height: int, body_only: bool) -> Mask:
    pad_x, pad_y = width // 2, height // 2
    image = Image.new("L", (width + 2 * pad_x, height + 2 * pad_y), 0)
    draw = ImageDraw.Draw(image)
    for part in parts:
        fill = 255 if (part.is_body or not body_only) else 0
        _draw(draw, part, pad_x, pad_y, fill)
    return np.asarray(image, dtype=np.uint8) > 127


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
    # Each object's parts are placed once: the painted masks are drawn from the same parts.
    parts = [place_parts(obj, width, height) for obj in program.objects]
    full = [_mask_of(p, width, height, False) for p in parts]
    painted = [_mask_of(p, width, height, True) for p in parts] if body_only else full
    pad_x, pad_y = width // 2, height // 2
    on_canvas = np.zeros_like(full[0]) if full else np.zeros((1, 1), dtype=bool)
    on_canvas[pad_y : pad_y + height, pad_x : pad_x + width] = True
    covered = ~on_canvas
    visible: list[Mask] = [on_canvas] * len(full)
    for index in reversed(draw_order(program)):
        visible[index] = painted[index] & ~covered
        covered = covered | full[index]
    areas = [int(np.count_nonzero(m)) for m in full]
    return MaskSet(
        full=full,
        visible=visible,
        width=width,
        height=height,
        areas=areas,
        boxes=[_bbox(m) for m in full],
    )
