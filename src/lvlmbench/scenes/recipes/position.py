"""Spatial understanding I: relative position, and depth and occlusion."""

from __future__ import annotations

import math
import random

from lvlmbench.scenes.facts import ObjectFacts
from lvlmbench.scenes.palette import SHAPES
from lvlmbench.scenes.questions import Question, mc, tf
from lvlmbench.scenes.recipes._common import AskFn, BuildFn, Recipe, Scene, named
from lvlmbench.scenes.sampler import Retry, SceneBuilder

__all__ = ["RECIPES", "build_spread", "overlap_pair"]

_DIRECTIONS = ("left of", "right of", "above", "below")
_PHRASE = {
    "left of": "to the left of",
    "right of": "to the right of",
    "above": "above",
    "below": "below",
}


def build_spread(b: SceneBuilder) -> None:
    """Shapes scattered over the canvas (any theme's rules would pin things to the ground)."""
    b.stage("shapes")
    b.fill(SHAPES, count=b.rng.randint(3, 4) + b.rng.randint(*b.profile.fillers))
    b.occlude()


def _build_pair(axis: str) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage("shapes")
        a, c = b.rng.sample(SHAPES, 2)
        u, v = b.rng.uniform(0.2, 0.35), b.rng.uniform(0.65, 0.8)
        w = b.rng.uniform(0.3, 0.7)
        first, second = ((u, w), (v, w + b.rng.uniform(-0.05, 0.05)))
        if axis == "y":
            first, second = (first[1], first[0]), (second[1], second[0])
        b.at(a, *first)
        b.at(c, *second)
        b.fill(SHAPES)
        b.occlude()

    return build


def _ask_direction(axis: str) -> AskFn:
    wanted = ("left of", "right of") if axis == "x" else ("above", "below")

    def ask(scene: Scene, rng: random.Random) -> Question | None:
        people = named(scene)
        pairs = [
            (a, na, b, nb)
            for a, na in people
            for b, nb in people
            if a.index != b.index and scene.facts.direction(a.index, b.index) in wanted
        ]
        if not pairs:
            return None
        a, na, b, nb = rng.choice(pairs)
        rel = scene.facts.direction(a.index, b.index)
        assert rel is not None
        options = [f"{_PHRASE[r]} {nb}" for r in _DIRECTIONS]
        correct = f"{_PHRASE[rel]} {nb}"
        return mc(
            f"Where is {na} compared with {nb}?",
            correct,
            options,
            rng,
            evidence=[f"{na.capitalize()} is {correct}."],
            subjects=[a.index, b.index],
        )

    return ask


_QUADRANTS = ("top left", "top right", "bottom left", "bottom right")


def _ask_quadrant(scene: Scene, rng: random.Random) -> Question | None:
    found = []
    for o, label in named(scene):
        x0, y0, x1, y1 = o.box
        if (x1 < 0.44 or x0 > 0.56) and (y1 < 0.44 or y0 > 0.56):
            quadrant = ("top" if y1 < 0.5 else "bottom") + (" left" if x1 < 0.5 else " right")
            found.append((o, label, quadrant))
    if not found:
        return None
    o, label, quadrant = rng.choice(found)
    return mc(
        f"In which part of the picture is {label}?",
        f"the {quadrant}",
        [f"the {q}" for q in _QUADRANTS],
        rng,
        evidence=[f"{label.capitalize()} is in the {quadrant} of the picture."],
        subjects=[o.index],
    )


def _extreme_question(scene: Scene, rng: random.Random, axis: int, low: bool) -> Question | None:
    """The object clearly furthest left/right (axis 0) or highest/lowest (axis 1)."""
    objects = scene.facts.objects
    if len(objects) < 4:
        return None
    sign = 1.0 if low else -1.0

    def edge(o: ObjectFacts) -> float:
        """The box edge facing the end asked about (left/top edge for the low end)."""
        return o.box[axis] if low else -o.box[axis + 2]

    def centre(o: ObjectFacts) -> float:
        return sign * o.center[axis]

    ranked = sorted(objects, key=edge)
    first, second = ranked[0], ranked[1]
    if edge(second) - edge(first) < 0.05 or min(objects, key=centre) is not first:
        return None
    labels = dict((o.index, label) for o, label in named(scene))
    if first.index not in labels:
        return None
    words = {
        (0, True): "furthest to the left",
        (0, False): "furthest to the right",
        (1, True): "highest up",
        (1, False): "lowest down",
    }[(axis, low)]
    others = [label for i, label in labels.items() if i != first.index]
    return mc(
        f"Which object is {words} in the picture?",
        labels[first.index],
        others,
        rng,
        evidence=[f"{labels[first.index].capitalize()} is {words} of all the objects."],
        subjects=[first.index],
    )


def _ask_extreme(axis: int) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        return _extreme_question(scene, rng, axis, rng.random() < 0.5)

    return ask


def _build_between(b: SceneBuilder) -> None:
    b.stage("shapes")
    y = b.rng.uniform(0.25, 0.75)
    for x, category in zip((0.18, 0.5, 0.82), b.rng.sample(SHAPES, 3), strict=True):
        size = min(0.2, b.size(0.9))
        b.at(category, x + b.rng.uniform(-0.03, 0.03), y + b.rng.uniform(-0.04, 0.04), size=size)
    b.fill(SHAPES, count=2 + b.rng.randint(*b.profile.fillers), size=min(0.2, b.size(0.9)))
    b.occlude()


def _ask_between(scene: Scene, rng: random.Random) -> Question | None:
    facts = scene.facts
    people = named(scene)
    triples = []
    for a, na in people:
        for c, nc in people:
            if not facts.holds(a.index, "left of", c.index):
                continue
            for b, nb in people:
                if not facts.holds(c.index, "left of", b.index):
                    continue
                inside = [
                    o
                    for o in facts.objects
                    if o.box[0] > a.box[2]
                    and o.box[2] < b.box[0]
                    and o.box[1] < a.box[3]
                    and o.box[3] > a.box[1]
                ]
                if [o.index for o in inside] == [c.index]:
                    triples.append((na, c, nc, nb))
    if not triples:
        return None
    na, c, nc, nb = rng.choice(triples)
    others = [label for o, label in people if label not in (na, nb, nc)]
    return mc(
        f"Which object is between {na} and {nb}?",
        nc,
        others,
        rng,
        fallback=[na, nb],
        evidence=[f"{nc.capitalize()} is between {na} and {nb}."],
        subjects=[c.index],
    )


# -- depth and occlusion ----------------------------------------------------------------------


def overlap_pair(b: SceneBuilder, back: str, front: str, cover: float = 0.45) -> tuple[int, int]:
    """Two shapes where ``front`` covers roughly ``cover`` of ``back``'s width."""
    x, y = b.rng.uniform(0.3, 0.7), b.rng.uniform(0.3, 0.7)
    size = b.size(1.3)
    i = b.at(back, x, y, size=size)
    dx = size * (1 - cover) * b.rng.choice((-1, 1))
    j = b.at(front, x + dx, y + b.rng.uniform(-0.3, 0.3) * size, size=b.size(1.2), depth=40)
    return i, j


def _build_overlaps(b: SceneBuilder) -> None:
    b.stage("shapes")
    for _ in range(b.rng.randint(1, 2)):
        try:
            back, front = b.rng.sample(SHAPES, 2)
            overlap_pair(b, back, front)
        except Retry:
            continue
    if not b.objects:
        raise Retry("no overlapping pair")
    b.fill(SHAPES, count=b.rng.randint(2, 3) + b.rng.randint(*b.profile.fillers))


def _overlapping(scene: Scene) -> list[tuple[ObjectFacts, str, ObjectFacts, str]]:
    people = named(scene)
    return [
        (a, na, b, nb)
        for a, na in people
        for b, nb in people
        if scene.facts.holds(a.index, "in front of", b.index)
    ]


def _ask_front(scene: Scene, rng: random.Random) -> Question | None:
    pairs = _overlapping(scene)
    if not pairs:
        return None
    a, na, b, nb = rng.choice(pairs)
    truth = rng.random() < 0.5
    x, y = (na, nb) if truth else (nb, na)
    return tf(
        f"{x[0].upper()}{x[1:]} is in front of {y}, covering part of it.",
        truth,
        evidence=[f"{na.capitalize()} is in front of {nb} and covers part of it."],
        subjects=[a.index, b.index],
    )


def _ask_hidden(scene: Scene, rng: random.Random) -> Question | None:
    found = []
    for a, na, b, nb in _overlapping(scene):
        hidden = [o for o in scene.facts.objects if a.index in o.occluded_by and o.visible < 0.97]
        if [o.index for o in hidden] == [b.index]:
            found.append((a, na, b, nb))
    if not found:
        return None
    a, na, b, nb = rng.choice(found)
    others = [label for o, label in named(scene) if o.index not in (a.index, b.index)]
    return mc(
        f"Which object is partly hidden behind {na}?",
        nb,
        others,
        rng,
        evidence=[f"{nb.capitalize()} is partly hidden behind {na}."],
        subjects=[b.index, a.index],
    )


def _ask_occluder(scene: Scene, rng: random.Random) -> Question | None:
    found = [
        (a, na, b, nb)
        for a, na, b, nb in _overlapping(scene)
        if b.occluded_by == [a.index] and b.visible < 0.97
    ]
    if not found:
        return None
    a, na, b, nb = rng.choice(found)
    others = [label for o, label in named(scene) if o.index not in (a.index, b.index)]
    return mc(
        f"Which object covers part of {nb}?",
        na,
        others,
        rng,
        evidence=[f"{na.capitalize()} covers part of {nb}."],
        subjects=[a.index, b.index],
    )


def _build_stack(b: SceneBuilder) -> None:
    """Three or four shapes around one centre, each pushed out in its own direction: every
    pair overlaps, and every shape keeps an uncovered lobe on the outside."""
    b.stage("shapes")
    n = {"easy": 3, "medium": 3, "hard": 4}[b.difficulty]
    size = b.rng.uniform(0.2, 0.26)
    x, y = b.rng.uniform(0.4, 0.6), b.rng.uniform(0.4, 0.6)
    turn = b.rng.uniform(0, 2 * math.pi)
    depths = b.rng.sample(range(10, 10 + n), n)
    for k, category in enumerate(b.rng.sample(SHAPES, n)):
        angle = turn + 2 * math.pi * k / n
        b.at(
            category,
            x + 0.36 * size * math.cos(angle),
            y + 0.36 * size * math.sin(angle),
            size=size,
            depth=depths[k],
        )
    b.fill(SHAPES, count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers) // 2)


def _ask_stack(front: bool) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        facts = scene.facts
        pile = [
            o
            for o in facts.objects
            if sum(facts.holds(o.index, "overlaps", p.index) for p in facts.objects) >= 2
        ]
        clique = all(
            facts.holds(a.index, "overlaps", b.index) for a in pile for b in pile if a is not b
        )
        if len(pile) < 3 or not clique:
            return None
        target = max(pile, key=lambda o: o.rank) if front else min(pile, key=lambda o: o.rank)
        labels = dict((o.index, label) for o, label in named(scene))
        if target.index not in labels:
            return None
        others = [labels[o.index] for o in pile if o is not target and o.index in labels]
        fallback = [label for i, label in labels.items() if i != target.index]
        where = "in front of all the others" if front else "behind all the others"
        return mc(
            f"In the pile of overlapping shapes, which one is {where}?",
            labels[target.index],
            others,
            rng,
            fallback=fallback,
            evidence=[f"In the pile of overlapping shapes, {labels[target.index]} is {where}."],
            subjects=[target.index],
        )

    return ask


def _ask_partly(scene: Scene, rng: random.Random) -> Question | None:
    facts = scene.facts
    hidden = [(o, n) for o, n in named(scene) if o.visible <= 0.93 and o.occluded_by]
    clear = [
        (o, n)
        for o, n in named(scene)
        if o.visible >= 0.999
        and not any(facts.holds(o.index, "overlaps", p.index) for p in facts.objects)
    ]
    truth = rng.random() < 0.5
    pool = hidden if truth else clear
    if not pool:
        return None
    o, label = rng.choice(pool)
    fact = "partly hidden by another object" if truth else "fully visible; nothing covers it"
    return tf(
        f"{label[0].upper()}{label[1:]} is partly hidden by another object.",
        truth,
        evidence=[f"{label.capitalize()} is {fact}."],
        subjects=[o.index],
    )


RECIPES: dict[str, Recipe] = {
    "left and right": Recipe(_build_pair("x"), _ask_direction("x")),
    "above and below": Recipe(_build_pair("y"), _ask_direction("y")),
    "position in the frame": Recipe(build_spread, _ask_quadrant),
    "leftmost and rightmost": Recipe(build_spread, _ask_extreme(0)),
    "topmost and bottommost": Recipe(build_spread, _ask_extreme(1)),
    "betweenness": Recipe(_build_between, _ask_between),
    "in front or behind": Recipe(_build_overlaps, _ask_front, kind="tf"),
    "identifying hidden objects": Recipe(_build_overlaps, _ask_hidden),
    "identifying the occluder": Recipe(_build_overlaps, _ask_occluder),
    "front of a stack": Recipe(_build_stack, _ask_stack(True)),
    "back of a stack": Recipe(_build_stack, _ask_stack(False)),
    "partial visibility": Recipe(_build_overlaps, _ask_partly, kind="tf"),
}
