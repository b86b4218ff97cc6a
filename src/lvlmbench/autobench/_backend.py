"""What the pipeline needs from an examiner, whichever kind it is (procedural or a model).

A *unit* is one planned image: a fine aspect, a difficulty level and an index. For each unit the
pipeline runs the chain of stages the backend supplies (:mod:`lvlmbench.autobench.stages`):
a draft (description, and a scene program in scene mode), its rendering, the backend's
validation of the image, and a question written from the description and the recorded errors
only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, Field

from lvlmbench.scenes.forms import QuestionForm

if TYPE_CHECKING:  # the stages are built from this protocol; it names their chain only here
    from lvlmbench.autobench.settings import GenerateSettings
    from lvlmbench.autobench.stages import UnitChain

__all__ = [
    "AspectPlan",
    "AssignedKey",
    "CheckRecord",
    "ExaminerBackend",
    "KeyCheck",
    "KeyMismatch",
    "PlannedAspect",
    "QuestionDraft",
    "UnitDraft",
    "UnitValidation",
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


class ExaminerBackend(Protocol):
    """The procedural examiner and model examiners both implement this."""

    name: str

    async def plan(self, capability: str, n: int, m: int) -> AspectPlan:
        """Aspects and guidelines."""
        ...

    async def describe(
        self, aspect: PlannedAspect, level: str, count: int, seed: int
    ) -> list[dict[str, Any]]:
        """``count`` descriptions (as stored dicts with at least "text") for an aspect and
        level; the semantic-graph diversity rounds happen here."""
        ...

    def question_kind(
        self, settings: GenerateSettings, aspect: PlannedAspect, unit_key: str
    ) -> Literal["mc", "tf"]:
        """Whether the unit's question is multiple choice or a true/false statement (the key
        plan assigns truth values to the latter before any unit is built)."""
        ...

    async def draft(
        self,
        aspect: PlannedAspect,
        level: str,
        description: dict[str, Any],
        seed: int,
        attempt: int,
        assigned: AssignedKey,
    ) -> UnitDraft:
        """The draft to render for a description at an attempt (a new attempt must give a
        different image: a new scene or a new seed). ``seed`` is this unit's and attempt's
        (a sampled redraw is seeded with it); ``assigned`` the key plan's assignment (an
        examiner that writes the question with the draft honours it)."""
        ...

    async def validate(self, draft: UnitDraft, png: bytes, level: str) -> UnitValidation:
        """Self-check the rendered image against the draft."""
        ...

    async def question(
        self,
        draft: UnitDraft,
        errors: list[str],
        level: str,
        assigned: AssignedKey,
        mismatches: Sequence[KeyMismatch] = (),
    ) -> QuestionDraft | str:
        """A question from the description and errors only, of the assigned kind (a statement
        with the assigned truth value), or the reason there is none. ``mismatches``: earlier
        questions for this image whose keys the program contradicted, with why; the examiner
        is asked again with them (a new call, not the cached wrong one)."""
        ...

    async def verify_key(self, draft: UnitDraft, question: QuestionDraft) -> KeyCheck:
        """Recompute the key from the drawn program where possible (a mismatch is re-asked,
        and the unit dropped when the re-asks are used up)."""
        ...

    def stages(self) -> UnitChain:
        """The chain one attempt at a unit runs (normally
        :func:`~lvlmbench.autobench.stages.standard_chain` over this back-end)."""
        ...

    async def aclose(self) -> None:
        """Release the examiner's connections."""
        ...
