"""Stage 5's self-check: does the rendered image show what its description says?

The examiner writes ``k`` simple checks (yes/no or multiple-choice) whose answers the
description implies, then answers each one *on the image*, as a plain LVLM that sees only the
picture and the question. Alignment = correct / k, and :func:`decide` applies the threshold ζ:
below it the image is rejected (regenerated), from ζ up to 1 it is accepted with the failed
elements recorded as its errors, at 1 it is accepted clean.
"""

from __future__ import annotations

import asyncio
import re
from functools import cache
from string import ascii_uppercase
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from lvlmbench.autobench._results import StageResult, writer_messages
from lvlmbench.autobench._unit import Decision
from lvlmbench.autobench.settings import DEFAULT_ZETA
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.types import GenerationConfig, ImagePart, Message, Status

__all__ = [
    "DEFAULT_ZETA",
    "Check",
    "CheckOutcome",
    "CheckSet",
    "Decision",
    "Validation",
    "answer_checks_on_image",
    "decide",
    "extract_check_answer",
    "write_checks",
]

_WRITE_CONFIG = GenerationConfig(temperature=0.0, max_tokens=1200)
_ANSWER_CONFIG = GenerationConfig(temperature=0.0, max_tokens=32)
# Scores are ratios of small integers; this absorbs float noise when comparing with ζ.
_EPS = 1e-9


class Check(BaseModel):
    """One self-check question about an image, answerable from the description."""

    question: str = Field(min_length=3)
    """A simple question about one element of the description."""
    kind: Literal["yn", "mc"]
    """yn: yes/no question; mc: multiple choice over ``options``."""
    options: list[str] = Field(default_factory=list, max_length=4)
    """mc: 2–4 distinct options; yn: empty."""
    answer: str
    """yn: "yes" or "no"; mc: the text of the correct option."""
    element: str = Field(min_length=1)
    """The element of the description the check is about (it becomes an error if it fails)."""

    @model_validator(mode="after")
    def _consistent(self) -> Check:
        if self.kind == "yn":
            if self.options:
                raise ValueError("a yes/no check has no options")
            self.answer = self.answer.strip().lower().rstrip(".")
            if self.answer not in ("yes", "no"):
                raise ValueError('a yes/no check\'s answer must be "yes" or "no"')
            return self
        keys = [o.strip().casefold() for o in self.options]
        if len(keys) < 2 or len(set(keys)) != len(keys) or not all(keys):
            raise ValueError("a multiple-choice check needs 2 to 4 distinct, non-empty options")
        if self.answer.strip().casefold() not in keys:
            raise ValueError("a multiple-choice check's answer must be one of its options")
        self.answer = self.options[keys.index(self.answer.strip().casefold())]
        return self


class CheckSet(BaseModel):
    """The checks written for one description."""

    checks: list[Check] = Field(min_length=1)


@cache
def _checks_schema(k: int) -> type[CheckSet]:
    """CheckSet that needs at least ``k`` checks, so a short reply is re-asked."""

    class Checks(CheckSet):
        checks: list[Check] = Field(min_length=k)

    return Checks


async def write_checks(
    examiner: ModelClient, description: str, k: int, *, max_reasks: int = 2
) -> StageResult[CheckSet]:
    """``k`` checks about ``description`` (extra checks beyond ``k`` are dropped)."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    messages = writer_messages("autobench/checks.md", description=description, k=k)
    result = await examiner.generate_json(messages, _checks_schema(k), _WRITE_CONFIG, max_reasks)
    if result.value is None:
        return StageResult.failure(result.status, str(result.reason), result.attempts)
    checks = CheckSet(checks=result.value.checks[:k])
    return StageResult(checks, Status.OK, None, result.attempts)


class CheckOutcome(BaseModel):
    """One check as answered on the image."""

    question: str
    kind: Literal["yn", "mc"]
    options: list[str]
    element: str
    expected: str
    """The answer the description implies."""
    answered: str | None
    """The examiner's answer read from its reply ("yes"/"no" or option text); None if unread."""
    raw: str
    """The examiner's reply as written."""
    correct: bool
    """Whether ``answered`` equals ``expected``; False when there is no readable answer."""
    status: Status
    """ok; unparseable when the reply held no strict answer; error/refused when the call did."""
    reason: str | None = None


class Validation(BaseModel):
    """The self-check of one image."""

    score: float
    """Alignment: correct checks / all checks (unreadable answers count as failed)."""
    checks: list[CheckOutcome]
    errors: list[str]
    """The failed elements, one line per failed check: no question may be asked about them."""
    status: Status = Status.OK
    """error when some check could not be put to the model at all (the score then counts it
    as failed, but the pipeline may prefer to retry rather than trust the rejection)."""
    reason: str | None = None


# A bare option letter: "B", "B.", "B)", "B:", "(B)" — optionally followed by the option text.
_LETTER = re.compile(r"^(?:\(([A-Za-z])\)|([A-Za-z])(?:[.):]|$))")
_PREFIX = re.compile(r"^\s*(?:the\s+)?answer\s*(?:is)?\s*[:\-]?\s*", re.IGNORECASE)


def extract_check_answer(check: Check, reply: str) -> str | None:
    """The answer in ``reply`` read strictly, or None.

    yes/no: the reply must start with "yes" or "no", without the other word right after it
    ("yes or no" is no answer). Multiple choice: the reply is exactly one option's text, or
    starts with a bare option letter ("B", "(B)", "B.", "B) blue"); "B blue" is not read.
    """
    text = _PREFIX.sub("", reply.strip().strip("*`\"' ")).strip()
    if check.kind == "yn":
        words = re.findall(r"[a-z]+", text.lower())
        if not words or words[0] not in ("yes", "no"):
            return None
        other = "no" if words[0] == "yes" else "yes"
        return None if other in words[:3] else words[0]
    exact = text.rstrip(".").strip().casefold()
    for option in check.options:
        if option.strip().casefold() == exact:
            return option
    match = _LETTER.match(text)
    letters = ascii_uppercase[: len(check.options)]
    letter = (match.group(1) or match.group(2)).upper() if match else None
    return check.options[letters.index(letter)] if letter and letter in letters else None


async def _answer_one(examiner: ModelClient, check: Check, image: ImagePart) -> CheckOutcome:
    if check.kind == "yn":
        prompt = render_prompt("autobench/check_answer_yn.md", question=check.question)
    else:
        options = "\n".join(f"{ascii_uppercase[i]}. {o}" for i, o in enumerate(check.options))
        prompt = render_prompt(
            "autobench/check_answer_mc.md",
            question=check.question,
            options=options,
            letters=", ".join(ascii_uppercase[: len(check.options)]),
        )
    output = await examiner.generate([Message.user(image, prompt)], _ANSWER_CONFIG)
    answered = extract_check_answer(check, output.text) if output.ok else None
    if not output.ok:
        status, reason = output.status, output.reason
    elif answered is None:
        status, reason = Status.UNPARSEABLE, "no strict answer in the reply"
    else:
        status, reason = Status.OK, None
    return CheckOutcome(
        question=check.question,
        kind=check.kind,
        options=check.options,
        element=check.element,
        expected=check.answer,
        answered=answered,
        raw=output.text,
        correct=answered is not None and answered == check.answer,
        status=status,
        reason=reason,
    )


def _error_line(outcome: CheckOutcome) -> str:
    seen = f'"{outcome.answered}"' if outcome.answered is not None else "no readable answer"
    return (
        f'{outcome.element} (check "{outcome.question}": expected "{outcome.expected}", '
        f"the image gave {seen})"
    )


async def answer_checks_on_image(
    examiner: ModelClient, checks: CheckSet, image_png: bytes
) -> Validation:
    """The examiner answers every check on the image; the result scores the alignment."""
    image = ImagePart.from_bytes(image_png)
    outcomes = list(await asyncio.gather(*(_answer_one(examiner, c, image) for c in checks.checks)))
    failed = [o for o in outcomes if not o.correct]
    broken = [o for o in outcomes if o.status is Status.ERROR]
    return Validation(
        score=(len(outcomes) - len(failed)) / len(outcomes),
        checks=outcomes,
        errors=[_error_line(o) for o in failed],
        status=Status.ERROR if broken else Status.OK,
        reason=f"{len(broken)} check(s) got no answer: {broken[0].reason}" if broken else None,
    )


def decide(validation: Validation, zeta: float) -> Decision:
    """reject below ζ; accept_with_errors from ζ up to (not incl.) 1; accept at 1."""
    if not 0.0 <= zeta <= 1.0:
        raise ValueError(f"zeta must lie in [0, 1], got {zeta}")
    if validation.score >= 1.0 - _EPS:
        return Decision.ACCEPT
    if validation.score < zeta - _EPS:
        return Decision.REJECT
    return Decision.ACCEPT_WITH_ERRORS
