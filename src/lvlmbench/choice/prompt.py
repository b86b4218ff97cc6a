"""The prompt an examinee sees for a choice item (multiple choice with lettered options,
true/false) and its inverse, which reads question, options and kind back out of message text.

Both follow the prompt files (``eval/choice_mc.md``, ``eval/choice_tf.md``), so editing a file
changes rendering and parsing together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lvlmbench.prompts import load_prompt, render_prompt
from lvlmbench.types import BenchmarkItem

__all__ = ["ChoiceKind", "ParsedChoice", "parse_choice_prompt", "render_choice_prompt"]

ChoiceKind = Literal["mc", "tf"]
_TEMPLATES: dict[ChoiceKind, str] = {"mc": "eval/choice_mc.md", "tf": "eval/choice_tf.md"}
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class ParsedChoice:
    """A choice prompt read back from message text."""

    question: str
    options: dict[str, str]
    """Options by letter; empty for true/false."""
    kind: ChoiceKind


def render_choice_prompt(item: BenchmarkItem) -> str:
    """The text shown to an examinee for an mc or tf item (from the prompt files).

    Options are listed in letter order, one per line as "A. text", whitespace inside an option
    collapsed so each stays on its line. Raises ValueError for open items, an empty question,
    or mc options whose letters are not A, B, C, ... in sequence.
    """
    question = item.question.strip()
    if not question:
        raise ValueError(f"item {item.id}: empty question")
    if item.kind == "tf":
        return render_prompt(_TEMPLATES["tf"], question=question).strip()
    if item.kind != "mc":
        raise ValueError(f"item {item.id} is {item.kind!r}; only mc and tf have choice prompts")
    keys = sorted(item.options)
    if not keys or keys != list(_LETTERS[: len(keys)]):
        raise ValueError(f"item {item.id}: options must be lettered A, B, C, ...; got {keys}")
    lines = "\n".join(f"{k}. {' '.join(item.options[k].split())}" for k in keys)
    return render_prompt(_TEMPLATES["mc"], question=question, options=lines).strip()


def _pieces(kind: ChoiceKind) -> list[str]:
    # The literal text around the placeholders, so parsing follows the prompt file if it changes.
    return re.split(r"\{(?:question|options)\}", load_prompt(_TEMPLATES[kind]).strip())


def _question_before(text: str, head: str) -> str | None:
    # Text before the prompt (a description the runner put first) stays part of the question.
    question = text.rsplit(head, 1)[-1] if head else text
    return question.strip() or None


_OPTION_LINE = re.compile(r"([A-Z])\. (.*)")


def _parse_mc(body: str) -> ParsedChoice | None:
    head, between, tail = _pieces("mc")
    if not body.endswith(tail):
        return None
    lines = body[: len(body) - len(tail)].split("\n")
    options: dict[str, str] = {}
    # Read option lines bottom-up until "A."; a question that itself ends in "D. ..." lines is
    # still split right because the letters must count down to A without a gap.
    while lines and "A" not in options:
        match = _OPTION_LINE.fullmatch(lines.pop())
        if match is None:
            return None
        letter, text = match.groups()
        if options and ord(letter) != ord(min(options)) - 1:
            return None
        options[letter] = text
    rest = "\n".join(lines) + "\n" if lines else ""  # up to where the "A." line starts
    if "A" not in options or not rest.endswith(between):
        return None
    question = _question_before(rest[: len(rest) - len(between)], head)
    return ParsedChoice(question, dict(sorted(options.items())), "mc") if question else None


def _parse_tf(body: str) -> ParsedChoice | None:
    head, tail = _pieces("tf")
    if not body.endswith(tail):
        return None
    question = _question_before(body[: len(body) - len(tail)], head)
    return ParsedChoice(question, {}, "tf") if question else None


def parse_choice_prompt(text: str) -> ParsedChoice | None:
    """The question, options and kind of a prompt made by :func:`render_choice_prompt`, or None
    when ``text`` does not end with one (open-ended prompts). Text before the prompt (e.g. an
    image description) comes back as part of the question."""
    body = text.strip()
    return _parse_mc(body) or _parse_tf(body)
