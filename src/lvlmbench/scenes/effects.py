"""Backgrounds, clutter, season cover, weather and lighting: everything that is not an object.

Every random layout here comes from a ``random.Random`` seeded by the program's ``seed`` and the
layer's name, so the same program always puts the same raindrop in the same place.
"""

from __future__ import annotations

import random
from functools import cache

from PIL import Image, ImageDraw

from lvlmbench.scenes.palette import COLORS, shade, tint
from lvlmbench.scenes.schema import SceneProgram

__all__ = [
    "apply_fog",
    "apply_lighting",
    "background_colors",
    "draw_background",
    "draw_clutter",
    "draw_precipitation",
    "draw_season",
    "layer_rng",
    "lit_appearances",
]

RGB = tuple[int, int, int]

_LAYERS = {"clutter": 1, "season": 2, "rain": 3, "snow": 4}


def layer_rng(program: SceneProgram, layer: str) -> random.Random:
    """A private random stream per (program seed, layer): layers never shift each other."""
    return random.Random(program.seed * 1_000_003 + _LAYERS[layer])


def _bg(name: str, amount: float) -> RGB:
    # Backgrounds are pale tints of the named colour so that objects in the full colour stand
    # out; black would swallow everything, so it becomes a dark slate instead.
    return (62, 64, 74) if name == "black" else tint(COLORS[name], amount)


def background_colors(program: SceneProgram) -> tuple[RGB, RGB]:
    """(top or sky colour, bottom or ground colour) as drawn before lighting."""
    bg = program.background
    if bg.kind == "sky_ground":
        return _bg(bg.color, 0.55), _bg(bg.color2 or "green", 0.3)
    if bg.kind == "gradient":
        return _bg(bg.color, 0.6), _bg(bg.color2 or bg.color, 0.3)
    return _bg(bg.color, 0.6), _bg(bg.color, 0.6)


def _column(top: RGB, bottom: RGB, height: int) -> Image.Image:
    return Image.frombytes("RGB", (1, height), _gradient(top, bottom, height))


@cache
def _gradient(top: RGB, bottom: RGB, height: int) -> bytes:
    """One pixel column from ``top`` to ``bottom``. Remembered: backgrounds reuse a few pale
    tints at one size, and the per-row rounding in Python cost a millisecond a scene."""
    rows = bytearray()
    for y in range(height):
        t = y / max(1, height - 1)
        rows += bytes(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
    return bytes(rows)


def draw_background(program: SceneProgram, width: int, height: int) -> Image.Image:
    """The background at the given (supersampled) size."""
    bg = program.background
    top, bottom = background_colors(program)
    if bg.kind == "gradient":
        return _column(top, bottom, height).resize((width, height), Image.Resampling.NEAREST)
    if bg.kind != "sky_ground":
        return Image.new("RGB", (width, height), top)
    horizon = round(bg.horizon * height)
    image = _column(tint(top, 0.35), top, horizon).resize(
        (width, horizon), Image.Resampling.NEAREST
    )
    canvas = Image.new("RGB", (width, height), bottom)
    canvas.paste(image, (0, 0))
    return canvas


def _ground_top(program: SceneProgram, height: int) -> int:
    bg = program.background
    if bg.kind == "sky_ground":
        return round(bg.horizon * height)
    return 0 if bg.kind == "clutter" else round(0.8 * height)


def draw_clutter(draw: ImageDraw.ImageDraw, program: SceneProgram, width: int, height: int) -> None:
    """Small low-contrast strokes and specks: visual noise that never looks like an object
    (too small, too faint), so counting questions stay exact."""
    bg = program.background
    density = bg.clutter or (0.6 if bg.kind == "clutter" else 0.0)
    if density <= 0:
        return
    rng = layer_rng(program, "clutter")
    top_y = round(bg.horizon * height) if bg.kind == "sky_ground" else 0
    top, bottom = background_colors(program)
    base = bottom if bg.kind == "sky_ground" else top
    count = round(density * 260 * width * height / 1024**2)
    unit = min(width, height)
    for _ in range(count):
        x = rng.uniform(0, width)
        y = rng.uniform(top_y, height)
        s = rng.uniform(0.004, 0.018) * unit
        tone = rng.uniform(0.12, 0.3)
        color = shade(base, tone) if rng.random() < 0.6 else tint(base, tone)
        if rng.random() < 0.5:
            angle = rng.uniform(-1, 1)
            draw.line(
                [(x, y), (x + s * 1.6, y + s * angle)], fill=color, width=max(1, round(s / 3))
            )
        else:
            draw.ellipse((x - s / 2, y - s / 3, x + s / 2, y + s / 3), fill=color)


_SEASON_MARKS: dict[str, tuple[RGB, ...]] = {
    "winter": ((250, 250, 252), (236, 240, 246)),
    "autumn": ((214, 110, 30), (170, 70, 30), (228, 160, 40)),
    "spring": ((250, 170, 205), (255, 255, 255), (245, 140, 190)),
    "summer": ((40, 130, 45), (60, 150, 50)),
}


def draw_season(draw: ImageDraw.ImageDraw, program: SceneProgram, width: int, height: int) -> None:
    """Season cue on the ground: snow patches, fallen leaves, blossoms or grass tufts."""
    if program.season is None:
        return
    rng = layer_rng(program, "season")
    colors = _SEASON_MARKS[program.season]
    top_y = _ground_top(program, height)
    unit = min(width, height)
    big = program.season == "winter"
    for _ in range(round(90 * width / 1024)):
        x = rng.uniform(0, width)
        y = rng.uniform(top_y, height)
        color = colors[rng.randrange(len(colors))]
        if program.season == "summer":
            s = rng.uniform(0.01, 0.02) * unit
            draw.line([(x, y), (x - s / 3, y - s)], fill=color, width=max(1, round(unit / 300)))
            draw.line([(x, y), (x + s / 3, y - s)], fill=color, width=max(1, round(unit / 300)))
            continue
        s = rng.uniform(0.03, 0.07) * unit if big else rng.uniform(0.006, 0.012) * unit
        draw.ellipse((x - s, y - s / 2.2, x + s, y + s / 2.2), fill=color)


def draw_precipitation(
    draw: ImageDraw.ImageDraw, program: SceneProgram, width: int, height: int
) -> None:
    """Rain streaks or snowflakes over everything (seeded by the program), drawn on the final
    image; they are dimmer at night so that rain does not look like light."""
    weather = program.weather
    unit = min(width, height)
    dim = program.lighting.kind in ("night", "spotlight")
    area = width * height / 512**2
    if weather.kind == "rain":
        rng = layer_rng(program, "rain")
        color = (128, 138, 160) if dim else (205, 214, 228)
        for _ in range(round((60 + 340 * weather.intensity) * area)):
            x, y = rng.uniform(0, width), rng.uniform(0, height)
            length = rng.uniform(0.03, 0.06) * unit
            draw.line(
                [(x, y), (x - 0.3 * length, y + length)],
                fill=color,
                width=max(1, round(unit / 512)),
            )
    elif weather.kind == "snow":
        rng = layer_rng(program, "snow")
        color = (215, 218, 228) if dim else (252, 252, 255)
        for _ in range(round((50 + 260 * weather.intensity) * area)):
            x, y = rng.uniform(0, width), rng.uniform(0, height)
            r = rng.uniform(0.003, 0.007) * unit
            draw.ellipse((x - r, y - r, x + r, y + r), fill=color)


_LIGHT_GAIN: dict[str, tuple[float, float, float, float, float, float]] = {
    # per channel: multiply, then add
    "dusk": (0.97, 0.82, 0.68, 12.0, 4.0, 0.0),
    "night": (0.58, 0.62, 0.8, 0.0, 0.0, 12.0),
    "spotlight": (0.32, 0.32, 0.38, 0.0, 0.0, 4.0),
}


@cache
def _lut(kind: str) -> list[int]:
    mr, mg, mb, ar, ag, ab = _LIGHT_GAIN[kind]
    table: list[int] = []
    for mul, add in ((mr, ar), (mg, ag), (mb, ab)):
        table += [min(255, round(v * mul + add)) for v in range(256)]
    return table


@cache
def _falloff() -> list[int]:
    # radial_gradient reads 0 at the centre and ~181 at the edge of its inscribed circle
    return [255 if v < 136 else max(0, round(255 - (v - 136) * 255 / 45)) for v in range(256)]


def apply_lighting(image: Image.Image, program: SceneProgram) -> Image.Image:
    """Day leaves colours alone; dusk warms and dims; night darkens and blues; a spotlight
    darkens everything but a soft-edged disc."""
    light = program.lighting
    if light.kind == "day":
        return image
    dark = image.point(_lut(light.kind))
    if light.kind != "spotlight":
        return dark
    w, h = image.size
    radius = max(2, round(light.spot_radius * min(w, h)))
    disc = Image.radial_gradient("L").resize((2 * radius, 2 * radius)).point(_falloff())
    mask = Image.new("L", (w, h), 0)
    mask.paste(disc, (round(light.spot_x * w) - radius, round(light.spot_y * h) - radius))
    return Image.composite(image, dark, mask)


def lit_appearances(rgb: RGB, program: SceneProgram) -> list[RGB]:
    """How a flat colour can look in the finished image under the program's light and fog:
    one appearance for day, dusk and night; lit and unlit ones under a spotlight."""
    looks = [rgb] if program.lighting.kind in ("day", "spotlight") else []
    if program.lighting.kind != "day":
        # What Image.point does with this table, looked up directly: point() first rounds
        # all 768 entries again, on every call, which made this the colour check's main cost.
        table = _lut(program.lighting.kind)
        looks.append((table[rgb[0]], table[256 + rgb[1]], table[512 + rgb[2]]))
    seen: list[RGB] = []
    for look in looks:
        pixel = apply_fog(Image.new("RGB", (1, 1), look), program).getpixel((0, 0))
        assert isinstance(pixel, tuple)
        seen.append((int(pixel[0]), int(pixel[1]), int(pixel[2])))
    return seen


_FOG: dict[str, RGB] = {
    "day": (226, 229, 233),
    "dusk": (214, 186, 168),
    "night": (78, 84, 100),
    "spotlight": (60, 62, 70),
}


def apply_fog(image: Image.Image, program: SceneProgram) -> Image.Image:
    """A uniform haze whose strength follows the weather's intensity."""
    if program.weather.kind != "fog":
        return image
    fog = Image.new("RGB", image.size, _FOG[program.lighting.kind])
    return Image.blend(image, fog, 0.25 + 0.3 * program.weather.intensity)
