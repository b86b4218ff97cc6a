"""Draw a scene program with Pillow, exactly and deterministically.

Anti-aliasing is 2x supersampling: everything is drawn at twice the size and box-filtered down
with ``Image.reduce(2)``, which is several times faster than a LANCZOS resize and smooths edges
just as well for flat-coloured shapes. Lighting and fog are colour operations, so they are
applied after the reduction on a quarter of the pixels.
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw, ImageFont

from lvlmbench.scenes import effects
from lvlmbench.scenes._png import encode_png
from lvlmbench.scenes.geometry import Part, draw_order, extent, place_parts
from lvlmbench.scenes.palette import COLORS, outline_color, pattern_color, shade
from lvlmbench.scenes.schema import SceneObject, SceneProgram, TextLabel

__all__ = ["RENDERER_VERSION", "SUPERSAMPLE", "font", "render", "render_png", "text_color"]

RENDERER_VERSION = "3"
"""Bump whenever the same program would render to different pixels (it is in cache keys).
3: black and brown pattern colours that no longer read as gray."""
SUPERSAMPLE = 2
RGB = tuple[int, int, int]
_DARK_TEXT_ON = ("yellow", "white", "pink", "orange")


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` pixels (no system fonts: same glyphs everywhere)."""
    return ImageFont.load_default(size=max(6, size))


def text_color(board: str) -> RGB:
    """Black text on light boards, white text on dark ones."""
    return (20, 20, 20) if board in _DARK_TEXT_ON else (250, 250, 250)


def render(
    program: SceneProgram, width: int | None = None, height: int | None = None
) -> Image.Image:
    """The program as an RGB image of ``width`` x ``height`` (default: the program's canvas)."""
    w = width or program.canvas.width
    h = height or program.canvas.height
    big_w, big_h = w * SUPERSAMPLE, h * SUPERSAMPLE
    image = effects.draw_background(program, big_w, big_h)
    draw = ImageDraw.Draw(image)
    effects.draw_clutter(draw, program, big_w, big_h)
    effects.draw_season(draw, program, big_w, big_h)
    for index in draw_order(program):
        _draw_object(image, draw, program.objects[index], big_w, big_h)
    for label in program.labels:
        _draw_label(draw, label, big_w, big_h)
    small = effects.apply_fog(effects.apply_lighting(image.reduce(SUPERSAMPLE), program), program)
    # Rain and snow go on last, at full size: falling snow stays white in dim light, as it
    # does in photographs, instead of taking on the dusk or night tint.
    effects.draw_precipitation(ImageDraw.Draw(small), program, w, h)
    return small


def render_png(program: SceneProgram, width: int | None = None, height: int | None = None) -> bytes:
    """The rendered image as PNG bytes; the same program always gives the same bytes."""
    # Not Pillow's encoder: its per-row filter search was the single biggest cost of rendering
    # thousands of pictures, and of decoding them again (see _png).
    return encode_png(render(program, width, height))


def _draw_part(draw: ImageDraw.ImageDraw, part: Part, fill: RGB | int, grow: float = 0.0) -> None:
    """One primitive; ``grow`` widens it on every side (used for the outline pass)."""
    if part.kind == "ellipse":
        (cx, cy), (rx, ry) = part.points
        draw.ellipse((cx - rx - grow, cy - ry - grow, cx + rx + grow, cy + ry + grow), fill=fill)
    elif part.kind == "polygon":
        draw.polygon(list(part.points), fill=fill)
        if grow:
            ring = [*part.points, part.points[0]]
            draw.line(ring, fill=fill, width=max(1, round(2 * grow)), joint="curve")
    else:
        draw.line(
            list(part.points), fill=fill, width=max(1, round(part.width + 2 * grow)), joint="curve"
        )


def _draw_object(
    image: Image.Image, draw: ImageDraw.ImageDraw, obj: SceneObject, width: int, height: int
) -> None:
    parts = place_parts(obj, width, height)
    body = COLORS[obj.color]
    grow = max(1.0, 0.0035 * min(width, height))
    # Outline pass first: every part grown in the outline colour, so the object gets one dark
    # silhouette edge without seams between its own overlapping parts.
    edge = outline_color(obj.color)
    for part in parts:
        _draw_part(draw, part, edge, grow)
    pattern: Image.Image | None = None
    box = _box(parts)
    for part in parts:
        if part.is_body and obj.texture != "solid":
            if pattern is None:
                pattern = _pattern(obj, box)
            _paste_through(image, pattern, part, box)
        else:
            _draw_part(draw, part, part.color or shade(body, part.shade))
    if obj.text:
        _draw_object_text(draw, obj, parts)


def _box(parts: list[Part]) -> tuple[int, int, int, int]:
    boxes = [extent(p) for p in parts]
    return (
        int(min(b[0] for b in boxes)) - 1,
        int(min(b[1] for b in boxes)) - 1,
        int(max(b[2] for b in boxes)) + 2,
        int(max(b[3] for b in boxes)) + 2,
    )


def _pattern(obj: SceneObject, box: tuple[int, int, int, int]) -> Image.Image:
    """The object's texture over its bounding box, anchored to the box so that all body parts
    share one continuous pattern. About seven repeats per object: small objects get fine
    textures, which is part of what makes hard scenes hard."""
    w, h = box[2] - box[0], box[3] - box[1]
    tile = Image.new("RGB", (w, h), COLORS[obj.color])
    draw = ImageDraw.Draw(tile)
    second = pattern_color(obj.color)
    period = max(6.0, max(w, h) / 7)
    if obj.texture == "striped":
        stripe = period * 0.42
        for i in range(int(h / period) + 2):
            y = i * period
            draw.rectangle((0, y, w, y + stripe), fill=second)
    elif obj.texture == "dotted":
        r = period * 0.24
        for row in range(int(h / period) + 2):
            shift = period / 2 if row % 2 else 0.0
            for col in range(int(w / period) + 2):
                cx, cy = col * period + shift, row * period + period / 2
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=second)
    else:
        cell = period * 0.6
        for row in range(int(h / cell) + 1):
            for col in range(row % 2, int(w / cell) + 1, 2):
                draw.rectangle(
                    (col * cell, row * cell, (col + 1) * cell, (row + 1) * cell), fill=second
                )
    return tile


def _paste_through(
    image: Image.Image, pattern: Image.Image, part: Part, box: tuple[int, int, int, int]
) -> None:
    mask = Image.new("L", pattern.size, 0)
    local = _shifted(part, -box[0], -box[1])
    _draw_part(ImageDraw.Draw(mask), local, 255)
    image.paste(pattern, (box[0], box[1]), mask)


def _shifted(part: Part, dx: float, dy: float) -> Part:
    if part.kind == "ellipse":
        (cx, cy), radii = part.points
        return Part(part.kind, ((cx + dx, cy + dy), radii), part.color, part.width, part.shade)
    points = tuple((x + dx, y + dy) for x, y in part.points)
    return Part(part.kind, points, part.color, part.width, part.shade)


def _draw_object_text(draw: ImageDraw.ImageDraw, obj: SceneObject, parts: list[Part]) -> None:
    """Words on the sign board or book cover, as large as fits."""
    assert obj.text is not None
    board = max((p for p in parts if p.is_body), key=lambda p: _area(extent(p)))
    x0, y0, x1, y1 = extent(board)
    size = int((y1 - y0) * 0.42)
    face = font(size)
    while size > 8 and draw.textlength(obj.text, font=face) > (x1 - x0) * 0.86:
        size = int(size * 0.9)
        face = font(size)
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    draw.text(centre, obj.text, fill=text_color(obj.color), font=face, anchor="mm")


def _area(box: tuple[float, float, float, float]) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _draw_label(draw: ImageDraw.ImageDraw, label: TextLabel, width: int, height: int) -> None:
    face = font(round(label.size * min(width, height)))
    xy = (label.position.x * width, label.position.y * height)
    halo = (250, 250, 250) if label.color in ("black", "brown", "purple", "blue") else (30, 30, 30)
    draw.text(
        xy,
        label.text,
        fill=COLORS[label.color],
        font=face,
        anchor="mm",
        stroke_width=max(1, round(0.004 * min(width, height))),
        stroke_fill=halo,
    )
