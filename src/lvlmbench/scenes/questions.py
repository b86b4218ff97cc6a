"""Questions with a known answer, kept as the correct option plus its distractors.

The correct option and the distractors are stored apart so that a later stage (position
balancing) decides where the key goes; :meth:`Question.arrange` and :meth:`Question.permute`
produce the lettered options for any placement.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "LETTERS",
    "Question",
    "count_options",
    "mc",
    "tf",
]

LETTERS = ("A", "B", "C", "D")


class Question(BaseModel):
    """One multiple-choice (four options) or true/false question about a scene."""

    model_config = ConfigDict(frozen=True)
    text: str
    """The question as shown to the examinee (without the options)."""
    kind: Literal["mc", "tf"]
    """mc: options A-D with one correct; tf: answer true or false."""
    correct: str
    """Text of the correct option (mc) or "true"/"false" (tf)."""
    distractors: list[str]
    """The three wrong options (mc) or the wrong truth value (tf)."""
    evidence: list[str] = Field(default_factory=list)
    """Sentences stating the facts the answer rests on (the description includes them)."""
    subjects: list[int] = Field(default_factory=list)
    """Indices of the objects the question is about."""

    @model_validator(mode="after")
    def _well_formed(self) -> Question:
        options = [self.correct, *self.distractors]
        if len({o.strip().lower() for o in options}) != len(options):
            raise ValueError(f"options must be distinct: {options}")
        if self.kind == "mc" and len(self.distractors) != 3:
            raise ValueError("a multiple-choice question needs exactly three distractors")
        if self.kind == "tf" and sorted(options) != ["false", "true"]:
            raise ValueError("a true/false question answers 'true' or 'false'")
        return self

    def permute(self, order: Sequence[int]) -> tuple[dict[str, str], str]:
        """Options for a permutation of ``[correct, *distractors]`` (``order[k]`` is the item
        shown at letter k) and the answer letter. True/false questions have no options and
        their answer is "true" or "false"."""
        if self.kind == "tf":
            return {}, self.correct
        items = [self.correct, *self.distractors]
        if sorted(order) != list(range(len(items))):
            raise ValueError(f"not a permutation of 0..{len(items) - 1}: {list(order)}")
        options = {LETTERS[k]: items[i] for k, i in enumerate(order)}
        return options, LETTERS[list(order).index(0)]

    def arrange(self, letter: str = "A") -> tuple[dict[str, str], str]:
        """Options with the correct one at ``letter`` and the distractors, in their stored
        order, in the other slots."""
        if self.kind == "tf":
            return {}, self.correct
        slot = LETTERS.index(letter.upper())
        order = [1, 2, 3]
        order.insert(slot, 0)
        return self.permute(order)

    def prompt(self, options: dict[str, str] | None = None) -> str:
        """The question with its options, one per line, as an examinee would see it."""
        if self.kind == "tf":
            return f"{self.text} Answer true or false."
        shown = options if options is not None else self.arrange()[0]
        lines = [self.text, *(f"{letter}. {text}" for letter, text in shown.items())]
        return "\n".join(lines)


def _unique(items: Iterable[str], exclude: str) -> list[str]:
    seen = {exclude.lower()}
    out = []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out


def mc(
    text: str,
    correct: str,
    preferred: Iterable[str],
    rng: random.Random,
    *,
    fallback: Iterable[str] = (),
    evidence: Sequence[str] = (),
    subjects: Sequence[int] = (),
) -> Question | None:
    """A multiple-choice question: three distractors drawn from ``preferred`` (plausible ones,
    e.g. colours present in the scene) and, if those run out, from ``fallback``. None when
    fewer than three distinct distractors exist."""
    first = _unique(preferred, correct)
    rng.shuffle(first)
    rest = [item for item in _unique(fallback, correct) if item not in first]
    rng.shuffle(rest)
    pool = (first + rest)[:3]
    if len(pool) < 3:
        return None
    return Question(
        text=text,
        kind="mc",
        correct=correct,
        distractors=pool,
        evidence=list(evidence),
        subjects=list(subjects),
    )


def tf(
    statement: str, truth: bool, *, evidence: Sequence[str] = (), subjects: Sequence[int] = ()
) -> Question:
    """A true/false question about ``statement``."""
    return Question(
        text=f"True or false: {statement}",
        kind="tf",
        correct="true" if truth else "false",
        distractors=["false" if truth else "true"],
        evidence=list(evidence),
        subjects=list(subjects),
    )


def count_options(n: int, rng: random.Random) -> list[str]:
    """Three wrong counts near ``n`` (never negative, never zero unless n is small)."""
    near = [n - 1, n + 1, n - 2, n + 2, n + 3, n - 3, n + 4]
    floor = 0 if n <= 1 else 1
    picked = [k for k in near if k >= floor and k != n][:4]
    rng.shuffle(picked)
    return [str(k) for k in sorted(picked[:3])]
