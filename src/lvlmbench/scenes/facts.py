"""Exact facts about a scene program: what a correct answer may rely on.

Facts come from the program and from the renderer's own geometry (see :mod:`masks`), never
from looking at pixels. Relations are recorded only where they are *clear* (a gap between the
boxes, a margin between distances), so every fact here is one a person would agree with.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import permutations

from lvlmbench.scenes._fact_records import ObjectFacts, Relation, SceneFacts
from lvlmbench.scenes.geometry import draw_order, object_box
from lvlmbench.scenes.masks import MaskSet, object_masks
from lvlmbench.scenes.schema import SceneObject, SceneProgram
from lvlmbench.scenes.semantics import scene_level_facts

__all__ = [
    "DEFAULT_VISIBLE_THRESHOLD",
    "GAP",
    "ObjectFacts",
    "Relation",
    "SceneFacts",
    "compute_facts",
]

DEFAULT_VISIBLE_THRESHOLD = 0.5
GAP = 0.02
"""Smallest gap (fraction of the canvas) between two boxes for left/right/above/below."""
_CLEAR = 1.4
"""How much farther the runner-up must be for "nearest"/"largest" to count as clear."""
_CLEAR_FAR = 1.25
_REGIONS = (
    ("top left", "top", "top right"),
    ("left", "centre", "right"),
    ("bottom left", "bottom", "bottom right"),
)


def _region(x: float, y: float) -> str:
    return _REGIONS[min(2, int(y * 3))][min(2, int(x * 3))]


def _pointing(obj: SceneObject) -> str | None:
    base = {"arrow": 0, "triangle": 90}.get(obj.category)
    if base is None:
        return None
    angle = (base + obj.orientation) % 360
    for target, word in ((0, "right"), (90, "up"), (180, "left"), (270, "down")):
        if min(abs(angle - target), 360 - abs(angle - target)) <= 10:
            return word
    return None


def _facing(obj: SceneObject) -> str | None:
    if obj.category != "car":
        return None
    return "left" if 90 < obj.orientation < 270 else "right"


def _lit(program: SceneProgram, box: tuple[float, float, float, float]) -> bool:
    light = program.lighting
    if light.kind != "spotlight":
        return True
    w, h = program.canvas.width, program.canvas.height
    cx, cy = (box[0] + box[2]) / 2 * w, (box[1] + box[3]) / 2 * h
    distance = math.hypot(cx - light.spot_x * w, cy - light.spot_y * h)
    return distance <= 0.7 * light.spot_radius * min(w, h)


def _object_facts(program: SceneProgram, masks: MaskSet, threshold: float) -> list[ObjectFacts]:
    order = draw_order(program)
    rank = {index: position for position, index in enumerate(order)}
    canvas = masks.width * masks.height
    out = []
    for i, obj in enumerate(program.objects):
        area = masks.area(i)
        visible = masks.visible_pixels(i) / area if area else 0.0
        hiders = [j for j in order[rank[i] + 1 :] if masks.overlap(i, j) > 0.01 * area]
        box = object_box(obj, program.canvas.width, program.canvas.height)
        lit = _lit(program, box)
        out.append(
            ObjectFacts(
                index=i,
                category=obj.category,
                color=obj.color,
                texture=obj.texture,
                text=obj.text,
                box=box,
                area=area / canvas,
                visible=round(visible, 4),
                rank=rank[i],
                occluded_by=hiders,
                region=_region((box[0] + box[2]) / 2, (box[1] + box[3]) / 2),
                pointing=_pointing(obj),
                facing=_facing(obj),
                lit=lit,
                askable=visible >= threshold and lit,
            )
        )
    return out


def _position_relations(a: ObjectFacts, b: ObjectFacts) -> list[str]:
    out = []
    if a.box[2] + GAP <= b.box[0] and _overlaps_1d(a.box[1], a.box[3], b.box[1], b.box[3]):
        out.append("left of")
    if b.box[2] + GAP <= a.box[0] and _overlaps_1d(a.box[1], a.box[3], b.box[1], b.box[3]):
        out.append("right of")
    if a.box[3] + GAP <= b.box[1] and _overlaps_1d(a.box[0], a.box[2], b.box[0], b.box[2]):
        out.append("above")
    if b.box[3] + GAP <= a.box[1] and _overlaps_1d(a.box[0], a.box[2], b.box[0], b.box[2]):
        out.append("below")
    return out


def _overlaps_1d(a0: float, a1: float, b0: float, b1: float) -> bool:
    """Whether the two intervals share at least a quarter of the shorter one: then the pair is
    side by side (or stacked), not diagonal, and only one direction word fits."""
    shared = min(a1, b1) - max(a0, b0)
    return shared >= 0.25 * min(a1 - a0, b1 - b0)


def _apart(a: ObjectFacts, b: ObjectFacts) -> bool:
    return (
        a.box[2] + GAP <= b.box[0]
        or b.box[2] + GAP <= a.box[0]
        or a.box[3] + GAP <= b.box[1]
        or b.box[3] + GAP <= a.box[1]
    )


def _layer_relations(a: ObjectFacts, b: ObjectFacts, masks: MaskSet) -> list[str]:
    shared = masks.overlap(a.index, b.index)
    smaller = min(masks.area(a.index), masks.area(b.index))
    out = []
    if smaller and shared >= 0.02 * smaller:
        out.append("overlaps")
        out.append("in front of" if a.rank > b.rank else "behind")
        if a.rank > b.rank and shared >= 0.97 * masks.area(a.index) and b.area >= 2 * a.area:
            out.append("inside")
    elif _apart(a, b):
        out.append("apart from")
    return out


def _distance(a: ObjectFacts, b: ObjectFacts) -> float:
    (ax, ay), (bx, by) = a.center, b.center
    return math.hypot(ax - bx, ay - by)


def _gap(a: ObjectFacts, b: ObjectFacts) -> float:
    dx = max(0.0, max(a.box[0], b.box[0]) - min(a.box[2], b.box[2]))
    dy = max(0.0, max(a.box[1], b.box[1]) - min(a.box[3], b.box[3]))
    return math.hypot(dx, dy)


def _extreme(objects: list[ObjectFacts], a: ObjectFacts, nearest: bool) -> int | None:
    """The clearly nearest (or farthest) other object: both centre distance and box gap agree
    and the runner-up is at least 1.4 times as far (or as near)."""
    others = [o for o in objects if o.index != a.index]
    if len(others) < 2:
        return None
    sign = 1.0 if nearest else -1.0
    by_centre = sorted(others, key=lambda o: sign * _distance(a, o))
    by_gap = sorted(others, key=lambda o: sign * _gap(a, o))
    first, second = by_centre[0], by_centre[1]
    d1, d2 = _distance(a, first), _distance(a, second)
    clear = d2 >= _CLEAR * d1 if nearest else d1 >= _CLEAR_FAR * d2
    return first.index if clear and by_gap[0].index == first.index else None


def _support_relations(a: ObjectFacts, b: ObjectFacts) -> list[str]:
    """``a`` on ``b`` (resting on a table top or chair seat) and ``a`` under ``b``."""
    surface = {"table": 0.0, "chair": 0.5}.get(b.category)
    if surface is None or a.category in ("table", "chair", "person"):
        return []
    top = b.box[1] + surface * (b.box[3] - b.box[1])
    cx = a.center[0]
    within = b.box[0] <= cx <= b.box[2]
    if within and abs(a.box[3] - top) <= 0.025 and a.rank > b.rank:
        return ["on"]
    if within and a.box[1] > top + 0.01 and abs(a.box[3] - b.box[3]) <= 0.03:
        return ["under"]
    return []


def _relations(objects: list[ObjectFacts], masks: MaskSet) -> list[Relation]:
    out: list[Relation] = []
    for a, b in permutations(objects, 2):
        names = _position_relations(a, b) + _layer_relations(a, b, masks)
        names += _support_relations(a, b)
        out += [Relation(subject=a.index, relation=n, object=b.index) for n in names]
    for a in objects:
        for relation, nearest in (("nearest", True), ("farthest", False)):
            found = _extreme(objects, a, nearest)
            if found is not None:
                out.append(Relation(subject=a.index, relation=relation, object=found))
    return out


def _clearly_extreme(objects: list[ObjectFacts], largest: bool) -> int | None:
    if len(objects) < 2:
        return None
    ranked = sorted(objects, key=lambda o: o.area, reverse=largest)
    big, small = (ranked[0], ranked[1]) if largest else (ranked[1], ranked[0])
    return ranked[0].index if big.area >= 1.5 * small.area else None


def compute_facts(
    program: SceneProgram, threshold: float = DEFAULT_VISIBLE_THRESHOLD
) -> SceneFacts:
    """Every fact a question may use. ``threshold``: smallest visible fraction of an object
    that may be asked about."""
    masks = object_masks(program)
    objects = _object_facts(program, masks, threshold)
    facts = SceneFacts(
        width=program.canvas.width,
        height=program.canvas.height,
        threshold=threshold,
        objects=objects,
        relations=_relations(objects, masks),
        counts_by_category=dict(Counter(o.category for o in program.objects)),
        counts_by_color=dict(Counter(o.color for o in program.objects)),
        largest=_clearly_extreme(objects, largest=True),
        smallest=_clearly_extreme(objects, largest=False),
        labels=[
            (label.text, label.color, label.position.x, label.position.y)
            for label in program.labels
        ],
    )
    facts.scene = scene_level_facts(program, facts)
    return facts
