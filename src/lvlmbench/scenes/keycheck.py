"""Checking an examiner's answer key against the facts of the scene program it wrote.

In scene mode a model examiner writes a scene program, the renderer draws it exactly, and the
examiner then writes a question from the description. The key is the examiner's claim; the
program's facts say what is really drawn. For the question forms whose answer the facts decide
(how many X, what colour is the X, "the X is C", "there is/are N X"), the key is recomputed and
a disagreement is a mismatch, and so is a distractor that is also right. Any other question is
"not checkable" and says so; it is never guessed.

Counts include hidden objects, as the facts do; objects are named by category (and colour).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lvlmbench.scenes.facts import SceneFacts
from lvlmbench.scenes.palette import CATEGORIES, COLOR_NAMES, plural
from lvlmbench.scenes.words import NUMBER_WORDS

__all__ = ["KeyVerdict", "check_key"]

# Counts as the question writer spells them (words up to twelve, then digits), and the words a
# model examiner may use beyond that.
_BEYOND_TWELVE = [
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_NUMBER_VALUE = {"zero": 0} | {w: n for n, w in enumerate((*NUMBER_WORDS, *_BEYOND_TWELVE))}
_COLOURS = {name: name for name in COLOR_NAMES} | {"grey": "gray", "colour": "", "color": ""}
_NOUNS = {plural(c): c for c in CATEGORIES} | {c: c for c in CATEGORIES}


@dataclass(frozen=True)
class KeyVerdict:
    """Whether the facts confirm the key."""

    verdict: Literal["verified", "mismatch", "not checkable"]
    reason: str


def _number(text: str) -> int | None:
    word = text.strip().lower().rstrip(".")
    if word.isdigit():
        return int(word)
    return _NUMBER_VALUE.get(word)


def _colour(text: str) -> str | None:
    return _COLOURS.get(text.strip().lower().rstrip(".")) or None


def _target(words: list[str]) -> tuple[str | None, str | None]:
    """The first category named in ``words`` and the colour word right before it, if any."""
    for i, word in enumerate(words):
        if word in _NOUNS:
            before = _colour(words[i - 1]) if i else None
            return _NOUNS[word], before
    return None, None


def _verdict(claimed: object, actual: object, what: str, others: list[object]) -> KeyVerdict:
    if claimed is None:
        return KeyVerdict("not checkable", f"the key is not a {what}")
    if claimed != actual:
        return KeyVerdict("mismatch", f"key says {claimed}, the program has {actual}")
    if actual in others:
        return KeyVerdict("mismatch", f"a distractor is also right ({actual})")
    return KeyVerdict("verified", f"{what} {actual} recomputed from the program")


def _count_question(
    facts: SceneFacts, words: list[str], kind: str, correct: str, distractors: list[str]
) -> KeyVerdict | None:
    if "how" not in words or "many" not in words:
        return None
    category, colour = _target(words[words.index("many") + 1 :])
    if category is None or kind != "mc":
        return KeyVerdict("not checkable", "a count of something the program does not name")
    actual = len(facts.select(category, colour))
    others: list[object] = [_number(d) for d in distractors]
    return _verdict(_number(correct), actual, "count", others)


def _colour_question(
    facts: SceneFacts, text: str, words: list[str], kind: str, correct: str, distractors: list[str]
) -> KeyVerdict | None:
    match = re.search(r"what colou?r (?:is|are) (.*)", text)
    if match is None:
        return None
    category, _ = _target(match.group(1).split())
    shades = {o.color for o in facts.select(category)} if category else set()
    if len(shades) != 1 or kind != "mc":
        return KeyVerdict("not checkable", "not one colour for the object asked about")
    (actual,) = shades
    others: list[object] = [_colour(d) for d in distractors]
    return _verdict(_colour(correct), actual, "colour", others)


def _statement(facts: SceneFacts, text: str, correct: str) -> KeyVerdict | None:
    """True/false: "the X is C" (one X in the scene) or "there is/are N (C) X"."""
    claimed = {"true": True, "false": False}.get(correct.strip().lower())
    colour_of = re.fullmatch(r"the (\w+) is (\w+)\.?", text)
    if colour_of and colour_of.group(1) in _NOUNS and _colour(colour_of.group(2)):
        objects = facts.select(_NOUNS[colour_of.group(1)])
        if len(objects) != 1:
            return KeyVerdict("not checkable", "the statement's object is not unique")
        truth = objects[0].color == _colour(colour_of.group(2))
    else:
        there = re.fullmatch(
            r"there (?:is|are) (\w+) (?:(\w+) )?(\w+)(?: in the (?:image|picture))?\.?", text
        )
        if there is None or there.group(3) not in _NOUNS:
            return None
        count = 1 if there.group(1) in ("a", "an") else _number(there.group(1))
        colour = _colour(there.group(2)) if there.group(2) else None
        if count is None or (there.group(2) and colour is None):
            return None
        truth = len(facts.select(_NOUNS[there.group(3)], colour)) == count
    if claimed is None:
        return KeyVerdict("not checkable", "a true/false key that is neither true nor false")
    if claimed != truth:
        return KeyVerdict("mismatch", f"key says {correct}, the program makes it {truth}")
    return KeyVerdict("verified", "truth recomputed from the program")


def check_key(
    facts: SceneFacts, question: str, kind: str, correct: str, distractors: list[str]
) -> KeyVerdict:
    """Recompute the key of ``question`` from ``facts`` where the question's form allows."""
    text = " ".join(question.lower().replace("?", " ").split())
    words = re.findall(r"[a-z0-9]+", text)
    if kind == "tf":
        verdict = _statement(facts, text, correct)
    else:
        verdict = _count_question(facts, words, kind, correct, distractors) or _colour_question(
            facts, text, words, kind, correct, distractors
        )
    return verdict or KeyVerdict("not checkable", "a question form the facts do not decide")
