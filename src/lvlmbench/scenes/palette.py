"""The closed vocabularies of the scene world: colours, categories and their groupings.

Every name here is something a person can tell apart at a glance, so a question that hinges on
one of them has one answer. Colours are chosen far apart in RGB (and in hue where they share a
lightness), which is why there is no "cyan" or "navy": they are too close to blue.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "BACKGROUND_KINDS",
    "CATEGORIES",
    "COLORS",
    "COLOR_NAMES",
    "CONFUSABLE",
    "COOL_COLORS",
    "FURNITURE",
    "GROUND_ONLY",
    "HOUSEHOLD",
    "LIGHTINGS",
    "LIVING",
    "MUTED_COLORS",
    "NATURAL",
    "NATURAL_COLORS",
    "PATTERNED",
    "PLURALS",
    "SEASONS",
    "SHAPES",
    "SKY",
    "TEXTURES",
    "THINGS",
    "VEHICLES",
    "VIVID_COLORS",
    "WARM_COLORS",
    "WEATHERS",
    "BackgroundKind",
    "Category",
    "ColorName",
    "LightingKind",
    "Season",
    "Texture",
    "WeatherKind",
    "nearest_color",
    "nearest_rows",
    "outline_color",
    "pattern_color",
    "plural",
    "shade",
    "tint",
]

ColorName = Literal[
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "purple",
    "pink",
    "brown",
    "black",
    "white",
    "gray",
]
Category = Literal[
    # geometric shapes
    "circle",
    "square",
    "triangle",
    "star",
    "pentagon",
    "hexagon",
    "diamond",
    "heart",
    "arrow",
    # simple drawn things
    "tree",
    "house",
    "car",
    "person",
    "sun",
    "moon",
    "cloud",
    "ball",
    "cup",
    "book",
    "chair",
    "table",
    "lamp",
    "flower",
    "sign",
]
Texture = Literal["solid", "striped", "dotted", "checkered"]
BackgroundKind = Literal["plain", "gradient", "sky_ground", "clutter"]
LightingKind = Literal["day", "dusk", "night", "spotlight"]
WeatherKind = Literal["clear", "fog", "rain", "snow"]
Season = Literal["spring", "summer", "autumn", "winter"]

COLORS: dict[str, tuple[int, int, int]] = {
    "red": (214, 39, 40),
    "orange": (245, 130, 20),
    "yellow": (247, 214, 30),
    "green": (44, 160, 60),
    "blue": (31, 90, 220),
    "purple": (128, 60, 180),
    "pink": (247, 130, 190),
    "brown": (125, 75, 35),
    "black": (25, 25, 25),
    "white": (248, 248, 248),
    "gray": (135, 135, 135),
}
COLOR_NAMES: tuple[str, ...] = get_args(ColorName)
CATEGORIES: tuple[str, ...] = get_args(Category)
TEXTURES: tuple[str, ...] = get_args(Texture)
BACKGROUND_KINDS: tuple[str, ...] = get_args(BackgroundKind)
LIGHTINGS: tuple[str, ...] = get_args(LightingKind)
WEATHERS: tuple[str, ...] = get_args(WeatherKind)
SEASONS: tuple[str, ...] = get_args(Season)

SHAPES = ("circle", "square", "triangle", "star", "pentagon", "hexagon", "diamond", "heart")
THINGS = tuple(c for c in CATEGORIES if c not in SHAPES and c != "arrow")
FURNITURE = ("chair", "table", "lamp")
HOUSEHOLD = ("chair", "table", "lamp", "cup", "book")
VEHICLES = ("car",)
SKY = ("sun", "moon", "cloud")
LIVING = ("tree", "person", "flower")
NATURAL = ("tree", "flower", "sun", "moon", "cloud")
GROUND_ONLY = ("tree", "house", "car", "person", "chair", "table", "lamp", "sign", "flower")
PATTERNED = (*SHAPES, "ball", "cup", "car", "house", "chair")
"""Categories the procedural examiner gives a texture; it keeps the rest solid so that a texture
question never has to argue about the stripes on a tree (the renderer draws any texture)."""

NATURAL_COLORS: dict[str, tuple[str, ...]] = {
    "tree": ("green", "orange", "yellow", "pink"),
    "sun": ("yellow", "orange"),
    "moon": ("yellow", "white", "gray"),
    "cloud": ("white", "gray"),
    "flower": ("red", "yellow", "pink", "purple", "white", "orange", "blue"),
}
"""Colours a thing may take in the procedural world (absent: any colour)."""

WARM_COLORS = ("red", "orange", "yellow", "pink")
COOL_COLORS = ("blue", "green", "purple")
VIVID_COLORS = ("red", "orange", "yellow", "green", "blue", "purple", "pink")
MUTED_COLORS = ("brown", "black", "white", "gray")

CONFUSABLE: dict[str, tuple[str, ...]] = {
    "orange": ("yellow", "brown", "red"),
    "yellow": ("orange", "white"),
    "brown": ("orange", "black", "red"),
    "black": ("brown", "gray", "purple", "blue"),
    "gray": ("white", "black"),
    "white": ("gray", "yellow"),
    "purple": ("blue", "black"),
    "blue": ("purple", "black"),
    "pink": ("red", "white"),
    "red": ("orange", "brown", "pink"),
    "green": (),
}
"""Colours that low light (dusk, night, spotlight, fog) makes hard to tell apart: in dim scenes
they are never each other's distractors, nor enough on their own to tell two objects apart."""

PLURALS: dict[str, str] = {"person": "people", "bench": "benches"}


def plural(noun: str, count: int = 2) -> str:
    """``noun`` in the plural when ``count`` is not one (people, cups, ...)."""
    if count == 1:
        return noun
    if noun in PLURALS:
        return PLURALS[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def shade(rgb: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    """``rgb`` darkened towards black by ``factor`` (0 keeps it, 1 is black)."""
    return (
        round(rgb[0] * (1 - factor)),
        round(rgb[1] * (1 - factor)),
        round(rgb[2] * (1 - factor)),
    )


def tint(rgb: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    """``rgb`` lightened towards white by ``factor`` (0 keeps it, 1 is white)."""
    return (
        round(rgb[0] + (255 - rgb[0]) * factor),
        round(rgb[1] + (255 - rgb[1]) * factor),
        round(rgb[2] + (255 - rgb[2]) * factor),
    )


def pattern_color(name: str) -> tuple[int, int, int]:
    """Second colour of a striped/dotted/checkered body: a shade of the body colour, so the
    object still reads as one colour ("a red striped ball", not "red and brown")."""
    rgb = COLORS[name]
    if name == "black":
        # A lighter tint of black is gray (and of brown, beige-gray): densely patterned
        # objects of these colours read as gray, so black gets only a slight tint and brown
        # a darker shade like the others.
        return tint(rgb, 0.2)
    if name in ("purple", "blue"):
        return tint(rgb, 0.45)
    if name in ("white", "yellow", "pink"):
        return shade(rgb, 0.2)
    return shade(rgb, 0.35)


def outline_color(name: str) -> tuple[int, int, int]:
    """Outline drawn around every object, so a white cup on a pale wall still has an edge."""
    return (90, 90, 90) if name == "black" else shade(COLORS[name], 0.55)


def nearest_color(rgb: tuple[int, int, int]) -> str:
    """The palette name closest to ``rgb`` (for checking renders against programs)."""
    return min(COLORS, key=lambda n: sum((a - b) ** 2 for a, b in zip(COLORS[n], rgb, strict=True)))


def nearest_rows(pixels: NDArray[np.int32], paints: NDArray[np.int32]) -> NDArray[np.intp]:
    """Index of the nearest row of ``paints`` (squared RGB distance) for every pixel of
    ``pixels`` (any shape ending in 3); ties go to the first row, as with :func:`nearest_color`.

    |p - c|² = |p|² - 2 p·c + |c|², and |p|² is the same for every c: the argmin of
    |c|² - 2 p·c is the argmin of the distance, ties included, in exact integers. This spares
    the (pixels x paints x 3) array of differences, which cost four times as much."""
    squares = (paints * paints).sum(axis=1)
    return np.asarray((squares - 2 * (pixels @ paints.T)).argmin(axis=-1))
