"""Semantic understanding II: relationships between objects, categories and symbols."""

from __future__ import annotations

import random

from lvlmbench.scenes.facts import ObjectFacts
from lvlmbench.scenes.palette import LIVING, NATURAL, SHAPES
from lvlmbench.scenes.questions import Question, count_options, mc, tf
from lvlmbench.scenes.recipes._common import AskFn, BuildFn, Recipe, Scene, absent, countable, named
from lvlmbench.scenes.recipes.semantic import a
from lvlmbench.scenes.sampler import Retry, SceneBuilder
from lvlmbench.scenes.semantics import SIGNS, held_by
from lvlmbench.scenes.words import count_phrase

__all__ = ["RECIPES"]

_SMALL = ("cup", "book", "lamp", "ball")


def _build_table(b: SceneBuilder, on: int, under: int, chair: bool = False) -> None:
    """A room with a table (and maybe a chair), ``on`` things on top and ``under`` below."""
    b.stage("room")
    support = b.at("table", b.rng.uniform(0.3, 0.7), 0.82, size=b.rng.uniform(0.38, 0.48))
    things = b.rng.sample(("cup", "book", "lamp"), on)
    for category in things:
        b.put_on(support, category, margin=0.0)
    if under:
        b.put_under(support, b.rng.choice(("ball", "book")))
    if chair:
        seat = b.place("chair", size=b.rng.uniform(0.3, 0.4))
        b.put_on(seat, b.rng.choice(("book", "cup")))
    b.fill(("ball", "cup", "book"), count=b.rng.randint(*b.profile.fillers) // 2, size=b.size(0.6))


def _pairs(scene: Scene, relation: str) -> list[tuple[ObjectFacts, str, ObjectFacts, str]]:
    labels = dict((o.index, label) for o, label in named(scene))
    out = []
    for r in scene.facts.relations:
        if r.relation == relation and r.subject in labels and r.object in labels:
            s, o = scene.facts.objects[r.subject], scene.facts.objects[r.object]
            out.append((s, labels[s.index], o, labels[o.index]))
    return out


def _others(scene: Scene, *skip: int) -> list[str]:
    return [label for o, label in named(scene) if o.index not in skip]


def _ask_support(scene: Scene, rng: random.Random) -> Question | None:
    pairs = [p for p in _pairs(scene, "on") if len(scene.facts.related(p[0].index, "on")) == 1]
    if not pairs:
        return None
    s, ns, o, no = rng.choice(pairs)
    return mc(
        f"What is {ns} resting on?",
        no,
        [*_others(scene, s.index, o.index), "the floor"],
        rng,
        evidence=[f"{ns.capitalize()} is resting on {no}."],
        subjects=[s.index, o.index],
    )


def _ask_under(scene: Scene, rng: random.Random) -> Question | None:
    pairs = _pairs(scene, "under")
    pairs = [
        p
        for p in pairs
        if [
            r.subject
            for r in scene.facts.relations
            if r.relation == "under" and r.object == p[2].index
        ]
        == [p[0].index]
    ]
    if not pairs:
        return None
    s, ns, o, no = rng.choice(pairs)
    return mc(
        f"What is on the floor under {no}?",
        ns,
        _others(scene, s.index, o.index),
        rng,
        fallback=[f"the {c}" for c in absent(scene, ("ball", "book", "cup", "lamp"))],
        evidence=[f"{ns.capitalize()} is on the floor under {no}."],
        subjects=[s.index, o.index],
    )


def _build_holding(b: SceneBuilder) -> None:
    b.stage(b.rng.choice(("park", "room", "street")))
    size = b.rng.uniform(0.4, 0.55)
    x = b.rng.uniform(0.3, 0.7)
    person = b.at("person", x, 0.95 - size / 2, size=size)
    held = b.rng.choice(("cup", "book", "flower"))
    b.at(held, x, 0.95 - size * 0.58, size=size * 0.22, depth=b.objects[person].depth + 5)
    pool = [c for c in ("ball", "cup", "book", "flower", "tree", "chair") if c != held]
    b.fill(pool, count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers) // 2)


def _ask_holding(scene: Scene, rng: random.Random) -> Question | None:
    people = named(scene, lambda o: o.category == "person")
    if len(scene.facts.select("person")) != 1 or not people:
        return None
    person, label = people[0]
    held = held_by(scene.facts, person)
    if len(held) != 1 or held[0].visible < 0.9:
        return None
    thing = held[0].category
    options = [a(c) for c in ("cup", "book", "flower", "ball", "lamp") if c != thing]
    return mc(
        f"What is {label} holding?",
        a(thing),
        options,
        rng,
        evidence=[f"{label.capitalize()} is holding {a(thing)} in front of their chest."],
        subjects=[person.index, held[0].index],
    )


def _ask_sharing(scene: Scene, rng: random.Random) -> Question | None:
    pairs = _pairs(scene, "on")
    found = []
    for s, ns, o, no in pairs:
        mates = [(t, nt) for t, nt, u, _ in pairs if u.index == o.index and t.index != s.index]
        if len(mates) == 1:
            found.append((s, ns, o, no, *mates[0]))
    if not found:
        return None
    s, ns, o, no, t, nt = rng.choice(found)
    return mc(
        f"Which other object is on {no} together with {ns}?",
        nt,
        _others(scene, s.index, o.index, t.index),
        rng,
        fallback=[f"the {c}" for c in absent(scene, _SMALL)],
        evidence=[f"{ns.capitalize()} and {nt} are both on {no}."],
        subjects=[s.index, t.index, o.index],
    )


def _ask_statement(scene: Scene, rng: random.Random) -> Question | None:
    truth = rng.random() < 0.5
    if truth:
        pairs = [(s, ns, o, no) for s, ns, o, no in _pairs(scene, "on")]
    else:
        supports = named(scene, lambda o: o.category in ("table", "chair"))
        pairs = [
            (s, ns, o, no)
            for s, ns in named(scene, lambda o: o.category in _SMALL)
            for o, no in supports
            if s.box[3] > o.box[1] + 0.1 and not scene.facts.holds(s.index, "on", o.index)
        ]
    if not pairs:
        return None
    s, ns, o, no = rng.choice(pairs)
    fact = f"{ns} is on {no}" if truth else f"{ns} is not on {no}; it is lower down"
    return tf(
        f"{ns[0].upper()}{ns[1:]} is on top of {no}.",
        truth,
        evidence=[f"{fact[0].upper()}{fact[1:]}."],
        subjects=[s.index, o.index],
    )


_KINDS = {
    "furniture": ("chair", "table"),
    "plants": ("tree", "flower"),
    "things in the sky": ("sun", "cloud"),
    "vehicles": ("car",),
}


def _build_kinds(b: SceneBuilder) -> None:
    b.stage("shapes", weather=False)
    kind = b.rng.choice(("furniture", "plants", "things in the sky"))
    for category in _KINDS[kind]:
        b.place(category, size=b.size(0.9))
    others = [c for k, v in _KINDS.items() if k != kind for c in v] + ["cup", "book", "ball"]
    for category in b.rng.sample(others, 3):
        b.place(category, size=b.size(0.9))


def _kind_of(category: str) -> str | None:
    return next((k for k, v in _KINDS.items() if category in v), None)


def _ask_kinds(scene: Scene, rng: random.Random) -> Question | None:
    for o, label in named(scene):
        kind = _kind_of(o.category)
        mates = [
            x for x in scene.facts.objects if x.index != o.index and _kind_of(x.category) == kind
        ]
        if (
            kind is None
            or len(mates) != 1
            or mates[0].category == o.category
            or not mates[0].askable
        ):
            continue
        others = [f"the {x.category}" for x in scene.facts.objects if _kind_of(x.category) != kind]
        return mc(
            f"Which object is the same kind of thing as {label}?",
            f"the {mates[0].category}",
            others,
            rng,
            evidence=[f"{label.capitalize()} and the {mates[0].category} are both {kind}."],
            subjects=[o.index, mates[0].index],
        )
    return None


# -- categories and symbols ------------------------------------------------------------------


def _build_one_of(wanted: tuple[str, ...], rest: tuple[str, ...]) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage("shapes", weather=False)
        b.place(b.rng.choice(wanted))
        for category in b.rng.sample(rest, 3):
            b.place(category, size=b.size(0.9))
        b.occlude([0], pool=rest)

    return build


def _ask_one_of(wanted: tuple[str, ...], rest: tuple[str, ...], text: str, fact: str) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        hits = {o.category for o in scene.facts.objects if o.category in wanted}
        if len(hits) != 1:
            return None
        target = hits.pop()
        if not countable(scene, scene.facts.select(target)):
            return None
        present = [f"the {o.category}" for o in scene.facts.objects if o.category in rest]
        return mc(
            text,
            f"the {target}",
            present,
            rng,
            fallback=[f"the {c}" for c in absent(scene, rest)],
            evidence=[f"The {target} is {fact}; nothing else in the picture is."],
        )

    return ask


_LIFELESS = ("house", "car", "sign", "ball", "cup", "book", "chair", "table", "lamp")
_MADE = ("house", "car", "sign", "ball", "cup", "book", "chair", "table")


def _build_sign(b: SceneBuilder) -> None:
    b.stage("street")
    b.place(
        "sign",
        text=b.rng.choice(tuple(SIGNS)),
        size=max(0.22, b.size(1.4)),
        texture="solid",
        color=b.rng.choice(("red", "blue", "green", "white", "yellow")),
    )
    b.fill(("house", "car", "tree", "person"))
    b.occlude([i for i, o in enumerate(b.objects) if o.category != "sign"])


def _ask_sign(scene: Scene, rng: random.Random) -> Question | None:
    signs = named(scene, lambda o: o.text in SIGNS and o.visible >= 0.95)
    if not signs:
        return None
    o, label = rng.choice(signs)
    meaning = SIGNS[str(o.text)][0]
    return mc(
        f"What does {label.split(' that says ')[0]} tell people?",
        meaning,
        [m for m, _ in SIGNS.values()],
        rng,
        evidence=[f"The sign says {o.text}, which means {meaning}."],
        subjects=[o.index],
    )


_SYMBOLS = {"heart": "love", "arrow": "which way to go"}
_MEANINGS = ("love", "which way to go", "danger", "a place to sleep", "a number")


def _build_symbol(b: SceneBuilder) -> None:
    b.stage("shapes")
    b.place(b.rng.choice(tuple(_SYMBOLS)), size=b.size(1.3))
    b.fill([s for s in SHAPES if s != "heart"], count=b.rng.randint(1, 2))


def _ask_symbol(scene: Scene, rng: random.Random) -> Question | None:
    found = named(scene, lambda o: o.category in _SYMBOLS)
    if not found:
        return None
    o, label = rng.choice(found)
    meaning = _SYMBOLS[o.category]
    return mc(
        f"What does a symbol like {label} usually stand for?",
        meaning,
        list(_MEANINGS),
        rng,
        evidence=[f"There is {a(o.category)}, a symbol that usually stands for {meaning}."],
        subjects=[o.index],
    )


_GROUPS = {"plants": ("tree", "flower"), "pieces of furniture": ("chair", "table")}


def _build_group_count(b: SceneBuilder) -> None:
    b.stage(b.rng.choice(("park", "room")))
    group = _GROUPS["plants" if b.theme == "park" else "pieces of furniture"]
    for _ in range(b.rng.randint(2, {"easy": 3, "medium": 5, "hard": 7}[b.difficulty])):
        try:
            b.place(b.rng.choice(group), size=b.size(0.8))
        except Retry:
            break
    b.fill(("ball", "person") if b.theme == "park" else ("cup", "book", "ball"), count=2)


def _ask_group_count(scene: Scene, rng: random.Random) -> Question | None:
    for word, group in _GROUPS.items():
        members = [o for o in scene.facts.objects if o.category in group]
        if members and countable(scene, members):
            n = len(members)
            return Question(
                text=f"How many {word} are there in the picture?",
                kind="mc",
                correct=str(n),
                distractors=count_options(n, rng),
                evidence=[
                    f"There {'is' if n == 1 else 'are'} {n} {word} in all: "
                    + ", ".join(
                        count_phrase(sum(o.category == c for o in members), c) for c in group
                    )
                    + "."
                ],
                subjects=[o.index for o in members],
            )
    return None


RECIPES: dict[str, Recipe] = {
    "support": Recipe(lambda b: _build_table(b, b.rng.randint(1, 2), 0, True), _ask_support),
    "objects underneath": Recipe(lambda b: _build_table(b, 1, 1), _ask_under),
    "holding": Recipe(_build_holding, _ask_holding),
    "sharing a support": Recipe(
        lambda b: _build_table(b, 2, b.rng.randint(0, 1), True), _ask_sharing
    ),
    "relationship statements": Recipe(
        lambda b: _build_table(b, 1, 1, True), _ask_statement, kind="tf"
    ),
    "kinds of things": Recipe(_build_kinds, _ask_kinds),
    "living things": Recipe(
        _build_one_of(LIVING, _LIFELESS),
        _ask_one_of(LIVING, _LIFELESS, "Which of these is a living thing?", "alive"),
    ),
    "natural or man-made": Recipe(
        _build_one_of(_MADE, NATURAL),
        _ask_one_of(_MADE, NATURAL, "Which of these objects was made by people?", "made by people"),
    ),
    "sign meaning": Recipe(_build_sign, _ask_sign),
    "symbol meaning": Recipe(_build_symbol, _ask_symbol),
    "furniture": Recipe(
        _build_one_of(("chair", "table"), ("cup", "book", "ball", "flower", "tree", "car")),
        _ask_one_of(
            ("chair", "table"),
            ("cup", "book", "ball", "flower", "tree", "car"),
            "Which of these is a piece of furniture?",
            "a piece of furniture",
        ),
    ),
    "counting by category": Recipe(_build_group_count, _ask_group_count),
}
