"""Reasoning capacity I: arithmetic on counts and comparisons."""

from __future__ import annotations

import random

from lvlmbench.scenes.facts import ObjectFacts
from lvlmbench.scenes.palette import COLOR_NAMES, SHAPES
from lvlmbench.scenes.questions import Question, count_options, mc, tf
from lvlmbench.scenes.recipes._common import (
    AskFn,
    BuildFn,
    Recipe,
    Scene,
    countable,
    named,
    stage_things,
)
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.words import count_phrase, noun

__all__ = ["RECIPES", "counted_kinds"]

_SIDES = {"triangle": 3, "square": 4, "diamond": 4, "pentagon": 5, "hexagon": 6}


def _there(n: int, word: str) -> str:
    return f"There {'is' if n == 1 else 'are'} {count_phrase(n, word)}."


def _build_groups(equal: bool = False, pool: tuple[str, ...] = SHAPES) -> BuildFn:
    """Two kinds of shape in small countable numbers, plus a few others."""

    def build(b: SceneBuilder) -> None:
        b.stage("shapes")
        top = {"easy": 3, "medium": 4, "hard": 5}[b.difficulty]
        first, second = b.rng.sample(pool, 2)
        n1 = b.rng.randint(1, top)
        n2 = n1 if equal and b.rng.random() < 0.5 else b.rng.randint(1, top)
        for category, n in ((first, n1), (second, n2)):
            for _ in range(n):
                b.place(category, size=min(b.size(), 0.2))
        rest = [s for s in SHAPES if s not in (first, second)]
        b.fill(rest, count=b.rng.randint(*b.profile.fillers) // 2, size=min(b.size(), 0.2))

    return build


def counted_kinds(scene: Scene, pool: tuple[str, ...] = SHAPES) -> list[str]:
    """Categories present whose members can all be counted exactly."""
    kinds = [c for c in sorted(scene.facts.counts_by_category) if c in pool]
    return [c for c in kinds if countable(scene, scene.facts.select(c), c)]


def _ask_sum(scene: Scene, rng: random.Random) -> Question | None:
    kinds = counted_kinds(scene)
    if len(kinds) < 2:
        return None
    c1, c2 = rng.sample(kinds, 2)
    n1, n2 = len(scene.facts.select(c1)), len(scene.facts.select(c2))
    return Question(
        text=f"How many {noun(c1, 2)} and {noun(c2, 2)} are there altogether?",
        kind="mc",
        correct=str(n1 + n2),
        distractors=count_options(n1 + n2, rng),
        evidence=[_there(n1, c1), _there(n2, c2)],
    )


def _ask_difference(scene: Scene, rng: random.Random) -> Question | None:
    kinds = counted_kinds(scene)
    pairs = [
        (a, b)
        for a in kinds
        for b in kinds
        if len(scene.facts.select(a)) > len(scene.facts.select(b))
    ]
    if not pairs:
        return None
    c1, c2 = rng.choice(pairs)
    n1, n2 = len(scene.facts.select(c1)), len(scene.facts.select(c2))
    return Question(
        text=f"How many more {noun(c1, 2)} than {noun(c2, 2)} are there?",
        kind="mc",
        correct=str(n1 - n2),
        distractors=count_options(n1 - n2, rng),
        evidence=[_there(n1, c1), _there(n2, c2)],
    )


def _build_colors(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False)
    colors = b.rng.sample([c for c in COLOR_NAMES if c != b.background.color], 3)
    for color in colors:
        for _ in range(b.rng.randint(1, {"easy": 2, "medium": 3, "hard": 4}[b.difficulty])):
            b.place(b.rng.choice(SHAPES), color=color, size=min(b.size(), 0.2))


def _ask_removal(scene: Scene, rng: random.Random) -> Question | None:
    objects = scene.facts.objects
    if not countable(scene, objects, "circle") or any(o.category not in SHAPES for o in objects):
        return None
    color = rng.choice(sorted(scene.facts.counts_by_color))
    removed = scene.facts.counts_by_color[color]
    left = len(objects) - removed
    return Question(
        text=f"If every {color} shape were taken away, how many shapes would be left?",
        kind="mc",
        correct=str(left),
        distractors=count_options(left, rng),
        evidence=[_there(len(objects), "shape"), _there(removed, f"{color} shape")],
    )


def _ask_corners(scene: Scene, rng: random.Random) -> Question | None:
    kinds = [c for c in counted_kinds(scene, tuple(_SIDES))]
    if not kinds:
        return None
    c = rng.choice(kinds)
    n, sides = len(scene.facts.select(c)), _SIDES[c]
    total = n * sides
    near = [total - sides, total + sides, total + 2 * sides, total - 1, total + 1]
    wrong = [str(k) for k in near if k > 0 and k != total]
    return mc(
        f"How many corners do all the {noun(c, 2)} have altogether?",
        str(total),
        wrong[:3],
        rng,
        fallback=wrong[3:],
        evidence=[_there(n, c), f"Each {c} has {sides} corners."],
    )


def _ask_parity(scene: Scene, rng: random.Random) -> Question | None:
    kinds = counted_kinds(scene)
    if not kinds:
        return None
    c = rng.choice(kinds)
    n = len(scene.facts.select(c))
    return tf(
        f"The number of {noun(c, 2)} in the picture is even.", n % 2 == 0, evidence=[_there(n, c)]
    )


def _ask_equal(scene: Scene, rng: random.Random) -> Question | None:
    kinds = counted_kinds(scene)
    if len(kinds) < 2:
        return None
    counts = {c: len(scene.facts.select(c)) for c in kinds}
    equal = [(a, b) for a in kinds for b in kinds if a < b and counts[a] == counts[b]]
    unequal = [(a, b) for a in kinds for b in kinds if a < b and counts[a] != counts[b]]
    pool = equal if equal and rng.random() < 0.5 else unequal
    if not pool:
        return None
    c1, c2 = rng.choice(pool)
    return tf(
        f"There are exactly as many {noun(c1, 2)} as {noun(c2, 2)}.",
        counts[c1] == counts[c2],
        evidence=[_there(counts[c1], c1), _there(counts[c2], c2)],
    )


# -- comparison -------------------------------------------------------------------------------


def _ask_more(scene: Scene, rng: random.Random) -> Question | None:
    kinds = counted_kinds(scene, tuple(scene.facts.counts_by_category))
    counts = {c: len(scene.facts.select(c)) for c in kinds}
    pairs = [(a, b) for a in kinds for b in kinds if counts[a] != counts[b]]
    if not pairs:
        return None
    c1, c2 = rng.choice(pairs)
    return tf(
        f"There are more {noun(c1, 2)} than {noun(c2, 2)} in the picture.",
        counts[c1] > counts[c2],
        evidence=[_there(counts[c1], c1), _there(counts[c2], c2)],
    )


def _build_majority(b: SceneBuilder) -> None:
    b.stage("shapes")
    kinds = b.rng.sample(SHAPES, 3)
    counts = sorted(b.rng.sample(range(1, 6), 3), reverse=True)
    for category, n in zip(kinds, counts, strict=True):
        for _ in range(n):
            b.place(category, size=min(b.size(), 0.18))


def _ask_majority(scene: Scene, rng: random.Random) -> Question | None:
    kinds = counted_kinds(scene)
    counts = sorted(((len(scene.facts.select(c)), c) for c in kinds), reverse=True)
    if len(kinds) != len(scene.facts.counts_by_category) or len(counts) < 2:
        return None
    if counts[0][0] <= counts[1][0]:
        return None
    n, c = counts[0]
    return mc(
        "Which kind of shape appears most often in the picture?",
        noun(c, 2),
        [noun(k, 2) for _, k in counts[1:]],
        rng,
        fallback=[noun(s, 2) for s in SHAPES],
        evidence=[_there(n, c) + " No other kind of shape appears as often."],
    )


def _build_sizes(b: SceneBuilder) -> None:
    b.stage("shapes")
    for scale in b.rng.sample((0.5, 0.8, 1.0, 1.3, 1.7), b.rng.randint(3, 5)):
        b.place(b.rng.choice(SHAPES), size=round(0.12 * scale + b.rng.uniform(-0.01, 0.01), 3))
    b.fill(SHAPES, count=b.rng.randint(*b.profile.fillers) // 2, size=0.1)


def _ask_bigger(scene: Scene, rng: random.Random) -> Question | None:
    # "the smaller star is bigger than ..." would be a riddle, not a size question
    people = [
        (o, n)
        for o, n in named(scene)
        if o.visible >= 0.9 and "smaller" not in n and "larger" not in n
    ]
    pairs = [(a, na, b, nb) for a, na in people for b, nb in people if a.area >= 1.8 * b.area]
    if not pairs:
        return None
    a, na, b, nb = rng.choice(pairs)
    truth = rng.random() < 0.5
    x, y = (na, nb) if truth else (nb, na)
    return tf(
        f"{x[0].upper()}{x[1:]} is bigger than {y}.",
        truth,
        evidence=[f"{na.capitalize()} is clearly bigger than {nb}."],
        subjects=[a.index, b.index],
    )


def _extreme_size(scene: Scene, rng: random.Random, key: str, largest: bool) -> Question | None:
    objects = scene.facts.objects
    if len(objects) < 4 or not all(o.visible >= 0.9 for o in objects):
        return None

    def measure(o: ObjectFacts) -> float:
        return o.area if key == "area" else o.height

    ranked = sorted(objects, key=measure, reverse=largest)
    first, second = measure(ranked[0]), measure(ranked[1])
    ratio = 1.5 if key == "area" else 1.3
    if (largest and first < ratio * second) or (not largest and second < ratio * first):
        return None
    labels = dict((o.index, n) for o, n in named(scene))
    target = ranked[0]
    if target.index not in labels:
        return None
    word = {"area": "largest" if largest else "smallest", "height": "tallest"}[key]
    others = [n for i, n in labels.items() if i != target.index]
    return mc(
        f"Which object is the {word} in the picture?",
        labels[target.index],
        others,
        rng,
        evidence=[f"{labels[target.index].capitalize()} is clearly the {word} object."],
        subjects=[target.index],
    )


def _ask_size(key: str, largest: bool = True) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        return _extreme_size(scene, rng, key, largest)

    return ask


def _build_heights(b: SceneBuilder) -> None:
    stage_things(b, ("street", "park"))
    for scale in b.rng.sample((0.5, 0.8, 1.1, 1.5), 3):
        b.place(
            b.rng.choice(("tree", "person", "house", "sign", "flower")), size=round(0.16 * scale, 3)
        )
    b.fill(("flower", "ball"), count=1, size=0.08)


RECIPES: dict[str, Recipe] = {
    "adding counts": Recipe(_build_groups(), _ask_sum),
    "difference of counts": Recipe(_build_groups(), _ask_difference),
    "counting after removal": Recipe(_build_colors, _ask_removal),
    "total corners": Recipe(_build_groups(pool=tuple(_SIDES)), _ask_corners),
    "odd or even": Recipe(_build_groups(), _ask_parity, kind="tf"),
    "equal groups": Recipe(_build_groups(equal=True), _ask_equal, kind="tf"),
    "more or fewer": Recipe(_build_groups(), _ask_more, kind="tf"),
    "most numerous kind": Recipe(_build_majority, _ask_majority),
    "size comparison": Recipe(_build_sizes, _ask_bigger, kind="tf"),
    "largest object": Recipe(_build_sizes, _ask_size("area", True)),
    "smallest object": Recipe(_build_sizes, _ask_size("area", False)),
    "tallest object": Recipe(_build_heights, _ask_size("height")),
}
