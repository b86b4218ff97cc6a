"""Basic understanding I: recognising objects and colours."""

from __future__ import annotations

import random

from lvlmbench.scenes.palette import (
    COLOR_NAMES,
    HOUSEHOLD,
    NATURAL,
    SHAPES,
    THINGS,
)
from lvlmbench.scenes.questions import Question, mc, tf
from lvlmbench.scenes.recipes._common import (
    AskFn,
    Recipe,
    Scene,
    absent,
    color_group,
    color_pools,
    countable,
    named,
    part_colors,
    scene_colors,
    stage_things,
)
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.words import article, count_phrase, noun, phrase, region_phrase

__all__ = ["RECIPES", "build_shapes"]


def _there(n: int, word: str) -> str:
    verb = "is" if n == 1 else "are"
    return f"There {verb} {count_phrase(n, word)} in the picture."


# -- object recognition ------------------------------------------------------------------------


def _build_things(b: SceneBuilder, themes: tuple[str, ...] = ("street", "park", "room")) -> None:
    stage_things(b, themes)
    b.fill(count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers))
    b.occlude()


def _which_present(pool: tuple[str, ...]) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        seen = [o for o in scene.facts.askable() if o.category in pool]
        if not seen:
            return None
        o = rng.choice(seen)
        return mc(
            "Which of these objects can be seen in the picture?",
            f"{article(o.category)} {o.category}",
            [f"{article(c)} {c}" for c in absent(scene, pool)],
            rng,
            fallback=[f"{article(c)} {c}" for c in absent(scene, THINGS)],
            evidence=[f"There is {phrase(o)} {region_phrase(o.region)}."],
            subjects=[o.index],
        )

    return ask


def _build_natural(b: SceneBuilder) -> None:
    b.stage(b.rng.choice(("park", "sky")))
    b.fill(
        ("tree", "flower", "sun", "cloud", "moon") if b.theme == "park" else None,
        count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers),
    )
    b.occlude()


def _build_person(b: SceneBuilder) -> None:
    stage_things(b, ("street", "park"))
    if b.rng.random() < 0.5:
        b.place("person", size=b.size(1.2))
    b.fill(("house", "car", "tree", "flower", "ball", "sign"))
    b.occlude()


def _ask_person(scene: Scene, rng: random.Random) -> Question | None:
    people = scene.facts.select("person")
    if people and not all(o.askable for o in people):
        return None
    evidence = _there(len(people), "person")
    return tf(
        "There is a person in this picture.",
        bool(people),
        evidence=[evidence],
        subjects=[o.index for o in people],
    )


def _ask_absent(scene: Scene, rng: random.Random) -> Question | None:
    present = sorted({o.category for o in scene.facts.askable() if o.category in THINGS})
    missing = absent(scene, THINGS)
    if len(present) < 3 or not missing:
        return None
    gone = rng.choice(missing)
    q = mc(
        "Which of these objects is NOT in the picture?",
        f"{article(gone)} {gone}",
        [f"{article(c)} {c}" for c in present],
        rng,
        evidence=[f"The picture shows no {noun(gone, 2)}."],
    )
    return q


def _build_central(b: SceneBuilder) -> None:
    stage_things(b)
    pool = [
        c
        for c in ("car", "house", "person", "tree", "chair", "table", "lamp", "ball")
        if b.theme != "room" or c in (*HOUSEHOLD, "ball", "person")
    ]
    category = b.rng.choice(pool)
    zone_y = 0.5 if b.horizon() is None else min(0.8, (b.horizon() or 0.5) + 0.12)
    b.at(category, 0.5, zone_y, size=b.size(1.2))
    b.fill()


def _ask_central(scene: Scene, rng: random.Random) -> Question | None:
    middle = [o for o in scene.facts.objects if abs(o.center[0] - 0.5) < 0.1]
    if len(middle) != 1 or not middle[0].askable:
        return None
    o = middle[0]
    others = [f"{article(x.category)} {x.category}" for x in scene.facts.objects if x is not o]
    return mc(
        "Which object is in the middle of the picture, halfway between the left and right edges?",
        f"{article(o.category)} {o.category}",
        others,
        rng,
        fallback=[f"{article(c)} {c}" for c in absent(scene)],
        evidence=[f"{phrase(o).capitalize()} stands in the middle of the picture."],
        subjects=[o.index],
    )


# -- colour ----------------------------------------------------------------------------------

_COLOR_OF = {
    "person": "the person's shirt",
    "tree": "the tree's leaves",
    "flower": "the flower's petals",
    "sign": "the sign's board",
    "house": "the walls of the house",
    "lamp": "the lamp shade",
}


def _ask_color_of(keep: tuple[str, ...]) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        options = named(scene, lambda o: o.category in keep, with_color=False)
        if not options:
            return None
        o, label = rng.choice(options)
        subject = _COLOR_OF.get(o.category, label)
        verb = "are" if subject.endswith(("leaves", "petals", "walls of the house")) else "is"
        preferred, fallback = color_pools(scene, o.color)
        return mc(
            f"What colour {verb} {subject}?",
            o.color,
            preferred,
            rng,
            fallback=fallback,
            evidence=[f"{subject.capitalize()} {verb} {o.color}."],
            subjects=[o.index],
        )

    return ask


def build_shapes(b: SceneBuilder, *, lighting: bool = True) -> None:
    b.stage("shapes", lighting=lighting)
    b.fill(SHAPES, count=b.rng.randint(2, 3) + b.rng.randint(*b.profile.fillers))
    b.occlude()


def _ask_by_color(scene: Scene, rng: random.Random) -> Question | None:
    shown = scene_colors(scene.program)
    candidates = []
    for o in scene.facts.askable():
        same = color_group(scene, o.color)
        in_parts = any(o.color in part_colors(scene.program, x.index) for x in scene.facts.objects)
        background = o.color in (scene.program.background.color, scene.program.background.color2)
        if len(same) == 1 and not in_parts and not background and o.color in shown:
            candidates.append(o)
    if not candidates:
        return None
    o = rng.choice(candidates)
    others = [f"the {x.category}" for x in scene.facts.objects if x.category != o.category]
    return mc(
        f"Which object is {o.color}?",
        f"the {o.category}",
        others,
        rng,
        fallback=[f"the {c}" for c in absent(scene)],
        evidence=[f"The only {o.color} object is {phrase(o)}."],
        subjects=[o.index],
    )


def _ask_presence(scene: Scene, rng: random.Random) -> Question | None:
    shown = scene_colors(scene.program)
    present = sorted({o.color for o in scene.facts.askable()})
    missing = [c for c in COLOR_NAMES if c not in shown and not color_group(scene, c)]
    if rng.random() < 0.5 and present:
        color = rng.choice(present)
        o = next(x for x in scene.facts.askable() if x.color == color)
        return tf(
            f"There is a {color} object in the picture.",
            True,
            evidence=[f"There is {phrase(o)}."],
            subjects=[o.index],
        )
    if not missing:
        return None
    color = rng.choice(missing)
    return tf(
        f"There is a {color} object in the picture.",
        False,
        evidence=[f"Nothing in the picture is {color}."],
    )


def _build_common_color(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False)
    main, *others = b.rng.sample([c for c in COLOR_NAMES if c != b.background.color], 3)
    for _ in range(b.rng.randint(3, 4)):
        b.place(b.rng.choice(SHAPES), color=main)
    for color in others:
        for _ in range(b.rng.randint(1, 2)):
            b.place(b.rng.choice(SHAPES), color=color)
    b.fill(SHAPES, count=b.rng.randint(*b.profile.fillers) // 2)


def _ask_common_color(scene: Scene, rng: random.Random) -> Question | None:
    counts = sorted(scene.facts.counts_by_color.items(), key=lambda kv: -kv[1])
    if not countable(scene, scene.facts.objects) or len(counts) < 2 or counts[0][1] <= counts[1][1]:
        return None
    color, n = counts[0]
    preferred, fallback = color_pools(scene, color)
    return mc(
        "Which colour do the most objects in the picture have?",
        color,
        preferred,
        rng,
        fallback=fallback,
        evidence=[
            f"{count_phrase(n, 'object').capitalize()} are {color}, more than any other colour."
        ],
    )


def _build_background(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False)
    b.background = b.background.model_copy(update={"kind": "plain", "color2": None})
    b.fill(SHAPES, count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers))


def _ask_background(scene: Scene, rng: random.Random) -> Question | None:
    color = scene.facts.scene.background
    if color is None:
        return None
    preferred, fallback = color_pools(scene, color)
    return mc(
        "What colour is the background of the picture?",
        color,
        preferred,
        rng,
        fallback=fallback,
        evidence=[f"The background is a plain pale {color}."],
    )


RECIPES: dict[str, Recipe] = {
    "everyday object identification": Recipe(_build_things, _which_present(THINGS)),
    "natural object identification": Recipe(_build_natural, _which_present(NATURAL)),
    "household item identification": Recipe(
        lambda b: _build_things(b, ("room",)), _which_present(HOUSEHOLD)
    ),
    "person detection": Recipe(_build_person, _ask_person, kind="tf"),
    "absent object detection": Recipe(_build_things, _ask_absent),
    "central object identification": Recipe(_build_central, _ask_central),
    "object colour naming": Recipe(
        lambda b: _build_things(b), _ask_color_of(tuple(c for c in THINGS if c != "sign"))
    ),
    "shape colour naming": Recipe(build_shapes, _ask_color_of(SHAPES)),
    "finding an object by colour": Recipe(_build_things, _ask_by_color),
    "colour presence": Recipe(build_shapes, _ask_presence, kind="tf"),
    "most common colour": Recipe(_build_common_color, _ask_common_color),
    "background colour": Recipe(_build_background, _ask_background),
}
