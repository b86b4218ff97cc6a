"""Basic understanding III: shapes, patterns and text."""

from __future__ import annotations

import random

from lvlmbench.scenes.palette import (
    COLOR_NAMES,
    SHAPES,
)
from lvlmbench.scenes.questions import Question, mc
from lvlmbench.scenes.recipes._common import (
    AskFn,
    BuildFn,
    Recipe,
    Scene,
    color_group,
    named,
)
from lvlmbench.scenes.recipes.basic import build_shapes
from lvlmbench.scenes.sampler import SceneBuilder
from lvlmbench.scenes.words import article

__all__ = ["RECIPES"]


# -- shapes, patterns and text ------------------------------------------------------------------


def _ask_shape(scene: Scene, rng: random.Random) -> Question | None:
    unique = [
        o
        for o in scene.facts.askable()
        if o.category in SHAPES and len(color_group(scene, o.color)) == 1
    ]
    if not unique:
        return None
    o = rng.choice(unique)
    others = [x.category for x in scene.facts.objects if x.category != o.category]
    return mc(
        f"What shape is the {o.color} object?",
        o.category,
        others,
        rng,
        fallback=list(SHAPES),
        evidence=[f"The {o.color} object is {article(o.category)} {o.category}."],
        subjects=[o.index],
    )


_PATTERN_WORDS = {
    "striped": "stripes",
    "dotted": "dots",
    "checkered": "a checkered pattern",
    "solid": "no pattern, it is plain",
}


def _build_texture(b: SceneBuilder) -> None:
    if b.rng.random() < 0.5:
        b.stage("shapes")
        pool: tuple[str, ...] = SHAPES
    else:
        b.stage("room")
        pool = ("ball", "cup", "chair")
    for _ in range(b.rng.randint(1, 2)):
        b.place(
            b.rng.choice(pool),
            size=b.size(1.3),
            texture=b.rng.choice(("striped", "dotted", "checkered", "solid")),
        )
    b.fill(pool)
    b.occlude()


def _ask_texture(scene: Scene, rng: random.Random) -> Question | None:
    options = []
    for o, label in named(scene, lambda o: o.visible >= 0.7 and o.area >= 0.01):
        if not any(word in label for word in ("striped", "dotted", "checkered")):
            options.append((o, label))
    if not options:
        return None
    o, label = rng.choice(options)
    correct = _PATTERN_WORDS[o.texture]
    wrong = [w for t, w in _PATTERN_WORDS.items() if t != o.texture]
    return mc(
        f"What pattern is on {label}?",
        correct,
        wrong,
        rng,
        evidence=[f"{label.capitalize()} has {correct}."],
        subjects=[o.index],
    )


_WORDS = (
    "STOP",
    "SLOW",
    "EXIT",
    "OPEN",
    "PARKING",
    "DANGER",
    "CLOSED",
    "SHOP",
    "CAFE",
    "PARK",
    "SCHOOL",
    "HOTEL",
    "BANK",
    "TAXI",
)
_NUMBERS = ("10", "20", "30", "40", "50", "60", "70", "80", "90", "25", "35", "45")


def _build_sign(numbers: bool) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage("street")
        text = b.rng.choice(_NUMBERS if numbers else _WORDS)
        color = b.rng.choice(("red", "blue", "green", "white", "yellow", "black"))
        b.place("sign", text=text, color=color, texture="solid", size=max(0.2, b.size(1.3)))
        b.fill(("house", "car", "tree", "person"))
        b.occlude([i for i, o in enumerate(b.objects) if o.category != "sign"])

    return build


def _ask_sign(numbers: bool) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        signs = named(
            scene,
            lambda o: o.text is not None and o.visible >= 0.95 and (o.text.isdigit() == numbers),
        )
        if not signs:
            return None
        o, label = rng.choice(signs)
        assert o.text is not None
        pool = _NUMBERS if numbers else _WORDS
        near = sorted(pool, key=lambda w: abs(len(w) - len(o.text or "")))
        kind = "number" if numbers else "word"
        label = label.split(" that says ")[0]
        return mc(
            f"What {kind} is written on {label}?",
            o.text,
            near[:6],
            rng,
            fallback=pool,
            evidence=[f"{label.capitalize()} says {o.text}."],
            subjects=[o.index],
        )

    return ask


_SIDES = {"triangle": 3, "square": 4, "diamond": 4, "pentagon": 5, "hexagon": 6}


def _build_sides(b: SceneBuilder) -> None:
    b.stage("shapes")
    colors = b.rng.sample([c for c in COLOR_NAMES if c != b.background.color], 4)
    for color in colors[: b.rng.randint(2, 4)]:
        b.place(b.rng.choice(tuple(_SIDES)), color=color, size=b.size(1.2), orientation=0)
    b.occlude()


def _ask_sides(scene: Scene, rng: random.Random) -> Question | None:
    unique = [
        o
        for o in scene.facts.askable()
        if o.category in _SIDES and o.visible >= 0.9 and len(color_group(scene, o.color)) == 1
    ]
    if not unique:
        return None
    o = rng.choice(unique)
    n = _SIDES[o.category]
    wrong = [str(k) for k in range(3, 9) if k != n]
    return mc(
        f"How many sides does the {o.color} shape have?",
        str(n),
        wrong,
        rng,
        evidence=[
            f"The {o.color} shape is {article(o.category)} {o.category}, which has {n} sides."
        ],
        subjects=[o.index],
    )


_LABEL_WORDS = ("SUN", "HELLO", "CAT", "TREE", "BOOK", "HAT", "FISH", "MOON", "DOG", "HOME")
_COLOR_WORDS = ("RED", "BLUE", "GREEN", "YELLOW", "PINK", "ORANGE", "PURPLE")


def _build_text_color(b: SceneBuilder) -> None:
    b.stage("shapes", lighting=False, weather=False)
    b.background = b.background.model_copy(
        update={"kind": "plain", "color": "white", "clutter": 0.0}
    )
    # Hard scenes write colour names in other colours (the Stroop effect).
    words = _COLOR_WORDS if b.difficulty == "hard" else _LABEL_WORDS
    n = {"easy": 2, "medium": 3, "hard": 4}[b.difficulty]
    colors = b.rng.sample([c for c in COLOR_NAMES if c not in ("white", "yellow")], n)
    for i, (word, color) in enumerate(zip(b.rng.sample(words, n), colors, strict=True)):
        if b.difficulty == "hard" and word.lower() == color:
            continue
        b.label(word, 0.5, 0.14 + i * (0.75 / max(1, n - 1)) if n > 1 else 0.5, color, 0.1)
    b.fill(SHAPES, count=b.rng.randint(*b.profile.fillers) // 3, size=0.08)


def _ask_text_color(scene: Scene, rng: random.Random) -> Question | None:
    if not scene.facts.labels:
        return None
    text, color, *_ = rng.choice(scene.facts.labels)
    preferred = [label[1] for label in scene.facts.labels]
    return mc(
        f'What colour is the word "{text}" written in?',
        color,
        preferred,
        rng,
        fallback=[c for c in COLOR_NAMES if c != "white"],
        evidence=[f'The word "{text}" is written in {color}.'],
    )


RECIPES: dict[str, Recipe] = {
    "shape naming": Recipe(build_shapes, _ask_shape),
    "texture recognition": Recipe(_build_texture, _ask_texture),
    "reading words": Recipe(_build_sign(False), _ask_sign(False)),
    "reading numbers": Recipe(_build_sign(True), _ask_sign(True)),
    "counting sides": Recipe(_build_sides, _ask_sides),
    "text colour": Recipe(_build_text_color, _ask_text_color),
}
