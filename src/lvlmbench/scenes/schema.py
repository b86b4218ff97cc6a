"""The scene program: a small, flat JSON format that the renderer draws exactly.

It is small on purpose: an LLM examiner fills it with grammar-constrained JSON
(``SceneProgram.model_json_schema()``), so every field is a closed vocabulary or a bounded
number, and nothing nests deeper than ``objects[i].position``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import ErrorDetails

from lvlmbench.scenes.palette import (
    BackgroundKind,
    Category,
    ColorName,
    LightingKind,
    Season,
    Texture,
    WeatherKind,
)

__all__ = [
    "TEXT_CATEGORIES",
    "Background",
    "Canvas",
    "Lighting",
    "Position",
    "SceneError",
    "SceneObject",
    "SceneProgram",
    "TextLabel",
    "Weather",
    "validate_scene",
]

TEXT_CATEGORIES = ("sign", "book")
"""Categories that may carry ``text`` (written on the sign board or the book cover)."""

_CONFIG = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class Canvas(BaseModel):
    """Image size in pixels."""

    model_config = _CONFIG
    width: int = Field(512, ge=64, le=4096)
    """Width in pixels."""
    height: int = Field(512, ge=64, le=4096)
    """Height in pixels."""


class Background(BaseModel):
    """What is behind every object."""

    model_config = _CONFIG
    kind: BackgroundKind = "plain"
    """plain colour, vertical gradient, sky over ground, or a plain colour covered in clutter."""
    color: ColorName = "white"
    """Main colour (the sky for sky_ground, the top for gradient), drawn as a pale tint."""
    color2: ColorName | None = None
    """Second colour: the ground for sky_ground, the bottom for gradient."""
    horizon: float = Field(0.6, ge=0.2, le=0.9)
    """Where the ground starts, as a fraction of the height (sky_ground only)."""
    clutter: float = Field(0.0, ge=0.0, le=1.0)
    """Density of small background marks (0: none); kind 'clutter' uses 0.6 when this is 0."""


class Lighting(BaseModel):
    """How the scene is lit."""

    model_config = _CONFIG
    kind: LightingKind = "day"
    """day, dusk (warm and dim), night (dark and blue) or spotlight (dark but one bright disc)."""
    spot_x: float = Field(0.5, ge=0.0, le=1.0)
    """Spotlight centre, x in [0, 1] (spotlight only)."""
    spot_y: float = Field(0.5, ge=0.0, le=1.0)
    """Spotlight centre, y in [0, 1], 0 at the top (spotlight only)."""
    spot_radius: float = Field(0.3, ge=0.05, le=1.0)
    """Spotlight radius as a fraction of the shorter side (spotlight only)."""


class Weather(BaseModel):
    """Weather drawn over the whole scene."""

    model_config = _CONFIG
    kind: WeatherKind = "clear"
    """clear, fog, rain or snow."""
    intensity: float = Field(0.5, ge=0.0, le=1.0)
    """How heavy the fog, rain or snow is."""


class Position(BaseModel):
    """A point in normalised coordinates: (0, 0) top left, (1, 1) bottom right."""

    model_config = _CONFIG
    x: float = Field(ge=0.0, le=1.0)
    """Horizontal, 0 = left edge, 1 = right edge."""
    y: float = Field(ge=0.0, le=1.0)
    """Vertical, 0 = top edge, 1 = bottom edge."""


class SceneObject(BaseModel):
    """One drawn object."""

    model_config = _CONFIG
    category: Category
    """What it is: a geometric shape or a simple drawn thing."""
    color: ColorName
    """Its main colour (a shirt for a person, the foliage for a tree, the board for a sign)."""
    position: Position
    """Centre of the object."""
    size: float = Field(0.2, ge=0.02, le=0.9)
    """Longest side as a fraction of the canvas's shorter side."""
    texture: Texture = "solid"
    """Pattern on the body: solid, striped, dotted or checkered."""
    orientation: int = Field(0, ge=0, le=359)
    """Degrees counter-clockwise. Shapes and arrows rotate (an arrow at 0 points right, a
    triangle at 0 points up); other things face left when 90 < orientation < 270."""
    depth: int = Field(0, ge=-100, le=100)
    """Drawing order: higher is nearer the viewer and hides what it overlaps."""
    text: str | None = Field(None, min_length=1, max_length=14)
    """Words on a sign board or book cover (signs and books only)."""

    @field_validator("text")
    @classmethod
    def _text_needs_a_surface(cls, value: str | None, info: ValidationInfo) -> str | None:
        category = info.data.get("category")
        if value is not None and category is not None and category not in TEXT_CATEGORIES:
            raise ValueError(f"only {' and '.join(TEXT_CATEGORIES)} carry text, not {category}")
        return value


class TextLabel(BaseModel):
    """Free-floating text drawn above everything else."""

    model_config = _CONFIG
    text: str = Field(min_length=1, max_length=24)
    """The words or symbols to write."""
    position: Position
    """Centre of the text."""
    color: ColorName = "black"
    """Text colour."""
    size: float = Field(0.08, ge=0.02, le=0.3)
    """Letter height as a fraction of the canvas's shorter side."""


class SceneProgram(BaseModel):
    """A complete scene. The same program always renders to the same pixels."""

    model_config = _CONFIG
    seed: int = Field(0, ge=0, le=2**31 - 1)
    """Seeds the rain, snow and clutter layouts."""
    canvas: Canvas = Field(default_factory=Canvas)
    """Default image size (render() may override it)."""
    background: Background = Field(default_factory=Background)
    """What is behind the objects."""
    lighting: Lighting = Field(default_factory=Lighting)
    """How the scene is lit."""
    weather: Weather = Field(default_factory=Weather)
    """Weather overlay."""
    season: Season | None = None
    """Season cue on the ground (spring blossoms, autumn leaves, winter snow); None: none."""
    objects: list[SceneObject] = Field(default_factory=list, max_length=60)
    """Objects, drawn in order of depth (ties: list order)."""
    labels: list[TextLabel] = Field(default_factory=list, max_length=12)
    """Text drawn on top of everything."""


class SceneError(ValueError):
    """An invalid scene program. The message names the JSON path and what is allowed."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


def validate_scene(data: Any) -> SceneProgram:
    """Parse ``data`` (a dict, as an LLM wrote it) into a :class:`SceneProgram`.

    Raises :class:`SceneError` whose message gives every bad field's JSON path, the value and
    what is allowed, e.g. ``objects[2].category: 'dragon' is not one of circle, square, ...``.
    """
    if isinstance(data, SceneProgram):
        return data
    if not isinstance(data, dict):
        raise SceneError(f"scene: expected a JSON object, got {type(data).__name__}")
    try:
        return SceneProgram.model_validate(data)
    except ValidationError as exc:
        problems = [_explain(error) for error in exc.errors()]
        shown = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise SceneError(f"invalid scene program: {shown}{more}", problems) from None


def _path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "scene"


def _explain(error: ErrorDetails) -> str:
    """One human line for one pydantic error."""
    loc = tuple(error["loc"])
    kind = error["type"]
    value = error.get("input")
    ctx = error.get("ctx") or {}
    if "position" in loc and kind in ("greater_than_equal", "less_than_equal"):
        at = loc.index("position")
        axis = loc[at + 1] if len(loc) > at + 1 else "x"
        return f"{_path(loc[: at + 1])}: off canvas, {axis} must be in [0, 1] (got {value})"
    path = _path(loc)
    if kind in ("literal_error", "enum"):
        allowed = ", ".join(re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        if loc and loc[-1] in ("color", "color2"):
            return f"{path}: {value!r} is not a known colour ({allowed})"
        return f"{path}: {value!r} is not one of {allowed}"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        return f"{path}: {value!r} is out of range ({_bounds(error['msg'])})"
    if kind == "missing":
        return f"{path}: required field is missing"
    if kind == "extra_forbidden":
        return f"{path}: unknown field"
    message = error["msg"].removeprefix("Value error, ")
    return f"{path}: {message}"


def _bounds(msg: str) -> str:
    return msg.replace("Input should be ", "must be ")
