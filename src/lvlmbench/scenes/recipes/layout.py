"""Spatial understanding II: distance and containment, orientation and arrangement."""

from __future__ import annotations

import math
import random
import statistics

from lvlmbench.scenes.facts import ObjectFacts, SceneFacts
from lvlmbench.scenes.palette import SHAPES
from lvlmbench.scenes.questions import Question, mc, tf
from lvlmbench.scenes.recipes._common import AskFn, BuildFn, Recipe, Scene, named
from lvlmbench.scenes.recipes.position import build_spread, overlap_pair
from lvlmbench.scenes.sampler import SceneBuilder

__all__ = ["RECIPES", "arrangement"]


def _build_distance(near: bool) -> BuildFn:
    """A reference shape near one corner: for "nearest", one shape close by and the rest far
    away; for "farthest", a cluster around it and one shape in the opposite corner."""

    def build(b: SceneBuilder) -> None:
        b.stage("shapes")
        sx, sy = b.rng.choice((-1, 1)), b.rng.choice((-1, 1))
        size = min(0.16, b.size())
        b.at(b.rng.choice(SHAPES), 0.5 - sx * 0.3, 0.5 - sy * 0.3, size=size)
        if near:
            b.at(b.rng.choice(SHAPES), 0.5 - sx * 0.3 + sx * 0.22, 0.5 - sy * 0.3, size=size)
        else:
            b.at(b.rng.choice(SHAPES), 0.5 + sx * 0.33, 0.5 + sy * 0.33, size=size)
        b.fill(
            SHAPES, count=b.rng.randint(2, 3) + b.rng.randint(*b.profile.fillers) // 2, size=size
        )
        b.occlude()

    return build


def _ask_extreme_distance(relation: str) -> AskFn:
    word = "closest to" if relation == "nearest" else "farthest from"

    def ask(scene: Scene, rng: random.Random) -> Question | None:
        labels = dict((o.index, label) for o, label in named(scene))
        found = [(a, b) for a in labels for b in scene.facts.related(a, relation) if b in labels]
        if not found or len(labels) < 4:
            return None
        a, b = rng.choice(found)
        others = [label for i, label in labels.items() if i not in (a, b)]
        return mc(
            f"Which object is {word} {labels[a]}?",
            labels[b],
            others,
            rng,
            evidence=[f"Of all the objects, {labels[b]} is {word} {labels[a]}."],
            subjects=[b, a],
        )

    return ask


_CONTAINERS = ("circle", "square", "hexagon", "pentagon")


def _build_inside(b: SceneBuilder) -> None:
    b.stage("shapes")
    outer = b.rng.choice(_CONTAINERS)
    size = b.rng.uniform(0.32, 0.45)
    x, y = b.rng.uniform(0.3, 0.7), b.rng.uniform(0.3, 0.7)
    color = b.color_for(outer)
    b.at(outer, x, y, size=size, color=color, texture="solid")
    inner = b.rng.choice([s for s in SHAPES if s != outer])
    b.at(inner, x, y, size=size * 0.36, color=b.color_for(inner, exclude=(color,)), depth=60)
    b.fill(SHAPES, count=b.rng.randint(2, 3) + b.rng.randint(*b.profile.fillers) // 2)


def _inside_pairs(scene: Scene) -> list[tuple[ObjectFacts, str, ObjectFacts, str]]:
    people = named(scene)
    out = []
    for a, na in people:
        for b, nb in people:
            holders = scene.facts.related(a.index, "inside")
            contents = [
                r.subject
                for r in scene.facts.relations
                if r.relation == "inside" and r.object == b.index
            ]
            if holders == [b.index] and contents == [a.index]:
                out.append((a, na, b, nb))
    return out


def _ask_inside(scene: Scene, rng: random.Random) -> Question | None:
    pairs = _inside_pairs(scene)
    if not pairs:
        return None
    a, na, b, nb = rng.choice(pairs)
    present = [o.category for o in scene.facts.objects if o.category != a.category]
    return mc(
        f"What shape is inside {nb}?",
        f"a {a.color} {a.category}",
        [f"a {a.color} {c}" for c in present],
        rng,
        fallback=[f"a {a.color} {c}" for c in SHAPES if c != a.category],
        evidence=[f"{na.capitalize()} is inside {nb}."],
        subjects=[a.index, b.index],
    )


def _ask_container(scene: Scene, rng: random.Random) -> Question | None:
    pairs = _inside_pairs(scene)
    if not pairs:
        return None
    a, na, b, nb = rng.choice(pairs)
    others = [label for o, label in named(scene) if o.index not in (a.index, b.index)]
    return mc(
        f"Which shape has {na} inside it?",
        nb,
        others,
        rng,
        evidence=[f"{na.capitalize()} is inside {nb}."],
        subjects=[b.index, a.index],
    )


def _build_overlap(b: SceneBuilder) -> None:
    b.stage("shapes")
    back, front = b.rng.sample(SHAPES, 2)
    overlap_pair(b, back, front, cover=b.rng.uniform(0.2, 0.5))
    b.fill(SHAPES, count=b.rng.randint(1, 2) + b.rng.randint(*b.profile.fillers))


def _ask_overlap(scene: Scene, rng: random.Random) -> Question | None:
    people = named(scene)
    truth = rng.random() < 0.5
    relation = "overlaps" if truth else "apart from"
    pairs = [
        (a, na, b, nb)
        for a, na in people
        for b, nb in people
        if a.index < b.index and scene.facts.holds(a.index, relation, b.index)
    ]
    if not pairs:
        return None
    a, na, b, nb = rng.choice(pairs)
    fact = "overlap" if truth else "do not touch; there is a gap between them"
    return tf(
        f"{na[0].upper()}{na[1:]} and {nb} overlap.",
        truth,
        evidence=[f"{na.capitalize()} and {nb} {fact}."],
        subjects=[a.index, b.index],
    )


def _dist(a: ObjectFacts, b: ObjectFacts) -> float:
    return math.dist(a.center, b.center)


def _ask_closer(scene: Scene, rng: random.Random) -> Question | None:
    people = named(scene)
    triples = [
        (a, na, b, nb, c, nc)
        for a, na in people
        for b, nb in people
        for c, nc in people
        if len({a.index, b.index, c.index}) == 3 and _dist(a, b) * 1.6 <= _dist(a, c)
    ]
    if not triples:
        return None
    a, na, b, nb, c, nc = rng.choice(triples)
    truth = rng.random() < 0.5
    x, y = (nb, nc) if truth else (nc, nb)
    return tf(
        f"{na[0].upper()}{na[1:]} is closer to {x} than to {y}.",
        truth,
        evidence=[f"{na.capitalize()} is much closer to {nb} than to {nc}."],
        subjects=[a.index, b.index, c.index],
    )


# -- orientation ------------------------------------------------------------------------------

_WAYS = ("up", "down", "left", "right")


def _build_pointer(category: str) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage("shapes")
        for _ in range(b.rng.randint(1, 2)):
            b.place(category, orientation=b.rng.choice((0, 90, 180, 270)), size=b.size(1.2))
        b.fill([s for s in SHAPES if s != "triangle"])
        b.occlude()

    return build


def _ask_pointer(category: str) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        found = named(
            scene, lambda o: o.category == category and o.pointing is not None and o.visible >= 0.8
        )
        if not found:
            return None
        o, label = rng.choice(found)
        assert o.pointing is not None
        return mc(
            f"Which way does {label} point?",
            o.pointing,
            list(_WAYS),
            rng,
            evidence=[f"{label.capitalize()} points {o.pointing}."],
            subjects=[o.index],
        )

    return ask


def _build_car(b: SceneBuilder) -> None:
    b.stage("street")
    for _ in range(b.rng.randint(1, 2)):
        b.place("car", orientation=b.rng.choice((0, 180)), size=b.size(1.3))
    b.fill(("house", "tree", "sign", "person"))
    b.occlude()


def _ask_car(scene: Scene, rng: random.Random) -> Question | None:
    found = named(scene, lambda o: o.facing is not None and o.visible >= 0.8)
    if not found:
        return None
    o, label = rng.choice(found)
    way = rng.choice(("left", "right"))
    return tf(
        f"{label[0].upper()}{label[1:]} is facing to the {way}.",
        o.facing == way,
        evidence=[f"{label.capitalize()} is facing to the {o.facing}."],
        subjects=[o.index],
    )


# -- arrangement ------------------------------------------------------------------------------

_LAYOUTS = {
    "row": "in a horizontal row",
    "column": "in a vertical column",
    "circle": "in a circle",
    "grid": "in a grid of rows and columns",
}


def _clusters(values: list[float], tolerance: float = 0.04) -> list[float]:
    out: list[list[float]] = []
    for v in sorted(values):
        if out and v - out[-1][-1] <= tolerance:
            out[-1].append(v)
        else:
            out.append([v])
    return [statistics.fmean(c) for c in out]


def arrangement(facts: SceneFacts) -> str | None:
    """row, column, circle or grid when every object's centre fits one layout clearly."""
    points = [o.center for o in facts.objects]
    if len(points) < 3:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    cols, rows = _clusters(xs), _clusters(ys)
    if len(rows) == 1 and max(xs) - min(xs) > 0.4:
        return "row"
    if len(cols) == 1 and max(ys) - min(ys) > 0.4:
        return "column"
    if 2 <= len(rows) <= 3 and 2 <= len(cols) <= 3 and len(points) == len(rows) * len(cols):
        cells = {
            (
                min(range(len(cols)), key=lambda k: abs(cols[k] - x)),
                min(range(len(rows)), key=lambda k: abs(rows[k] - y)),
            )
            for x, y in points
        }
        return "grid" if len(cells) == len(points) else None
    cx, cy = statistics.fmean(xs), statistics.fmean(ys)
    radii = [math.dist((cx, cy), p) for p in points]
    r = statistics.fmean(radii)
    if len(points) >= 5 and r > 0.2 and all(abs(d - r) < 0.08 * r for d in radii):
        return "circle"
    return None


def _build_layout(b: SceneBuilder) -> None:
    b.stage("shapes")
    layout = b.rng.choice(tuple(_LAYOUTS))
    extra = {"easy": 0, "medium": 1, "hard": 2}[b.difficulty]
    pool = SHAPES if b.difficulty == "hard" else b.rng.sample(SHAPES, 2)
    size = b.size(0.8)
    if layout in ("row", "column"):
        n, fixed = 3 + extra + b.rng.randint(0, 1), b.rng.uniform(0.3, 0.7)
        spots = [(0.12 + 0.76 * k / (n - 1), fixed) for k in range(n)]
        if layout == "column":
            spots = [(y, x) for x, y in spots]
    elif layout == "grid":
        cols, rows = b.rng.choice(((2, 2), (3, 2), (2, 3), (3, 3)))
        spots = [
            (0.2 + 0.6 * i / (cols - 1), 0.2 + 0.6 * j / (rows - 1))
            for i in range(cols)
            for j in range(rows)
        ]
    else:
        n = 5 + extra + b.rng.randint(0, 1)
        spots = [
            (0.5 + 0.33 * math.cos(2 * math.pi * k / n), 0.5 + 0.33 * math.sin(2 * math.pi * k / n))
            for k in range(n)
        ]
    size = min(size, 0.7 / max(4, len(spots)) * 2)
    for x, y in spots:
        b.at(b.rng.choice(pool), x, y, size=size)


def _ask_layout(scene: Scene, rng: random.Random) -> Question | None:
    layout = arrangement(scene.facts)
    if layout is None or not all(o.askable for o in scene.facts.objects):
        return None
    return mc(
        "How are the shapes arranged?",
        _LAYOUTS[layout],
        list(_LAYOUTS.values()),
        rng,
        evidence=[f"The shapes are arranged {_LAYOUTS[layout]}."],
    )


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def _ask_order(axis: int) -> AskFn:
    def ask(scene: Scene, rng: random.Random) -> Question | None:
        layout = arrangement(scene.facts)
        if layout != ("row" if axis == 0 else "column"):
            return None
        labels = dict((o.index, label) for o, label in named(scene))
        line = sorted(scene.facts.objects, key=lambda o: o.center[axis])
        if any(o.index not in labels for o in line):
            return None
        k = rng.randrange(len(line))
        start = "left" if axis == 0 else "top"
        target = labels[line[k].index]
        others = [labels[o.index] for o in line if o is not line[k]]
        text = f"Counting from the {start}, which is the {_ORDINALS[k]} object in the " + (
            "row?" if axis == 0 else "column?"
        )
        return mc(
            text,
            target,
            others,
            rng,
            evidence=[f"Counting from the {start}, the {_ORDINALS[k]} object is {target}."],
            subjects=[line[k].index],
        )

    return ask


def _build_line(axis: int) -> BuildFn:
    def build(b: SceneBuilder) -> None:
        b.stage("shapes")
        n = {"easy": 3, "medium": 4, "hard": 5}[b.difficulty] + b.rng.randint(0, 1)
        fixed = b.rng.uniform(0.3, 0.7)
        used: set[tuple[str, str]] = set()
        for k in range(n):
            category, color = b.rng.choice(SHAPES), b.color_for("circle")
            while (category, color) in used:
                category, color = b.rng.choice(SHAPES), b.color_for("circle")
            used.add((category, color))
            t = 0.1 + 0.8 * k / (n - 1)
            x, y = (t, fixed) if axis == 0 else (fixed, t)
            b.at(category, x, y, color=color, size=min(b.size(), 0.14))

    return build


RECIPES: dict[str, Recipe] = {
    "nearest object": Recipe(_build_distance(True), _ask_extreme_distance("nearest")),
    "farthest object": Recipe(_build_distance(False), _ask_extreme_distance("farthest")),
    "object inside another": Recipe(_build_inside, _ask_inside),
    "container identification": Recipe(_build_inside, _ask_container),
    "overlap detection": Recipe(_build_overlap, _ask_overlap, kind="tf"),
    "distance comparison": Recipe(build_spread, _ask_closer, kind="tf"),
    "arrow direction": Recipe(_build_pointer("arrow"), _ask_pointer("arrow")),
    "facing direction": Recipe(_build_car, _ask_car, kind="tf"),
    "shape rotation": Recipe(_build_pointer("triangle"), _ask_pointer("triangle")),
    "arrangement pattern": Recipe(_build_layout, _ask_layout),
    "left-to-right order": Recipe(_build_line(0), _ask_order(0)),
    "top-to-bottom order": Recipe(_build_line(1), _ask_order(1)),
}
