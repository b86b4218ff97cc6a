"""Stage 6: one question per image, with error control.

The examiner sees only the description and the recorded errors (the elements the image got
wrong), never the image: its own vision must not shape the benchmark, and no question may be
about an element the picture does not show as described. Position balancing happens later, so
a draft holds the correct option's text and its distractors, not letters; a true/false
statement is asked for with the truth value the key plan assigned it.

In scene mode the draft also carries the question's structured form
(:class:`~lvlmbench.scenes.forms.QuestionForm`), which the key check evaluates against the
program's facts; a key the program contradicts is asked again with the reason (a new call, so
the cache does not hand back the same wrong key).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import ClassVar, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from lvlmbench.autobench._results import StageResult, writer_messages
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.scenes.forms import QuestionForm
from lvlmbench.scenes.palette import CATEGORIES, COLOR_NAMES
from lvlmbench.types import GenerationConfig, Message, Status

__all__ = ["QuestionDraft", "Reasked", "write_question"]

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
    form: QuestionForm | None = None
    """Scene mode: what the question asks, in the scene program's words (for the key check)."""

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


class _Reply(QuestionDraft):
    """Reply schema: the kind asked for, and a statement's assigned truth value."""

    asked: ClassVar[str] = "mc"
    truth: ClassVar[str | None] = None

    @model_validator(mode="after")
    def _as_asked(self) -> _Reply:
        if self.kind != self.asked:
            raise ValueError(f'"kind" must be "{self.asked}"')
        if self.truth is not None and self.correct != self.truth:
            raise ValueError(
                f'this statement must be {self.truth} for the image ("correct": '
                f'"{self.truth}"): write one that is'
            )
        return self


class _McDraft(_Reply):
    """Reply schema when a multiple-choice question was asked for."""

    kind: Literal["mc"]


class _TfDraft(_Reply):
    """Reply schema when a true/false question was asked for."""

    asked = "tf"
    kind: Literal["tf"]


class _FormReply(_Reply):
    """Scene mode: the structured form is required and must fit the question's kind."""

    form: QuestionForm

    @model_validator(mode="after")
    def _form_fits(self) -> _FormReply:
        problem = self.form.problem(self.kind)
        if problem is not None:
            raise ValueError(f'"form" does not fit the question: {problem}')
        return self


class _McSceneDraft(_FormReply, _McDraft):
    """Scene mode, multiple choice."""


class _TfSceneDraft(_FormReply, _TfDraft):
    """Scene mode, true/false."""


@cache
def _schema(kind: str, scene: bool, truth: str | None) -> type[_Reply]:
    """The reply schema for a question of ``kind`` (with its form in scene mode) and, for a
    statement, its assigned truth value."""
    base: type[_Reply] = {
        ("mc", False): _McDraft,
        ("tf", False): _TfDraft,
        ("mc", True): _McSceneDraft,
        ("tf", True): _TfSceneDraft,
    }[(kind, scene)]
    if truth is None:
        return base
    return type(f"{base.__name__}{truth.title()}", (base,), {"truth": truth})


@dataclass(frozen=True)
class Reasked:
    """An earlier reply for the same image whose key the scene program contradicted."""

    reply: QuestionDraft
    reason: str


def _errors_block(errors: list[str]) -> str:
    return "\n".join(f"- {e}" for e in errors) if errors else "- (none)"


def _messages(
    kind: Literal["mc", "tf"],
    description: str,
    errors: list[str],
    level: str,
    focus: str | None,
    truth: str | None,
    scene: bool,
) -> list[Message]:
    extra: dict[str, str] = {}
    if kind == "tf":
        rule = "autobench/question_truth_free.md"
        if truth is not None:
            rule = "autobench/question_truth.md"
        extra = {
            "truth": render_prompt(rule, truth=truth).rstrip("\n"),
            "correct": truth or "true",
        }
    form = ""
    if scene:
        form = render_prompt(
            "autobench/question_form.md",
            categories=", ".join(CATEGORIES),
            colors=", ".join(COLOR_NAMES),
        )
    return writer_messages(
        f"autobench/question_{kind}.md",
        description=description,
        errors=_errors_block(errors),
        level=level,
        focus=render_prompt("autobench/question_focus.md", focus=focus) if focus else "",
        form=form,
        **extra,
    )


async def write_question(
    examiner: ModelClient,
    description: str,
    errors: list[str],
    level: str,
    kind: Literal["mc", "tf"],
    *,
    focus: str | None = None,
    max_reasks: int = 2,
    truth: bool | None = None,
    scene: bool = False,
    reasked: Sequence[Reasked] = (),
) -> StageResult[QuestionDraft]:
    """A question about the image of ``description`` that avoids every element in ``errors``.

    ``focus`` (optional) names what the question should test, e.g. the capability and fine
    aspect; it says nothing about the image. No image is ever sent. ``truth``: the truth value
    a statement must have (None: the examiner chooses). ``scene``: the image was drawn from a
    scene program, so the reply carries the question's form. ``reasked``: earlier replies whose
    keys the program contradicted; each goes back to the examiner with its reason.
    """
    if kind not in ("mc", "tf"):
        raise ValueError(f"kind must be 'mc' or 'tf', got {kind!r}")
    wanted = None if truth is None or kind != "tf" else ("true" if truth else "false")
    messages = _messages(kind, description, errors, level, focus, wanted, scene)
    for earlier in reasked:
        messages += [
            Message.assistant(earlier.reply.model_dump_json(exclude_none=True)),
            Message.user(render_prompt("autobench/question_reask_key.md", reason=earlier.reason)),
        ]
    schema = _schema(kind, scene, wanted)
    result = await examiner.generate_json(messages, schema, _CONFIG, max_reasks)
    if result.value is None:
        return StageResult.failure(result.status, str(result.reason), result.attempts)
    # Hand back the plain model so stored drafts do not depend on the reply schemas.
    draft = QuestionDraft.model_validate(result.value.model_dump())
    return StageResult(draft, Status.OK, None, result.attempts)
