"""Object outlines as primitives, shared by the renderer and the fact masks.

Each category is built once in a unit frame (longest side 1, centred, y pointing down), then
placed: rotated (shapes and arrows) or mirrored (things facing left), scaled and moved. The
renderer and :mod:`lvlmbench.scenes.facts` draw the *same* primitives, which is what makes the
visibility facts agree with the picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Literal

from lvlmbench.scenes.palette import SHAPES
from lvlmbench.scenes.schema import SceneObject, SceneProgram

__all__ = [
    "ROTATING",
    "Part",
    "draw_order",
    "extent",
    "is_mirrored",
    "object_box",
    "place_parts",
    "unit_parts",
]

Point = tuple[float, float]
RGB = tuple[int, int, int]

ROTATING = (*SHAPES, "arrow")
"""Categories that turn with ``orientation``; every other category only faces left or right."""

TRUNK: RGB = (110, 72, 40)
WINDOW: RGB = (205, 228, 245)
TYRE: RGB = (40, 40, 45)
SKIN: RGB = (238, 196, 160)
TROUSERS: RGB = (60, 64, 90)
METAL: RGB = (110, 110, 118)
STEM: RGB = (36, 120, 46)
PAGES: RGB = (246, 241, 222)


@dataclass(frozen=True)
class Part:
    """One primitive. ``color`` None means the object's own colour (and texture)."""

    kind: Literal["polygon", "ellipse", "line"]
    points: tuple[Point, ...]
    """polygon: vertices; ellipse: (centre, (rx, ry)); line: the polyline."""
    color: RGB | None = None
    width: float = 0.0
    """Line width (lines only), in the same units as the points."""
    shade: float = 0.0
    """Darken the object's colour by this much (0: its own colour) when ``color`` is None."""

    @property
    def is_body(self) -> bool:
        """Whether this part shows the object's colour and texture."""
        return self.color is None and self.shade == 0.0


def _rect(
    x0: float, y0: float, x1: float, y1: float, *, color: RGB | None = None, shade: float = 0.0
) -> Part:
    return Part("polygon", ((x0, y0), (x1, y0), (x1, y1), (x0, y1)), color, shade=shade)


def _ell(
    cx: float, cy: float, rx: float, ry: float | None = None, *, color: RGB | None = None
) -> Part:
    return Part("ellipse", ((cx, cy), (rx, rx if ry is None else ry)), color)


def _regular(n: int, r: float, start: float = -90.0) -> Part:
    pts = tuple(
        (
            r * math.cos(math.radians(start + 360 * i / n)),
            r * math.sin(math.radians(start + 360 * i / n)),
        )
        for i in range(n)
    )
    return Part("polygon", pts)


def _star() -> Part:
    pts = []
    for i in range(10):
        r = 0.5 if i % 2 == 0 else 0.2
        a = math.radians(-90 + 36 * i)
        pts.append((r * math.cos(a), r * math.sin(a)))
    return Part("polygon", tuple(pts))


def _heart() -> Part:
    pts = []
    for i in range(48):
        t = 2 * math.pi * i / 48
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((x / 34, -y / 34))
    return Part("polygon", tuple(pts))


def _arc(
    cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 16
) -> list[Point]:
    return [
        (
            cx + rx * math.cos(math.radians(a0 + (a1 - a0) * i / n)),
            cy + ry * math.sin(math.radians(a0 + (a1 - a0) * i / n)),
        )
        for i in range(n + 1)
    ]


def _moon() -> list[Part]:
    outer = _arc(0, 0, 0.5, 0.5, 60, 300, 24)
    inner = [
        (0.25 - 0.32 * math.sin(math.pi * s / 16), -0.433 + 0.866 * s / 16) for s in range(1, 16)
    ]
    return [Part("polygon", tuple(outer + inner))]


def _things(category: str) -> list[Part]:
    """Unit geometry of the drawn things (before normalisation)."""
    if category == "tree":
        return [
            _rect(-0.07, 0.1, 0.07, 0.62, color=TRUNK),
            _ell(0, -0.12, 0.33),
            _ell(-0.2, 0.05, 0.2),
            _ell(0.2, 0.05, 0.2),
        ]
    if category == "house":
        return [
            _rect(-0.4, -0.05, 0.4, 0.5),
            Part("polygon", ((-0.5, -0.03), (0, -0.5), (0.5, -0.03)), shade=0.45),
            _rect(-0.09, 0.2, 0.09, 0.5, shade=0.6),
            _rect(-0.32, 0.07, -0.17, 0.22, color=WINDOW),
            _rect(0.17, 0.07, 0.32, 0.22, color=WINDOW),
        ]
    if category == "car":
        return [
            Part("polygon", ((-0.3, -0.05), (-0.2, -0.25), (0.14, -0.25), (0.28, -0.05))),
            Part("polygon", ((-0.5, -0.06), (0.42, -0.06), (0.5, 0.04), (0.5, 0.15), (-0.5, 0.15))),
            Part(
                "polygon",
                ((-0.24, -0.07), (-0.17, -0.21), (-0.05, -0.21), (-0.05, -0.07)),
                color=WINDOW,
            ),
            Part(
                "polygon", ((0.0, -0.07), (0.0, -0.21), (0.12, -0.21), (0.22, -0.07)), color=WINDOW
            ),
            _ell(-0.28, 0.15, 0.1, color=TYRE),
            _ell(0.28, 0.15, 0.1, color=TYRE),
            _ell(-0.28, 0.15, 0.04, color=METAL),
            _ell(0.28, 0.15, 0.04, color=METAL),
            _ell(0.46, 0.01, 0.03, color=(250, 235, 150)),
        ]
    if category == "person":
        return [
            _rect(-0.13, 0.12, -0.02, 0.5, color=TROUSERS),
            _rect(0.02, 0.12, 0.13, 0.5, color=TROUSERS),
            Part("polygon", ((-0.15, -0.24), (0.15, -0.24), (0.15, 0.15), (-0.15, 0.15))),
            Part("polygon", ((-0.15, -0.23), (-0.23, 0.08), (-0.17, 0.1), (-0.12, -0.1))),
            Part("polygon", ((0.15, -0.23), (0.23, 0.08), (0.17, 0.1), (0.12, -0.1))),
            _ell(0, -0.37, 0.12, 0.13, color=SKIN),
        ]
    return _round_things(category)


def _round_things(category: str) -> list[Part]:
    """Sun, moon, cloud, ball and cup."""
    if category == "sun":
        rays = [
            Part(
                "line",
                ((0.36 * math.cos(a), 0.36 * math.sin(a)), (0.5 * math.cos(a), 0.5 * math.sin(a))),
                width=0.05,
            )
            for a in (math.radians(45 * i) for i in range(8))
        ]
        return [*rays, _ell(0, 0, 0.3)]
    if category == "moon":
        return _moon()
    if category == "cloud":
        return [
            _ell(-0.27, 0.06, 0.22, 0.18),
            _ell(0.27, 0.06, 0.22, 0.18),
            _ell(0, -0.04, 0.3, 0.24),
            _rect(-0.27, 0.02, 0.27, 0.24),
        ]
    if category == "ball":
        return [
            _ell(0, 0, 0.5),
            Part("line", tuple(_arc(0, 0.55, 0.72, 0.55, 230, 310)), width=0.035, shade=0.45),
            Part("line", tuple(_arc(0.55, 0, 0.55, 0.72, 140, 220)), width=0.035, shade=0.45),
        ]
    if category == "cup":
        handle = _arc(0.3, -0.02, 0.16, 0.19, -80, 80, 12)
        return [
            Part("line", tuple(handle), width=0.08),
            Part("polygon", ((-0.32, -0.4), (0.32, -0.4), (0.25, 0.4), (-0.25, 0.4))),
        ]
    return _furniture(category)


def _furniture(category: str) -> list[Part]:
    if category == "book":
        # a closed book lying flat: cover, a block of pages, the back cover
        return [
            _rect(-0.5, 0.22, 0.5, 0.3, shade=0.35),
            _rect(-0.47, 0.08, 0.47, 0.23, color=PAGES),
            Part("line", ((-0.47, 0.13), (0.47, 0.13)), (205, 198, 180), width=0.012),
            Part("line", ((-0.47, 0.18), (0.47, 0.18)), (205, 198, 180), width=0.012),
            _rect(-0.5, -0.24, 0.5, 0.09),
        ]
    if category == "chair":
        return [
            _rect(-0.3, -0.5, -0.2, 0.05),
            _rect(-0.3, -0.02, 0.3, 0.08),
            _rect(-0.3, 0.08, -0.22, 0.5),
            _rect(0.22, 0.08, 0.3, 0.5),
        ]
    if category == "table":
        return [
            _rect(-0.5, -0.357, 0.5, -0.27),
            _rect(-0.44, -0.27, -0.36, 0.357),
            _rect(0.36, -0.27, 0.44, 0.357),
        ]
    if category == "lamp":
        return [
            _rect(-0.03, -0.15, 0.03, 0.43, color=METAL),
            _rect(-0.18, 0.42, 0.18, 0.5, color=METAL),
            Part("polygon", ((-0.19, -0.5), (0.19, -0.5), (0.3, -0.15), (-0.3, -0.15))),
        ]
    if category == "flower":
        petals = [
            _ell(0.13 * math.cos(a), -0.3 + 0.13 * math.sin(a), 0.1)
            for a in (math.radians(60 * i) for i in range(6))
        ]
        return [
            Part("line", ((0, -0.25), (0, 0.5)), color=STEM, width=0.05),
            _ell(0.09, 0.22, 0.1, 0.045, color=STEM),
            *petals,
            _ell(0, -0.3, 0.08, color=(250, 205, 40)),
        ]
    if category == "sign":
        return [_rect(-0.04, 0.0, 0.04, 0.5, color=METAL), _rect(-0.4, -0.5, 0.4, 0.05)]
    raise ValueError(f"no geometry for category {category!r}")


def _raw(category: str) -> list[Part]:
    shapes: dict[str, list[Part]] = {
        "circle": [_ell(0, 0, 0.5)],
        "square": [_rect(-0.5, -0.5, 0.5, 0.5)],
        "triangle": [Part("polygon", ((0, -0.433), (0.5, 0.433), (-0.5, 0.433)))],
        "star": [_star()],
        "pentagon": [_regular(5, 0.5)],
        "hexagon": [_regular(6, 0.5, 0.0)],
        "diamond": [Part("polygon", ((0, -0.5), (0.36, 0), (0, 0.5), (-0.36, 0)))],
        "heart": [_heart()],
        "arrow": [
            Part(
                "polygon",
                (
                    (-0.5, -0.1),
                    (0.1, -0.1),
                    (0.1, -0.3),
                    (0.5, 0),
                    (0.1, 0.3),
                    (0.1, 0.1),
                    (-0.5, 0.1),
                ),
            )
        ],
    }
    return shapes[category] if category in shapes else _things(category)


def extent(part: Part) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of one part, line width included."""
    if part.kind == "ellipse":
        (cx, cy), (rx, ry) = part.points
        return cx - rx, cy - ry, cx + rx, cy + ry
    xs = [p[0] for p in part.points]
    ys = [p[1] for p in part.points]
    half = part.width / 2
    return min(xs) - half, min(ys) - half, max(xs) + half, max(ys) + half


@cache
def unit_parts(category: str) -> tuple[Part, ...]:
    """The category's parts centred on (0, 0) with the longest side of the whole equal to 1."""
    parts = _raw(category)
    boxes = [extent(p) for p in parts]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    cx, cy, scale = (x0 + x1) / 2, (y0 + y1) / 2, 1.0 / max(x1 - x0, y1 - y0)
    out = []
    for p in parts:
        if p.kind == "ellipse":
            (ex, ey), (rx, ry) = p.points
            pts: tuple[Point, ...] = (
                ((ex - cx) * scale, (ey - cy) * scale),
                (rx * scale, ry * scale),
            )
        else:
            pts = tuple(((x - cx) * scale, (y - cy) * scale) for x, y in p.points)
        out.append(Part(p.kind, pts, p.color, p.width * scale, p.shade))
    return tuple(out)


def is_mirrored(obj: SceneObject) -> bool:
    """Things (not shapes) face left when their orientation points into the left half."""
    return obj.category not in ROTATING and 90 < obj.orientation < 270


def place_parts(obj: SceneObject, width: float, height: float) -> list[Part]:
    """The object's parts in pixel coordinates of a ``width`` x ``height`` canvas."""
    scale = obj.size * min(width, height)
    ox, oy = obj.position.x * width, obj.position.y * height
    turn = math.radians(obj.orientation) if obj.category in ROTATING else 0.0
    cos, sin = math.cos(turn), math.sin(turn)
    flip = -1.0 if is_mirrored(obj) else 1.0

    def move(x: float, y: float) -> Point:
        x *= flip
        # counter-clockwise on screen, where y grows downwards
        return ox + (x * cos + y * sin) * scale, oy + (-x * sin + y * cos) * scale

    placed = []
    for p in unit_parts(obj.category):
        if p.kind == "ellipse":
            (ex, ey), (rx, ry) = p.points
            pts: tuple[Point, ...] = (move(ex, ey), (rx * scale, ry * scale))
        else:
            pts = tuple(move(x, y) for x, y in p.points)
        placed.append(Part(p.kind, pts, p.color, p.width * scale, p.shade))
    return placed


def object_box(obj: SceneObject, width: float, height: float) -> tuple[float, float, float, float]:
    """Bounding box (x0, y0, x1, y1) of the placed object in normalised canvas coordinates."""
    if obj.category in ROTATING:
        boxes = [extent(p) for p in place_parts(obj, width, height)]
    else:
        boxes = _unturned_boxes(obj, width, height)
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    return x0 / width, y0 / height, x1 / width, y1 / height


_Box = tuple[float, float, float, float]


@cache
def _unit_spans(category: str) -> tuple[tuple[bool, float, float, float, float, float], ...]:
    """Per unit part: whether it is an ellipse, then its least and largest x and y and its line
    width (for an ellipse: centre x, x radius, centre y, y radius, 0)."""
    spans = []
    for p in unit_parts(category):
        if p.kind == "ellipse":
            (ex, ey), (rx, ry) = p.points
            spans.append((True, ex, rx, ey, ry, 0.0))
        else:
            xs, ys = [q[0] for q in p.points], [q[1] for q in p.points]
            spans.append((False, min(xs), max(xs), min(ys), max(ys), p.width))
    return tuple(spans)


def _unturned_boxes(obj: SceneObject, width: float, height: float) -> list[_Box]:
    """:func:`extent` of every part :func:`place_parts` would give an object that does not
    turn, without placing each point: the sampler asks for a box up to 80 times an object, and
    placing every point was ~40 % of drafting a scene. Unturned, a point maps to
    ``origin + flip * x * scale`` (and ``origin + y * scale``), which rounds monotonically, so
    the extreme points map to the extreme coordinates and the boxes equal place_parts' to the
    bit."""
    scale = obj.size * min(width, height)
    ox, oy = obj.position.x * width, obj.position.y * height
    flip = -1.0 if is_mirrored(obj) else 1.0
    boxes = []
    for is_ellipse, a, b, c, d, part_width in _unit_spans(obj.category):
        if is_ellipse:  # (a, c) the centre, (b, d) the radii
            cx, cy = ox + (a * flip) * scale, oy + c * scale
            rx, ry = b * scale, d * scale
            boxes.append((cx - rx, cy - ry, cx + rx, cy + ry))
            continue
        half = (part_width * scale) / 2
        lo, hi = (a, b) if flip > 0 else (b, a)  # mirrored, the largest x becomes the least
        x0, x1 = ox + (lo * flip) * scale, ox + (hi * flip) * scale
        boxes.append((x0 - half, oy + c * scale - half, x1 + half, oy + d * scale + half))
    return boxes


def draw_order(program: SceneProgram) -> list[int]:
    """Object indices back to front: by depth, ties broken by list order."""
    return sorted(range(len(program.objects)), key=lambda i: (program.objects[i].depth, i))
