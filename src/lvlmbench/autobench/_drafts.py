"""The records an examiner back-end hands the pipeline: the planned aspects, a unit's draft, its
question, its self-check and key check. They sit below both the back-end protocol
(:mod:`lvlmbench.autobench._backend`) and the chain of stages that carries them, so neither of
those imports the other in a loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from lvlmbench.scenes.forms import QuestionForm

__all__ = [
    "AspectPlan",
    "AssignedKey",
    "CheckRecord",
    "Description",
    "FailedDescription",
    "KeyCheck",
    "KeyMismatch",
    "PlannedAspect",
    "QuestionDraft",
    "SceneSeed",
    "StoredDescription",
    "UnitDraft",
    "UnitValidation",
    "stored_descriptions",
]


class PlannedAspect(BaseModel):
    """One fine-grained aspect with its capability, general aspect and guideline."""

    capability: str
    general: str
    fine: str
    guideline: str
    requested: str | None = None
    """The free-text capability this built-in aspect was chosen for (None: the capability
    was asked for by name)."""
    mapping: str | None = None
    """Why this aspect stands for ``requested`` (the words it matched)."""

    @property
    def tested(self) -> str:
        """The capability items of this aspect test, as the user named it."""
        return self.requested or self.capability


class AspectPlan(BaseModel):
    """Stages 1–2: the aspects (with guidelines) a benchmark covers, and what went wrong."""

    capability: str
    """The capability as the examiner understood it (the procedural examiner may map free text
    to a built-in capability; ``note`` says so)."""
    aspects: list[PlannedAspect]
    problems: list[str] = Field(default_factory=list)
    note: str | None = None


class Description(BaseModel):
    """One image description with the diversity bookkeeping of its round (a model examiner's,
    :func:`lvlmbench.autobench.descriptions.write_descriptions`)."""

    text: str
    """The description the text-to-image model renders."""
    topic: str
    """The round's topic word."""
    keywords: list[str]
    """The round's keywords."""
    round: int
    """1-based round number within its (fine aspect, level); also the sampling epoch."""
    banned_words_shown: list[str] = Field(default_factory=list)
    """Banned words listed in this round's prompt."""
    violations: list[str] = Field(default_factory=list)
    """Banned words the examiner used anyway (accepted, but flagged)."""


class FailedDescription(BaseModel):
    """A model examiner's round that wrote no description: it keeps its place, so unit indices
    stay stable on resume, and its unit is dropped with ``failure`` as the reason."""

    text: None = None
    failure: str
    """The round's status and reason ("unparseable: ...")."""


class SceneSeed(BaseModel):
    """The procedural examiner's description: only the scene's seed (its description is drawn
    with the scene, in the back-end's ``draft``)."""

    index: int
    """The unit's place in its (fine aspect, level)."""
    seed: int


StoredDescription = Description | FailedDescription | SceneSeed
"""A description as the ``descriptions`` artifact keeps it, one shape per back-end (a failed
round of a model examiner has its own). The shapes share no required field, so a stored one
is read back as exactly the kind that wrote it."""

_STORED = TypeAdapter(list[StoredDescription])


def stored_descriptions(data: object) -> list[StoredDescription]:
    """The descriptions of a stored ``descriptions`` artifact, typed (as written since the
    pipeline began: :class:`Description`, :class:`FailedDescription` or :class:`SceneSeed`
    dumped to JSON)."""
    return _STORED.validate_python(data)


class QuestionDraft(BaseModel):
    """A question before position balancing: correct option text plus distractors."""

    text: str
    kind: Literal["mc", "tf"]
    correct: str
    """Correct option text (mc) or "true"/"false" (tf)."""
    distractors: list[str]
    """Three wrong options (mc); empty or the other truth value (tf)."""
    form: QuestionForm | None = None
    """What the question asks in the scene program's words (a model examiner in scene mode
    writes it; the key check evaluates it against the program's facts)."""


class CheckRecord(BaseModel):
    """One self-check question about the image and how it was answered."""

    question: str
    expected: str
    answered: str | None
    correct: bool
    element: str
    """The element of the description the check is about (what becomes an error)."""


class UnitValidation(BaseModel):
    """The self-check of one rendered image."""

    score: float
    """Alignment: correct checks / checks."""
    checks: list[CheckRecord]
    errors: list[str]
    """Failed elements: the image got these wrong, so no question may be about them."""
    method: str
    """How the checks were answered (examiner VQA, pixel colour check...)."""


class KeyCheck(BaseModel):
    """Whether the question's key was recomputed from what was drawn, and agrees."""

    verdict: Literal["verified", "mismatch", "not checkable"]
    reason: str
    reasks: int = 0
    """How often the question was asked again after a mismatch before this verdict."""
    mismatches: list[str] = Field(default_factory=list)
    """Why each earlier question for the image was re-asked (the audit trail)."""


@dataclass(frozen=True)
class KeyMismatch:
    """A question whose key the drawn program contradicted, and why (fed back on re-ask)."""

    question: QuestionDraft
    reason: str


@dataclass(frozen=True)
class AssignedKey:
    """What the key plan assigned a unit before it was built (:mod:`.keyplan`)."""

    kind: Literal["mc", "tf"]
    """The question the back-end writes: multiple choice or a true/false statement."""
    truth: bool | None = None
    """tf: the truth value the statement must have (None for mc)."""


@dataclass
class UnitDraft:
    """What the backend wrote for one unit at one attempt."""

    description: str
    scene: dict[str, Any] | None = None
    """Scene program in scene mode, None in text mode."""
    question: QuestionDraft | None = None
    """Set when the examiner writes the question together with the scene (procedural)."""
    subjects: list[str] = field(default_factory=list)
    """Elements the pre-written question depends on: if any fails validation, re-draw."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Stored with the item's metadata (facts, open-ended instructions, topic...)."""
    failure: str | None = None
    """Why no usable draft came out (the unit is then dropped and recorded)."""
