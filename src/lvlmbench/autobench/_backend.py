"""What the pipeline needs from an examiner, whichever kind it is (procedural or a model).

A *unit* is one planned image: a fine aspect, a difficulty level and an index. For each unit the
pipeline runs the chain of stages the backend supplies (:mod:`lvlmbench.autobench.stages`):
a draft (description, and a scene program in scene mode), its rendering, the backend's
validation of the image, and a question written from the description and the recorded errors
only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

from lvlmbench.autobench._drafts import (
    AspectPlan,
    AssignedKey,
    CheckRecord,
    KeyCheck,
    KeyMismatch,
    PlannedAspect,
    QuestionDraft,
    SceneSeed,
    StoredDescription,
    UnitDraft,
    UnitValidation,
)

if TYPE_CHECKING:  # the protocol names the chain type only in annotations
    from lvlmbench.autobench._chain import UnitChain
    from lvlmbench.autobench.settings import GenerateSettings

__all__ = [
    "AspectPlan",
    "AssignedKey",
    "CheckRecord",
    "ExaminerBackend",
    "KeyCheck",
    "KeyMismatch",
    "PlannedAspect",
    "QuestionDraft",
    "SceneSeed",
    "StoredDescription",
    "UnitDraft",
    "UnitValidation",
]


class ExaminerBackend(Protocol):
    """The procedural examiner and model examiners both implement this."""

    name: str

    async def plan(self, capability: str, n: int, m: int) -> AspectPlan:
        """Aspects and guidelines."""
        ...

    async def describe(
        self, aspect: PlannedAspect, level: str, count: int, seed: int
    ) -> list[StoredDescription]:
        """``count`` descriptions for an aspect and level, in the back-end's own stored shape
        (a failed round keeps its place); the semantic-graph diversity rounds happen here."""
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
        description: StoredDescription,
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
