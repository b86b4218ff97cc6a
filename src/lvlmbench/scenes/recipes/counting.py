"""Basic understanding II: counting."""

from __future__ import annotations

import random

from lvlmbench.scenes.facts import ObjectFacts
from lvlmbench.scenes.palette import (
    SHAPES,
    THINGS,
)
from lvlmbench.scenes.questions import Question, count_options
from lvlmbench.scenes.recipes._common import (
    AskFn,
    BuildFn,
    Recipe,
    Scene,
    clearly,
    countable,
    shapes_only,
    stage_things,
)
from lvlmbench.scenes.recipes.basic import build_shapes
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.words import count_phrase, noun

__all__ = ["RECIPES"]


def _there(n: int, word: str) -> str:
    verb = "is" if n == 1 else "are"
    return f"There {verb} {count_phrase(n, word)} in the picture."


# -- counting ---------------------------------------------------------------------------------


def _build_count(pool: tuple[str, ...], themes: tuple[str, ...] | None = None) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        if themes is None:
            b.stage("shapes")
        else:
            stage_things(b, themes)
        target = b.rng.choice(pool)
        top = {"easy": 3, "medium": 5, "hard": 7}[b.difficulty]
        for _ in range(b.rng.randint(1, top)):
            b.place(target)
        b.fill(pool if themes is None else None)
        b.occlude()

    return build


def _count_question(
    scene: Scene, rng: random.Random, text: str, members: list[ObjectFacts], word: str
) -> Question:
    n = len(members)
    return Question(
        text=text,
        kind="mc",
        correct=str(n),
        distractors=count_options(n, rng),
        evidence=[_there(n, word)],
        subjects=[o.index for o in members],
    )


def _ask_count_category(pool: tuple[str, ...]) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        kinds = [c for c in sorted(scene.facts.counts_by_category) if c in pool]
        kinds = [c for c in kinds if countable(scene, scene.facts.select(c), c)]
        if not kinds:
            return None
        c = rng.choice(kinds)
        return _count_question(
            scene, rng, f"How many {noun(c, 2)} are there in the picture?", scene.facts.select(c), c
        )

    return ask


def _ask_count_color(scene: Scene, rng: random.Random) -> Question | None:
    bg = (scene.program.background.color, scene.program.background.color2)
    colors = [c for c in sorted(scene.facts.counts_by_color) if c not in bg]
    colors = [c for c in colors if countable(scene, scene.facts.select(color=c))]
    colors = [c for c in colors if clearly(scene, c)]
    if not colors or not shapes_only(scene):
        return None
    c = rng.choice(colors)
    return _count_question(
        scene,
        rng,
        f"How many {c} shapes are there in the picture?",
        scene.facts.select(color=c),
        f"{c} shape",
    )


def _build_count_all(b: SceneBuilder) -> None:
    # no occluders: a total is only exact when every shape can be seen
    b.stage("shapes")
    b.fill(SHAPES, count=b.rng.randint(2, 3) + b.rng.randint(*b.profile.fillers))


def _ask_count_all(scene: Scene, rng: random.Random) -> Question | None:
    if not shapes_only(scene) or not countable(scene, scene.facts.objects, "circle"):
        return None
    return _count_question(
        scene,
        rng,
        "How many shapes are there in the picture in total?",
        scene.facts.objects,
        "shape",
    )


def _ask_count_both(scene: Scene, rng: random.Random) -> Question | None:
    pairs = sorted({(o.color, o.category) for o in scene.facts.objects if o.category in SHAPES})
    pairs = [p for p in pairs if countable(scene, scene.facts.select(p[1], p[0]), p[1])]
    pairs = [p for p in pairs if clearly(scene, p[0], p[1])]
    pairs = [
        p
        for p in pairs
        if len(scene.facts.select(p[1])) > len(scene.facts.select(p[1], p[0]))
        or len(scene.facts.select(color=p[0])) > 1
    ]
    if not pairs:
        return None
    color, c = rng.choice(pairs)
    return _count_question(
        scene,
        rng,
        f"How many {color} {noun(c, 2)} are there?",
        scene.facts.select(c, color),
        f"{color} {c}",
    )


def _build_hidden_count(b: SceneBuilder) -> None:
    b.stage("shapes")
    target = b.rng.choice(SHAPES)
    members = [b.place(target, size=b.size(1.2)) for _ in range(b.rng.randint(2, 5))]
    others = [c for c in SHAPES if c != target and c not in ("circle",)]
    for index in members[: b.rng.randint(1, len(members))]:
        _, y0, x1, y1 = b.boxes()[index]
        try:
            b.at(b.rng.choice(others), x1, (y0 + y1) / 2, size=b.size(0.8), depth=50)
        except Exception:
            continue
    b.fill(SHAPES, count=b.rng.randint(*b.profile.fillers) // 2)


def _ask_hidden_count(scene: Scene, rng: random.Random) -> Question | None:
    kinds = []
    for c in sorted(scene.facts.counts_by_category):
        members = scene.facts.select(c)
        if countable(scene, members, c) and any(o.visible < 0.95 for o in members):
            kinds.append(c)
    if not kinds:
        return None
    c = rng.choice(kinds)
    members = scene.facts.select(c)
    q = _count_question(
        scene,
        rng,
        f"How many {noun(c, 2)} are there, counting any that are partly covered?",
        members,
        c,
    )
    hidden = sum(o.visible < 0.95 for o in members)
    return q.model_copy(
        update={
            "evidence": [
                *q.evidence,
                f"{count_phrase(hidden, c).capitalize()}"
                f" {'is' if hidden == 1 else 'are'} partly covered.",
            ]
        }
    )


RECIPES: dict[str, Recipe] = {
    "counting shapes of one kind": Recipe(_build_count(SHAPES), _ask_count_category(SHAPES)),
    "counting objects of one colour": Recipe(build_shapes, _ask_count_color),
    "counting everyday objects": Recipe(
        _build_count(
            ("car", "tree", "person", "house", "flower", "ball", "cup", "book", "chair"),
            ("street", "park", "room"),
        ),
        _ask_count_category(THINGS),
    ),
    "counting all shapes": Recipe(_build_count_all, _ask_count_all),
    "counting by colour and shape": Recipe(_build_count(SHAPES), _ask_count_both),
    "counting partially hidden objects": Recipe(_build_hidden_count, _ask_hidden_count),
}
