"""What every recipe shares: the recipe type, naming, colour pools and visibility checks."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from lvlmbench.scenes.facts import ObjectFacts, SceneFacts
from lvlmbench.scenes.geometry import place_parts
from lvlmbench.scenes.palette import (
    CATEGORIES,
    COLOR_NAMES,
    COLORS,
    CONFUSABLE,
    SHAPES,
    THINGS,
    nearest_color,
    shade,
)
from lvlmbench.scenes.questions import Question
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.schema import SceneProgram
from lvlmbench.scenes.words import dim, name, same_color

__all__ = [
    "LOOKALIKES",
    "AskFn",
    "BuildFn",
    "Recipe",
    "Scene",
    "absent",
    "clearly",
    "color_group",
    "color_pools",
    "countable",
    "low_light",
    "named",
    "part_colors",
    "scene_colors",
    "shapes_only",
    "stage_things",
]


@dataclass(frozen=True)
class Scene:
    """A sampled program and its facts, as a question writer sees them."""

    program: SceneProgram
    facts: SceneFacts


AskFn = Callable[[Scene, random.Random], Question | None]
BuildFn = Callable[[SceneBuilder], None]


@dataclass(frozen=True)
class Recipe:
    """How to sample scenes for one fine-grained aspect and what to ask about them."""

    build: BuildFn
    ask: AskFn
    kind: Literal["mc", "tf"] = "mc"
    """What ``ask`` writes: a multiple-choice question or a true/false statement (known before
    any scene is drawn, so the key plan can give a true/false unit its truth value first)."""


LOOKALIKES: dict[str, tuple[str, ...]] = {
    "circle": ("ball", "sun"),
    "ball": ("circle",),
    "sun": ("circle",),
    "square": ("book", "sign"),
    "triangle": ("house",),
}
"""Categories a person might count as the other, so counts of one avoid scenes with both."""


def low_light(scene: Scene) -> bool:
    """Dusk, night, spotlight or fog: colours are harder to read."""
    return dim(scene.facts)


def color_group(scene: Scene, color: str, category: str | None = None) -> list[ObjectFacts]:
    """Objects (of ``category``) a viewer could take to be ``color``: the same colour, and in
    dim scenes the colours easily confused with it too."""
    return [
        o
        for o in scene.facts.objects
        if (category is None or o.category == category) and same_color(scene.facts, color, o.color)
    ]


def clearly(scene: Scene, color: str, category: str | None = None) -> bool:
    """Whether the objects of ``color`` (and ``category``) are told apart from the rest by
    colour alone in this light."""
    exact = scene.facts.select(category, color)
    return len(color_group(scene, color, category)) == len(exact)


def named(
    scene: Scene,
    keep: Callable[[ObjectFacts], bool] = lambda o: True,
    *,
    with_color: bool = True,
) -> list[tuple[ObjectFacts, str]]:
    """Askable objects that ``keep`` accepts, with the unique phrase that names each."""
    out = []
    for o in scene.facts.objects:
        if not o.askable or not keep(o):
            continue
        phrase = name(scene.facts, o, with_color=with_color)
        if phrase is not None:
            out.append((o, phrase))
    return out


def part_colors(program: SceneProgram, index: int) -> set[str]:
    """Palette names of the non-body parts of an object (a car's tyres, a flower's centre),
    which a person may also call that object's colours."""
    obj = program.objects[index]
    out = set()
    for part in place_parts(obj, 1.0, 1.0):
        if not part.is_body:
            rgb = part.color or shade(COLORS[obj.color], part.shade)
            out.add(nearest_color(rgb))
    return out


def scene_colors(program: SceneProgram) -> set[str]:
    """Every palette colour that shows anywhere: objects, their parts, the background."""
    out: set[str] = {o.color for o in program.objects} | {label.color for label in program.labels}
    for i in range(len(program.objects)):
        out |= part_colors(program, i)
    bg = program.background
    out |= {bg.color, bg.color2 or bg.color}
    return out


def color_pools(scene: Scene, correct: str) -> tuple[list[str], list[str]]:
    """(preferred, fallback) distractor colours: colours of other objects first, then the
    rest of the palette; in dim scenes colours easily confused with ``correct`` are left out."""
    banned = set(CONFUSABLE[correct]) if low_light(scene) else set()
    present = [o.color for o in scene.facts.objects if o.color not in banned]
    rest = [c for c in COLOR_NAMES if c not in banned]
    return present, rest


def absent(scene: Scene, pool: Iterable[str] = THINGS) -> list[str]:
    """Categories from ``pool`` that appear nowhere in the scene."""
    present = set(scene.facts.counts_by_category)
    return [c for c in pool if c not in present and c in CATEGORIES]


def countable(scene: Scene, members: Sequence[ObjectFacts], category: str | None = None) -> bool:
    """Whether a count over ``members`` is exact to the eye: every member visible enough and
    no look-alike category (a ball among circles) in the picture."""
    if not all(o.askable for o in members):
        return False
    similar = LOOKALIKES.get(category, ()) if category is not None else ()
    return not any(scene.facts.select(c) for c in similar)


def stage_things(b: SceneBuilder, themes: Sequence[str] = ("street", "park", "room")) -> str:
    """Stage one of the thing themes and return it."""
    theme = b.rng.choice(list(themes))
    b.stage(theme)
    return theme


def shapes_only(scene: Scene) -> bool:
    """Whether every object is a geometric shape."""
    return all(o.category in SHAPES for o in scene.facts.objects)
