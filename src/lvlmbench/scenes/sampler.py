"""Scene sampling: difficulty profiles and the builder every aspect's recipe uses.

Difficulty is real because the profile drives what makes a picture hard to read: how many
objects, how small, how textured, how much background clutter, how often objects hide behind
each other, and how often the light is low or the weather is bad.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.scenes.geometry import object_box
from lvlmbench.scenes.palette import COLOR_NAMES, NATURAL_COLORS, PATTERNED, SHAPES
from lvlmbench.scenes.schema import (
    Background,
    Lighting,
    Position,
    SceneObject,
    SceneProgram,
    TextLabel,
    Weather,
)

__all__ = ["DIFFICULTIES", "PROFILES", "Profile", "Retry", "SceneBuilder"]

DIFFICULTIES = ("easy", "medium", "hard")
CANVAS = 512
Box = tuple[float, float, float, float]


class Retry(Exception):
    """This draw cannot satisfy the recipe; the examiner tries the next sub-seed."""


@dataclass(frozen=True)
class Profile:
    """What one difficulty level means for a scene."""

    fillers: tuple[int, int]
    """Extra objects beyond the ones the question is about."""
    size: tuple[float, float]
    """Object size range (longest side, fraction of the canvas)."""
    texture: float
    """Chance that a patternable object gets a pattern."""
    clutter: tuple[float, float, float]
    """(chance of clutter, lowest density, highest density)."""
    occlusion: float
    """Chance that each object gets a partial occluder."""
    lighting: dict[str, float]
    weather: dict[str, float]


PROFILES: dict[str, Profile] = {
    "easy": Profile((0, 1), (0.22, 0.32), 0.0, (0.0, 0.0, 0.0), 0.0, {"day": 1.0}, {"clear": 1.0}),
    "medium": Profile(
        (2, 4),
        (0.14, 0.24),
        0.35,
        (0.35, 0.2, 0.4),
        0.25,
        {"day": 0.75, "dusk": 0.25},
        {"clear": 0.8, "fog": 0.1, "rain": 0.1},
    ),
    "hard": Profile(
        (5, 8),
        (0.09, 0.18),
        0.65,
        (0.85, 0.4, 0.8),
        0.6,
        {"day": 0.45, "dusk": 0.2, "night": 0.2, "spotlight": 0.15},
        {"clear": 0.4, "fog": 0.2, "rain": 0.2, "snow": 0.2},
    ),
}

THEMES: dict[str, tuple[str, ...]] = {
    "shapes": SHAPES,
    "street": ("house", "car", "sign", "tree", "person"),
    "park": ("tree", "flower", "ball", "person"),
    "room": ("chair", "table", "lamp", "cup", "book", "ball"),
    "sky": ("sun", "moon", "cloud"),
}
_SKY_THINGS = ("sun", "moon", "cloud")
_SIGN_WORDS = ("STOP", "SLOW", "EXIT", "OPEN", "PARKING", "DANGER", "CLOSED", "NO ENTRY")


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    names = sorted(weights)
    return rng.choices(names, [weights[n] for n in names])[0]


@dataclass
class SceneBuilder:
    """Mutable draft of a scene; recipes call its methods, then :meth:`build`."""

    rng: random.Random
    difficulty: str
    theme: str = "shapes"
    background: Background = field(default_factory=Background)
    lighting: Lighting = field(default_factory=Lighting)
    weather: Weather = field(default_factory=Weather)
    season: str | None = None
    objects: list[SceneObject] = field(default_factory=list)
    labels: list[TextLabel] = field(default_factory=list)
    indoor: bool = False

    @property
    def profile(self) -> Profile:
        """The difficulty profile."""
        return PROFILES[self.difficulty]

    # -- the stage ---------------------------------------------------------------------------

    def stage(self, theme: str, *, lighting: bool = True, weather: bool = True) -> None:
        """Background, light and weather for ``theme`` at this difficulty. Pass False to keep
        day light or clear weather (e.g. when the question needs colours read reliably)."""
        rng, p = self.rng, self.profile
        self.theme = theme
        self.indoor = theme == "room"
        chance, lo, hi = p.clutter
        clutter = round(rng.uniform(lo, hi), 2) if rng.random() < chance else 0.0
        if theme in ("street", "park", "sky"):
            ground = {"street": "gray", "park": "green", "sky": "green"}[theme]
            horizon = 0.8 if theme == "sky" else round(rng.uniform(0.45, 0.6), 2)
            self.background = Background(
                kind="sky_ground", color="blue", color2=ground, horizon=horizon, clutter=clutter
            )
        elif theme == "room":
            wall = rng.choice(("white", "yellow", "pink", "gray"))
            self.background = Background(
                kind="sky_ground",
                color=wall,
                color2="brown",
                horizon=round(rng.uniform(0.55, 0.7), 2),
                clutter=0.0,
            )
        else:
            kind = "clutter" if clutter else rng.choice(("plain", "plain", "gradient"))
            colors = rng.sample(("white", "gray", "yellow", "blue", "pink", "green"), 2)
            self.background = Background(
                kind=kind,
                color=colors[0],
                color2=colors[1] if kind == "gradient" else None,
                clutter=clutter,
            )
        if lighting:
            self.set_lighting(_pick(rng, p.lighting))
        if weather and not self.indoor:
            kind = _pick(rng, p.weather)
            self.weather = Weather(kind=kind, intensity=round(rng.uniform(0.3, 0.9), 2))

    def set_lighting(self, kind: str) -> None:
        """Light the scene; a spotlight lands on a random spot (recipes may move it)."""
        rng = self.rng
        self.lighting = Lighting(
            kind=kind,
            spot_x=round(rng.uniform(0.3, 0.7), 2),
            spot_y=round(rng.uniform(0.35, 0.65), 2),
            spot_radius=round(rng.uniform(0.28, 0.4), 2),
        )

    def horizon(self) -> float | None:
        """Where the ground starts, for sky/ground backgrounds."""
        return self.background.horizon if self.background.kind == "sky_ground" else None

    # -- objects -----------------------------------------------------------------------------

    def color_for(self, category: str, exclude: Sequence[str] = ()) -> str:
        """A colour the category may have that differs from the background behind it."""
        allowed = NATURAL_COLORS.get(category, COLOR_NAMES)
        behind = {self.background.color, self.background.color2 or self.background.color}
        choices = [c for c in allowed if c not in exclude and c not in behind] or list(allowed)
        return self.rng.choice(choices)

    def size(self, scale: float = 1.0) -> float:
        """An object size for this difficulty."""
        lo, hi = self.profile.size
        return round(min(0.9, max(0.03, self.rng.uniform(lo, hi) * scale)), 3)

    def texture_for(self, category: str) -> str:
        """A pattern with the profile's probability, for categories that show one."""
        if category not in PATTERNED or self.rng.random() >= self.profile.texture:
            return "solid"
        return self.rng.choice(("striped", "dotted", "checkered"))

    def _zone(self, category: str) -> tuple[float, float, float]:
        """(lowest top, lowest bottom, highest bottom) for the object's box: sky things stay
        above the horizon, ground things stand on the ground, shapes go anywhere."""
        horizon = self.horizon()
        if horizon is None or category in SHAPES or category == "arrow":
            return 0.03, 0.0, 0.97
        if category in _SKY_THINGS:
            return 0.03, 0.0, horizon - 0.03
        return 0.03, horizon + 0.03, 0.97

    def boxes(self) -> list[Box]:
        """Boxes of the objects placed so far."""
        return [object_box(o, CANVAS, CANVAS) for o in self.objects]

    def place(self, category: str, **given: Any) -> int:
        """Add one object; unspecified attributes are sampled. Without an explicit position it
        is put where it overlaps nothing (``margin`` apart); raises Retry if there is no room."""
        margin = given.pop("margin", 0.03)
        avoid = given.pop("avoid", True)
        attrs: dict[str, Any] = {
            "category": category,
            "color": given.pop("color", None) or self.color_for(category),
            "size": given.pop("size", None) or self.size(),
            "texture": given.pop("texture", None) or self.texture_for(category),
            "depth": given.pop("depth", len(self.objects)),
            **given,
        }
        if category == "sign" and "text" not in attrs:
            attrs["text"] = self.sign_word()
        if "position" in attrs:
            obj = SceneObject(**attrs)
            if not _inside(object_box(obj, CANVAS, CANVAS)):
                raise Retry(f"{category} does not fit on the canvas")
            self.objects.append(obj)
            return len(self.objects) - 1
        top, low, bottom = self._zone(category)
        taken = self.boxes() if avoid else []
        for _ in range(80):
            obj = SceneObject(
                position=Position(
                    x=round(self.rng.uniform(0.05, 0.95), 3),
                    y=round(self.rng.uniform(0.05, 0.95), 3),
                ),
                **attrs,
            )
            box = object_box(obj, CANVAS, CANVAS)
            if not _inside(box) or box[1] < top or not low <= box[3] <= bottom:
                continue
            if all(_apart(box, other, margin) for other in taken):
                self.objects.append(obj)
                return len(self.objects) - 1
        raise Retry(f"no room for a {category}")

    def at(self, category: str, x: float, y: float, **given: Any) -> int:
        """Add an object centred at (x, y); Retry (draw the scene again) when a recipe's offset
        puts the centre off the canvas, rather than a validation error that ends the sample."""
        x, y = round(x, 3), round(y, 3)
        if not (0.0 <= x <= 1.0 and 0.0 <= y <= 1.0):
            raise Retry(f"a {category} centred at ({x}, {y}) is off the canvas")
        return self.place(category, position=Position(x=x, y=y), **given)

    def fill(
        self, pool: Sequence[str] | None = None, count: int | None = None, **given: Any
    ) -> list[int]:
        """Filler objects from ``pool`` (default: the theme's things); as many as the
        difficulty says unless ``count`` is given. Fillers that find no room are skipped."""
        things = list(pool or THEMES.get(self.theme, SHAPES))
        n = count if count is not None else self.rng.randint(*self.profile.fillers)
        added = []
        for _ in range(n):
            category = self.rng.choice(things)
            if category in ("sun", "moon") and any(
                o.category in ("sun", "moon") for o in self.objects
            ):
                continue  # one sky has one sun (or moon)
            try:
                added.append(self.place(category, **dict(given)))
            except Retry:
                continue
        return added

    def occlude(
        self, targets: Sequence[int] | None = None, pool: Sequence[str] | None = None
    ) -> None:
        """Partial occluders, each drawn in front of one target and covering about a quarter
        to a half of it, with the profile's probability per target."""
        things = list(pool or THEMES.get(self.theme, SHAPES))
        for index in list(targets if targets is not None else range(len(self.objects))):
            if self.rng.random() >= self.profile.occlusion:
                continue
            x0, y0, x1, y1 = object_box(self.objects[index], CANVAS, CANVAS)
            side = self.rng.choice((-1, 1))
            # centre the occluder inside the target, towards one edge: it covers a good part
            # of the target without swallowing it
            x = (x0 + x1) / 2 + side * (x1 - x0) / 2 * self.rng.uniform(0.45, 1.0)
            y = (y0 + y1) / 2 + (y1 - y0) * self.rng.uniform(-0.25, 0.25)
            top = max(o.depth for o in self.objects) + 1
            category = self.rng.choice([c for c in things if c not in _SKY_THINGS] or things)
            try:
                self.at(category, x, y, size=self.size(0.9), depth=top)
            except Retry:
                continue

    def _probe(self, category: str, size: float) -> Box:
        """Box of the object centred at (0.5, 0.5), to place it by its edges."""
        probe = SceneObject(
            category=category,
            color="red",
            position=Position(x=0.5, y=0.5),
            size=size,
        )
        return object_box(probe, CANVAS, CANVAS)

    def put_on(self, support: int, category: str, **given: Any) -> int:
        """Stand a new object on a table top or chair seat (drawn in front of it)."""
        base = self.objects[support]
        x0, y0, x1, y1 = object_box(base, CANVAS, CANVAS)
        surface = y0 + {"table": 0.0, "chair": 0.5}[base.category] * (y1 - y0)
        size = given.pop("size", None) or min(self.size(0.6), (y1 - y0) * 0.9)
        px0, _, px1, py1 = self._probe(category, size)
        half = (px1 - px0) / 2
        x = self.rng.uniform(x0 + half, x1 - half) if x1 - x0 > 2 * half else (x0 + x1) / 2
        y = surface + 0.004 - (py1 - 0.5)
        return self.at(category, x, y, size=size, depth=base.depth + 1, **given)

    def put_under(self, support: int, category: str, **given: Any) -> int:
        """Put a new object on the floor under a table or chair (behind its legs)."""
        base = self.objects[support]
        x0, y0, x1, y1 = object_box(base, CANVAS, CANVAS)
        size = given.pop("size", None) or min(0.45 * (y1 - y0), 0.5 * (x1 - x0))
        _, _, _, py1 = self._probe(category, size)
        return self.at(
            category,
            (x0 + x1) / 2,
            y1 - (py1 - 0.5) - 0.002,
            size=size,
            depth=base.depth - 1,
            **given,
        )

    def label(
        self, text: str, x: float, y: float, color: str = "black", size: float = 0.08
    ) -> None:
        """Add a free-floating text label."""
        self.labels.append(
            TextLabel(
                text=text,
                position=Position(x=x, y=y),
                color=color,
                size=size,
            )
        )

    def sign_word(self) -> str:
        """A word for a sign."""
        return self.rng.choice(_SIGN_WORDS)

    def build(self) -> SceneProgram:
        """The finished program (seeded for weather and clutter layouts)."""
        return SceneProgram(
            seed=self.rng.randrange(2**31),
            background=self.background,
            lighting=self.lighting,
            weather=self.weather,
            season=self.season,
            objects=self.objects,
            labels=self.labels,
        )


def _inside(box: Box) -> bool:
    return box[0] >= 0.01 and box[1] >= 0.01 and box[2] <= 0.99 and box[3] <= 0.99


def _apart(a: Box, b: Box, margin: float) -> bool:
    return (
        a[2] + margin <= b[0]
        or b[2] + margin <= a[0]
        or a[3] + margin <= b[1]
        or b[3] + margin <= a[1]
    )
