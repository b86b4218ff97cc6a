"""How objects are named in questions and descriptions.

A question may only mention an object by a phrase that picks it out uniquely among *all*
objects in the picture (hidden ones included), so "the red circle" is used only when there is
one red circle; otherwise a texture or size is added, and failing that the object is not
referred to at all.
"""

from __future__ import annotations

from lvlmbench.scenes.facts import ObjectFacts, SceneFacts
from lvlmbench.scenes.palette import CONFUSABLE, plural

__all__ = [
    "NUMBER_WORDS",
    "article",
    "count_phrase",
    "dim",
    "name",
    "noun",
    "phrase",
    "region_phrase",
    "same_color",
    "size_word",
    "texture_word",
]

_REGION_PHRASE = {
    "top left": "in the top left",
    "top": "at the top",
    "top right": "in the top right",
    "left": "on the left",
    "centre": "in the centre",
    "right": "on the right",
    "bottom left": "in the bottom left",
    "bottom": "at the bottom",
    "bottom right": "in the bottom right",
}
NUMBER_WORDS = (
    "no",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
"""How descriptions and questions spell counts (index = count); larger counts are digits."""


def noun(category: str, count: int = 1) -> str:
    """The category as an English noun, plural when count is not one."""
    return plural(category, count)


def article(word: str) -> str:
    """``a`` or ``an`` before ``word``."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def texture_word(texture: str) -> str:
    """striped, dotted, checkered; solid is "plain"."""
    return "plain" if texture == "solid" else texture


def size_word(o: ObjectFacts) -> str:
    """small / medium / large from the area the object covers."""
    return "small" if o.area < 0.012 else "large" if o.area > 0.06 else "medium"


def region_phrase(region: str) -> str:
    """``in the top left``, ``on the right``, ..."""
    return _REGION_PHRASE[region]


def count_phrase(count: int, word: str) -> str:
    """``three circles``, ``one car``, ``no people``."""
    number = NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else str(count)
    return f"{number} {plural(word, count)}"


def _core(o: ObjectFacts, color: bool, texture: bool) -> str:
    """Noun phrase without article: ``red striped circle``, ``person in a red shirt``."""
    if o.category == "person":
        base = f"person in {article(o.color)} {o.color} shirt" if color else "person"
        return base
    words = []
    if texture and o.texture != "solid":
        words.append(o.texture)
    if color:
        words.insert(0, o.color)
    words.append(o.category)
    text = " ".join(words)
    if o.text and o.category == "sign":
        text += f" that says {o.text}"
    return text


def phrase(o: ObjectFacts, *, size: bool = True, texture: bool = True) -> str:
    """Indefinite description for a caption: ``a large red striped circle``."""
    core = _core(o, color=True, texture=texture)
    if size and size_word(o) != "medium":
        core = f"{size_word(o)} {core}"
    return f"{article(core)} {core}"


def dim(facts: SceneFacts) -> bool:
    """Whether the light (dusk, night, spotlight) or fog makes similar colours hard to tell."""
    return (facts.scene.lighting or "day") != "day" or facts.scene.weather == "fog"


def same_color(facts: SceneFacts, a: str, b: str) -> bool:
    """Whether a viewer could take colour ``b`` for ``a`` in this scene's light."""
    return a == b or (dim(facts) and b in CONFUSABLE[a])


def _matches(facts: SceneFacts, o: ObjectFacts, color: bool, texture: bool) -> list[ObjectFacts]:
    return [
        other
        for other in facts.objects
        if other.category == o.category
        and (not color or same_color(facts, o.color, other.color))
        and (not texture or other.texture == o.texture)
    ]


def name(facts: SceneFacts, o: ObjectFacts, *, with_color: bool = True) -> str | None:
    """The shortest definite phrase that picks out ``o`` alone: ``the car``, ``the red car``,
    ``the striped red car``, ``the larger red car``; None when nothing does. With
    ``with_color`` False the colour may not be used (for questions that ask the colour)."""
    if len(_matches(facts, o, False, False)) == 1:
        return f"the {_core(o, False, False)}"
    if not with_color:
        return None
    same = _matches(facts, o, True, False)
    if len(same) == 1:
        return f"the {_core(o, True, False)}"
    if o.texture != "solid" and len(_matches(facts, o, True, True)) == 1:
        return f"the {_core(o, True, True)}"
    if len(same) == 2:
        other = same[0] if same[1].index == o.index else same[1]
        if o.area >= 2.0 * other.area:
            return f"the larger {_core(o, True, False)}"
        if other.area >= 2.0 * o.area:
            return f"the smaller {_core(o, True, False)}"
    return None
