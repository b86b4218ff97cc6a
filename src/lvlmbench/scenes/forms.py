"""The structured form of a question about a scene program: what the question asks, in terms
the program's facts decide.

In scene mode a model examiner writes each question together with its form, e.g. "Which object
is left of the blue ball?" as ``{"kind": "which_relation", "relation": "left of", "object":
{"category": "ball", "color": "blue"}}``, and :mod:`.keycheck` recomputes the key from the form
and the facts instead of guessing the question's meaning from its wording. Every field is a
closed vocabulary of the scene world, so a form either names something the program can settle
or fails validation (and the examiner is asked again with the error).

This module also reads option texts back into those vocabularies (a count, a colour, a region,
an object, a relation, a scene word): exactly one value in the text, or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

from lvlmbench.scenes.facts import ObjectFacts, SceneFacts
from lvlmbench.scenes.palette import CATEGORIES, COLOR_NAMES, TEXTURES, Category, ColorName, plural
from lvlmbench.scenes.words import NUMBER_WORDS

__all__ = [
    "FormKind",
    "ObjectRef",
    "QuestionForm",
    "RelationWord",
    "SceneAttribute",
    "find_values",
    "mentions",
    "words",
]

FormKind = Literal[
    "count",
    "color",
    "position",
    "text",
    "presence",
    "relation",
    "which_color",
    "which_relation",
    "which_present",
    "largest",
    "smallest",
    "more",
    "scene",
]
RelationWord = Literal[
    "left of",
    "right of",
    "above",
    "below",
    "in front of",
    "behind",
    "overlaps",
    "apart from",
    "on",
    "under",
    "inside",
    "nearest to",
    "farthest from",
]
SceneAttribute = Literal["time_of_day", "lighting", "weather", "season", "brightness", "scene_type"]

_NEEDS: dict[str, tuple[str, ...]] = {
    "count": ("subject",),
    "color": ("subject",),
    "position": ("subject",),
    "text": ("subject",),
    "presence": ("subject",),
    "relation": ("subject", "object"),
    "which_color": ("color",),
    "which_relation": ("relation", "object"),
    "which_present": (),
    "largest": (),
    "smallest": (),
    "more": ("subject", "object"),
    "scene": ("attribute",),
}
"""The fields each kind of form must fill."""
TRUE_FALSE_ONLY = ("presence", "more")
"""Kinds whose statement asserts itself (no claimed value): no multiple-choice version."""
NEGATABLE = ("presence", "relation", "more")


def words(text: str) -> list[str]:
    """Lower-case words of ``text`` (hyphens split, digits kept)."""
    return re.findall(r"[a-z0-9]+", text.lower().replace("grey", "gray"))


class ObjectRef(BaseModel):
    """Objects named by category, and optionally colour and texture."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    category: Category
    color: ColorName | None = None
    texture: Literal["solid", "striped", "dotted", "checkered"] | None = None

    def select(self, facts: SceneFacts) -> list[ObjectFacts]:
        """The program's objects this names (hidden ones included)."""
        found = facts.select(self.category, self.color)
        return [o for o in found if self.texture is None or o.texture == self.texture]

    def __str__(self) -> str:
        extra = [w for w in (self.color, self.texture) if w and w != "solid"]
        return " ".join(["the", *extra, self.category])


class QuestionForm(BaseModel):
    """What one question asks, for the key check (see the kinds in the prompt file
    ``autobench/question_form.md``)."""

    model_config = ConfigDict(extra="forbid")
    kind: FormKind
    subject: ObjectRef | None = None
    """The object(s) asked about (count, color, position, text, presence, relation, more)."""
    relation: RelationWord | None = None
    """relation: the relation a statement claims; which_relation: the relation asked for."""
    object: ObjectRef | None = None
    """The reference object of a relation, or the second group of ``more``."""
    color: ColorName | None = None
    """which_color: the colour asked for."""
    attribute: SceneAttribute | None = None
    """scene: the scene-level fact asked about."""
    claim: str | None = None
    """A statement's claimed value (a count, colour, region, text, object or scene word)."""
    negated: bool = False
    """The statement says the opposite (presence, relation, more: "there is no ...")."""

    @model_validator(mode="after")
    def _complete(self) -> QuestionForm:
        missing = [name for name in _NEEDS[self.kind] if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a {self.kind!r} form needs {', '.join(missing)}")
        if self.negated and self.kind not in NEGATABLE:
            raise ValueError(f"only {', '.join(NEGATABLE)} statements may be negated")
        return self

    def problem(self, question_kind: str) -> str | None:
        """Why this form does not fit a question of ``question_kind`` (mc or tf), or None."""
        if question_kind == "mc":
            if self.kind in TRUE_FALSE_ONLY:
                return f"a {self.kind!r} form is for true/false statements only"
            if self.claim is not None or self.negated:
                return "a multiple-choice form has no claim and is not negated"
            if self.kind == "relation" and self.relation is not None:
                return "a multiple-choice 'relation' form leaves relation empty: it is asked"
            return None
        if self.kind == "which_present":
            return "a 'which_present' form is for multiple choice (use 'presence')"
        if self.kind == "relation" and self.relation is None:
            return "a true/false 'relation' form names the relation the statement claims"
        if self.kind not in (*TRUE_FALSE_ONLY, "relation") and self.claim is None:
            return f"a true/false {self.kind!r} form needs the claim the statement makes"
        return None


# -- reading option texts back into the world's vocabularies ---------------------------------

_NUMBERS = {w: n for n, w in enumerate(NUMBER_WORDS)} | {"zero": 0, "none": 0}
_NUMBERS |= {
    w: 13 + i
    for i, w in enumerate(
        ("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
    )
}
_NUMBERS["twenty"] = 20
_NOUNS: dict[str, str] = {plural(c): c for c in CATEGORIES} | {c: c for c in CATEGORIES}
_NOUNS |= dict.fromkeys(("man", "woman", "boy", "girl", "child", "kid", "men", "women"), "person")
_NOUNS |= dict.fromkeys(("children", "kids", "persons"), "person")
_RELATIONS: dict[str, tuple[str, ...]] = {
    "left of": ("left",),
    "right of": ("right",),
    "above": ("above", "over"),
    "below": ("below", "beneath"),
    "in front of": ("in front",),
    "behind": ("behind",),
    "overlaps": ("overlaps", "overlapping", "overlap", "touching"),
    "apart from": ("apart", "separate", "not touching"),
    "on": ("on",),
    "under": ("under", "underneath"),
    "inside": ("inside", "within"),
    "nearest to": ("nearest", "closest"),
    "farthest from": ("farthest", "furthest"),
}
_SCENE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "time_of_day": {
        "daytime": ("day", "daytime", "day time", "daylight"),
        "sunset": ("sunset", "dusk", "evening", "sundown", "twilight"),
        "night-time": ("night", "night time", "nighttime"),
    },
    "lighting": {
        "day": ("day", "daylight", "daytime", "sunlight"),
        "dusk": ("dusk", "sunset", "evening", "twilight"),
        "night": ("night", "night time", "nighttime", "dark"),
        "spotlight": ("spotlight", "spot light", "spotlit"),
    },
    "weather": {
        "clear": ("clear", "sunny", "fine"),
        "fog": ("fog", "foggy", "mist", "misty"),
        "rain": ("rain", "rainy", "raining"),
        "snow": ("snow", "snowy", "snowing"),
    },
    "season": {s: (s,) for s in ("spring", "summer", "winter")} | {"autumn": ("autumn", "fall")},
    "brightness": {
        "bright": ("bright",),
        "dim": ("dim",),
        "dark": ("dark",),
        "spotlit": ("spotlit", "spotlight"),
    },
    "scene_type": {
        "street": ("street", "road", "town"),
        "park": ("park", "garden"),
        "room": ("room", "indoors", "inside", "home", "house interior"),
        "sky": ("sky",),
    },
}


def _phrases(text: str, table: dict[str, tuple[str, ...]]) -> set[str]:
    """The canonical names whose phrases occur in ``text`` as whole words."""
    joined = f" {' '.join(words(text))} "
    return {name for name, spelt in table.items() if any(f" {p} " in joined for p in spelt)}


def _numbers(text: str) -> set[object]:
    return {
        int(w) if w.isdigit() else _NUMBERS[w] for w in words(text) if w.isdigit() or w in _NUMBERS
    }


def _colors(text: str) -> set[object]:
    return {w for w in words(text) if w in COLOR_NAMES}


def _regions(text: str) -> set[object]:
    found = set(words(text.replace("center", "centre").replace("middle", "centre")))
    found = {{"upper": "top", "lower": "bottom"}.get(w, w) for w in found}
    vertical: list[str] = [w for w in ("top", "bottom") if w in found]
    horizontal: list[str] = [w for w in ("left", "right") if w in found]
    if len(vertical) > 1 or len(horizontal) > 1:  # both ends named: no single region
        return set(vertical if len(vertical) > 1 else horizontal)
    if not vertical and not horizontal:
        return {"centre"} if "centre" in found else set()
    return {" ".join(vertical + horizontal)}


def _objects(text: str) -> set[object]:
    """ObjectRefs named in ``text`` (category, with a colour and texture only when one each)."""
    tokens = words(text)
    categories = {_NOUNS[w] for w in tokens if w in _NOUNS}
    colors = [w for w in tokens if w in COLOR_NAMES]
    textures = [w for w in tokens if w in TEXTURES and w != "solid"]
    refs: set[object] = set()
    for category in categories:
        color = colors[0] if len(set(colors)) == 1 else None
        texture = textures[0] if len(set(textures)) == 1 else None
        refs.add(
            ObjectRef.model_validate({"category": category, "color": color, "texture": texture})
        )
    return refs


def _relations(text: str) -> set[object]:
    found = _phrases(text, _RELATIONS)
    # "on the left of" names one relation: "on" counts only when nothing else is named.
    return set(found - {"on"} if len(found) > 1 else found)


def mentions(text: str, ref: ObjectRef) -> bool:
    """Whether ``text`` names ``ref``'s category (any of its nouns) and its colour, if any."""
    found = words(text)
    named = any(_NOUNS.get(w) == ref.category for w in found)
    return named and (ref.color is None or ref.color in found)


def _texts(text: str) -> set[object]:
    return {" ".join(words(text))} if words(text) else set()


def _scene(attribute: str) -> Callable[[str], set[object]]:
    return lambda text: set(_phrases(text, _SCENE_WORDS[attribute]))


def find_values(kind: str, text: str, attribute: str | None = None) -> set[object]:
    """Every value of the vocabulary that ``kind``'s answers come from found in ``text``
    (counts as ints, colours, regions, ObjectRefs, relation words, scene words, normalised
    text). An option names its value when exactly one is found."""
    readers: dict[str, Callable[[str], set[object]]] = {
        "count": _numbers,
        "color": _colors,
        "position": _regions,
        "text": _texts,
        "relation": _relations,
        "scene": _scene(attribute or "weather"),
    }
    return readers.get(kind, _objects)(text)
