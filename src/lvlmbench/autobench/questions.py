"""Stage 6: one question per image, with error control.

The examiner sees only the description and the recorded errors (the elements the image got
wrong), never the image: its own vision must not shape the benchmark, and no question may be
about an element the picture does not show as described. Position balancing happens later, so
a draft holds the correct option's text and its distractors, not letters.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from lvlmbench.autobench._results import StageResult, writer_messages
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.types import GenerationConfig, Status

__all__ = ["QuestionDraft", "write_question"]

_CONFIG = GenerationConfig(temperature=0.0, max_tokens=700)


def _key(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".")


class QuestionDraft(BaseModel):
    """A question before position balancing."""

    question: str = Field(min_length=5)
    """mc: the question; tf: a statement about the image to judge true or false."""
    kind: Literal["mc", "tf"]
    """mc: four options A–D after balancing; tf: true/false."""
    correct: str = Field(min_length=1)
    """mc: the correct option's text; tf: "true" or "false"."""
    distractors: list[str] = Field(default_factory=list)
    """mc: exactly three distinct wrong options; tf: empty."""

    @field_validator("question", "correct", mode="before")
    @classmethod
    def _collapsed(cls, value: object) -> object:
        return " ".join(value.split()) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _well_formed(self) -> QuestionDraft:
        if self.kind == "tf":
            self.correct = self.correct.lower().rstrip(".")
            if self.correct not in ("true", "false"):
                raise ValueError('a true/false question\'s "correct" must be "true" or "false"')
            if self.distractors:
                raise ValueError('a true/false question has no "distractors" (use [])')
            return self
        self.distractors = [" ".join(d.split()) for d in self.distractors]
        keys = [_key(d) for d in self.distractors]
        if len(keys) != 3:
            raise ValueError(
                f"a multiple-choice question needs exactly 3 distractors, got {len(keys)}"
            )
        if not all(keys) or len(set(keys)) != 3:
            raise ValueError("the 3 distractors must be distinct and non-empty")
        if _key(self.correct) in keys:
            raise ValueError("no distractor may equal the correct answer")
        return self


class _McDraft(QuestionDraft):
    """Reply schema when a multiple-choice question was asked for."""

    kind: Literal["mc"]


class _TfDraft(QuestionDraft):
    """Reply schema when a true/false question was asked for."""

    kind: Literal["tf"]


def _errors_block(errors: list[str]) -> str:
    return "\n".join(f"- {e}" for e in errors) if errors else "- (none)"


async def write_question(
    examiner: ModelClient,
    description: str,
    errors: list[str],
    level: str,
    kind: Literal["mc", "tf"],
    *,
    focus: str | None = None,
    max_reasks: int = 2,
) -> StageResult[QuestionDraft]:
    """A question about the image of ``description`` that avoids every element in ``errors``.

    ``focus`` (optional) names what the question should test, e.g. the capability and fine
    aspect; it says nothing about the image. No image is ever sent.
    """
    if kind not in ("mc", "tf"):
        raise ValueError(f"kind must be 'mc' or 'tf', got {kind!r}")
    messages = writer_messages(
        f"autobench/question_{kind}.md",
        description=description,
        errors=_errors_block(errors),
        level=level,
        focus=render_prompt("autobench/question_focus.md", focus=focus) if focus else "",
    )
    schema: type[QuestionDraft] = _McDraft if kind == "mc" else _TfDraft
    result = await examiner.generate_json(messages, schema, _CONFIG, max_reasks)
    if result.value is None:
        return StageResult.failure(result.status, str(result.reason), result.attempts)
    # Hand back the plain model so stored drafts do not depend on the reply schemas.
    draft = QuestionDraft.model_validate(result.value.model_dump())
    return StageResult(draft, Status.OK, None, result.attempts)
