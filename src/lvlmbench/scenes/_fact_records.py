"""The records of what is true of a scene: one object, a relation between two, the whole-scene
facts and the set a question may ask about. ``facts`` computes them and ``semantics`` reads them;
they live here, below both, so neither module imports the other in a loop."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

__all__ = ["ObjectFacts", "Relation", "SceneFactName", "SceneFacts", "SceneLevelFacts"]


SceneFactName = Literal[
    "time_of_day",
    "lighting",
    "weather",
    "season",
    "brightness",
    "light_source",
    "light_cast",
    "mood",
    "temperature",
    "vividness",
    "scene_type",
    "ground",
    "feels",
    "cloudiness",
    "sun_height",
    "activity",
    "busyness",
    "background",
]
"""The name of a whole-scene fact (a recipe that picks a fact by name is checked by mypy)."""


class SceneLevelFacts(BaseModel):
    """Time of day, weather, season, mood and the other whole-scene facts; None where the
    scene does not settle one clearly (no question is asked about it then)."""

    model_config = ConfigDict(frozen=True)

    time_of_day: str | None = None
    lighting: str | None = None
    weather: str | None = None
    season: str | None = None
    brightness: str | None = None
    light_source: str | None = None
    light_cast: str | None = None
    mood: str | None = None
    temperature: str | None = None
    vividness: str | None = None
    scene_type: str | None = None
    ground: str | None = None
    feels: str | None = None
    cloudiness: str | None = None
    sun_height: str | None = None
    activity: str | None = None
    busyness: str | None = None
    background: str | None = None

    def __getitem__(self, name: SceneFactName) -> str | None:
        """A fact by name (``facts.scene["mood"]``)."""
        value: str | None = getattr(self, name)
        return value

    def get(self, name: SceneFactName, default: str | None = None) -> str | None:
        """A fact by name, or ``default`` where it is None."""
        value: str | None = getattr(self, name)
        return default if value is None else value


class ObjectFacts(BaseModel):
    """What is true of one object."""

    model_config = ConfigDict(frozen=True)
    index: int
    category: str
    color: str
    texture: str
    text: str | None
    box: tuple[float, float, float, float]
    """Normalised (x0, y0, x1, y1)."""
    area: float
    """Whole silhouette as a fraction of the canvas (hidden parts included)."""
    visible: float
    """Fraction of the silhouette that is visible (not hidden, not off the canvas)."""
    rank: int
    """Drawing position: 0 is the back-most object."""
    occluded_by: list[int]
    """Objects in front of this one that hide part of it."""
    region: str
    """Where its centre lies on a 3x3 grid (top left ... bottom right)."""
    pointing: str | None
    """up/down/left/right for arrows and triangles turned by a multiple of 90 degrees."""
    facing: str | None
    """left/right for things that have a front (cars)."""
    lit: bool
    """False only for objects outside a spotlight's disc."""
    askable: bool
    """Visible enough (and lit) to be asked about."""

    @property
    def center(self) -> tuple[float, float]:
        """Centre of the bounding box."""
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2

    @property
    def height(self) -> float:
        """Box height (fraction of the canvas height)."""
        return self.box[3] - self.box[1]


class Relation(BaseModel):
    """``subject`` is ``relation`` ``object`` (indices into the objects)."""

    model_config = ConfigDict(frozen=True)
    subject: int
    relation: str
    object: int


class SceneFacts(BaseModel):
    """Everything a question may ask about, computed from one program."""

    width: int
    height: int
    threshold: float
    objects: list[ObjectFacts]
    relations: list[Relation]
    counts_by_category: dict[str, int]
    counts_by_color: dict[str, int]
    labels: list[tuple[str, str, float, float]] = Field(default_factory=list)
    """(text, colour, x, y) of every free-floating text label."""
    largest: int | None = None
    """The object whose silhouette is clearly (1.5x) the largest, if one is."""
    smallest: int | None = None
    """The object whose silhouette is clearly (1.5x) the smallest, if one is."""
    scene: SceneLevelFacts = Field(default_factory=SceneLevelFacts)
    """Scene-level facts: time_of_day, weather, season, brightness, light_source, mood,
    temperature, vividness, scene_type, ground, feels, light_cast, cloudiness, sun_height,
    activity, busyness, background."""
    _relation_cache: set[Relation] | None = PrivateAttr(default=None)

    def holds(self, a: int, relation: str, b: int) -> bool:
        """Whether the clear relation ``a relation b`` was recorded."""
        return Relation(subject=a, relation=relation, object=b) in self._relation_set()

    def _relation_set(self) -> set[Relation]:
        if self._relation_cache is None:
            self._relation_cache = set(self.relations)
        return self._relation_cache

    def related(self, a: int, relation: str) -> list[int]:
        """Every ``b`` with ``a relation b``."""
        return [r.object for r in self.relations if r.subject == a and r.relation == relation]

    def askable(self) -> list[ObjectFacts]:
        """Objects a question may be about."""
        return [o for o in self.objects if o.askable]

    def select(self, category: str | None = None, color: str | None = None) -> list[ObjectFacts]:
        """Objects matching the category and/or colour (hidden ones included)."""
        return [
            o
            for o in self.objects
            if (category is None or o.category == category) and (color is None or o.color == color)
        ]

    def direction(self, a: int, b: int) -> str | None:
        """The single clear direction of ``a`` seen from ``b`` (left of, right of, above,
        below) or None when there is none or more than one."""
        found = [rel for rel in ("left of", "right of", "above", "below") if self.holds(a, rel, b)]
        return found[0] if len(found) == 1 else None
