"""Reasoning capacity II: odd one out, sequences and rules."""

from __future__ import annotations

import random
from collections import Counter

from lvlmbench.scenes.palette import COLOR_NAMES, SHAPES
from lvlmbench.scenes.questions import Question, mc, tf
from lvlmbench.scenes.recipes._common import AskFn, BuildFn, Recipe, Scene, countable
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.words import count_phrase, noun

__all__ = ["RECIPES"]


def _build_odd(attribute: str) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage("shapes", lighting=attribute != "color")
        common, odd = b.rng.sample(SHAPES, 2)
        colors = [c for c in COLOR_NAMES if c != b.background.color]
        base, other = b.rng.sample(colors, 2)
        n = b.rng.randint(3, {"easy": 4, "medium": 5, "hard": 7}[b.difficulty])
        vary = b.difficulty == "hard"
        for _ in range(n):
            category = b.rng.choice(SHAPES) if vary and attribute == "color" else common
            color = b.rng.choice(colors) if vary and attribute == "shape" else base
            b.place(category, color=color, size=min(b.size(), 0.18))
        b.place(
            odd if attribute == "shape" else common,
            color=other if attribute == "color" else base,
            size=min(b.size(), 0.18),
        )

    return build


def _ask_odd(attribute: str) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        objects = scene.facts.objects
        values = Counter(o.category if attribute == "shape" else o.color for o in objects)
        if len(values) != 2 or not countable(scene, objects, "circle"):
            return None
        (common, n), (odd, k) = values.most_common()
        if k != 1 or n < 3:
            return None
        pool = list(SHAPES) if attribute == "shape" else list(COLOR_NAMES)
        if attribute == "shape":
            text = (
                "All the shapes but one are the same kind. What kind of shape is the odd one out?"
            )
            fact = f"All the shapes are {noun(common, 2)} except one {odd}."
        else:
            text = "All the shapes but one share a colour. What colour is the odd one out?"
            fact = f"All the shapes are {common} except one {odd} shape."
        return mc(text, odd, [common], rng, fallback=pool, evidence=[fact])

    return ask


def _build_sequence(attribute: str) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage("shapes", lighting=attribute != "color")
        period = b.rng.choice((2, 3)) if b.difficulty != "easy" else 2
        cycle_len = {"easy": 2, "medium": 2, "hard": 3}[b.difficulty]
        n = period * cycle_len + b.rng.randint(0, period - 1)
        kinds = b.rng.sample(SHAPES, period)
        colors = b.rng.sample([c for c in COLOR_NAMES if c != b.background.color], period)
        fixed_shape, fixed_color = b.rng.choice(SHAPES), colors[0]
        y = b.rng.uniform(0.3, 0.7)
        step = 0.84 / n
        size = min(0.8 * step, 0.16)
        for k in range(n):
            category = kinds[k % period] if attribute == "shape" else fixed_shape
            color = colors[k % period] if attribute == "color" else fixed_color
            b.at(category, 0.08 + step * (k + 0.5) - step / 2, y, color=color, size=size)
        b.label("?", 0.08 + step * (n + 0.5) - step / 2, y, "black", size * 0.9)

    return build


def _ask_sequence(attribute: str) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        row = sorted(scene.facts.objects, key=lambda o: o.center[0])
        marks = [label for label in scene.facts.labels if label[0] == "?"]
        if len(marks) != 1 or not row or marks[0][2] <= row[-1].box[2] or not countable(scene, row):
            return None
        seq = [o.category if attribute == "shape" else o.color for o in row]
        period = next(
            (
                p
                for p in range(2, len(seq) // 2 + 1)
                if all(seq[i] == seq[i - p] for i in range(p, len(seq)))
            ),
            None,
        )
        if period is None:
            return None
        answer = seq[len(seq) - period]
        pool = list(SHAPES) if attribute == "shape" else list(COLOR_NAMES)
        word = "kind of shape" if attribute == "shape" else "colour"
        cycle = ", ".join(seq[:period])
        return mc(
            f"The shapes in the row follow a repeating pattern. Which {word} should go where "
            "the question mark is?",
            answer,
            [s for s in seq if s != answer],
            rng,
            fallback=pool,
            evidence=[
                f"From left to right the row repeats {cycle}; the next one would be {answer}."
            ],
        )

    return ask


def _build_unique(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False)
    colors = b.rng.sample([c for c in COLOR_NAMES if c != b.background.color], 4)
    for color in colors[:-1]:
        for _ in range(b.rng.randint(2, 3)):
            b.place(b.rng.choice(SHAPES), color=color, size=min(b.size(), 0.16))
    b.place(b.rng.choice(SHAPES), color=colors[-1], size=min(b.size(), 0.16))


def _ask_unique(scene: Scene, rng: random.Random) -> Question | None:
    counts = scene.facts.counts_by_color
    once = [c for c, n in counts.items() if n == 1]
    if len(once) != 1 or not countable(scene, scene.facts.objects):
        return None
    many = [c for c, n in counts.items() if n > 1]
    return mc(
        "Which colour appears on exactly one shape?",
        once[0],
        many,
        rng,
        fallback=list(COLOR_NAMES),
        evidence=[f"Only one shape is {once[0]}; every other colour appears more than once."],
    )


def _build_rule(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False)
    target = b.rng.choice(SHAPES)
    color = b.color_for(target)
    n = b.rng.randint(2, 4)
    for k in range(n):
        tint = color if k or b.rng.random() < 0.5 else b.color_for(target, exclude=(color,))
        b.place(target, color=tint, size=min(b.size(), 0.2))
    b.fill([s for s in SHAPES if s != target], count=b.rng.randint(1, 3))


def _ask_rule(scene: Scene, rng: random.Random) -> Question | None:
    kinds = [
        c
        for c, n in scene.facts.counts_by_category.items()
        if n >= 2 and countable(scene, scene.facts.select(c), c)
    ]
    if not kinds:
        return None
    c = rng.choice(sorted(kinds))
    members = scene.facts.select(c)
    colors = Counter(o.color for o in members)
    color = colors.most_common(1)[0][0]
    truth = len(colors) == 1
    detail = ", ".join(count_phrase(n, f"{k} {c}") for k, n in sorted(colors.items()))
    return tf(
        f"All of the {noun(c, 2)} in the picture are {color}.",
        truth,
        evidence=[f"The {noun(c, 2)} are: {detail}."],
        subjects=[o.index for o in members],
    )


RECIPES: dict[str, Recipe] = {
    "odd one out by shape": Recipe(_build_odd("shape"), _ask_odd("shape")),
    "odd one out by colour": Recipe(_build_odd("color"), _ask_odd("color")),
    "next colour in a sequence": Recipe(_build_sequence("color"), _ask_sequence("color")),
    "next shape in a sequence": Recipe(_build_sequence("shape"), _ask_sequence("shape")),
    "unique element": Recipe(_build_unique, _ask_unique),
    "universal statements": Recipe(_build_rule, _ask_rule, kind="tf"),
}
