"""The chain one attempt at a unit runs: the values passed from stage to stage (a unit, its
rendering, its self-check, its question, its checked key), the stage interface and the chain that
runs stages in order. It sits below both the stages (:mod:`lvlmbench.autobench.stages`) and the
back-end protocol that supplies a chain, so neither imports the other in a loop.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from lvlmbench.autobench._drafts import (
    AssignedKey,
    KeyCheck,
    PlannedAspect,
    QuestionDraft,
    StoredDescription,
    UnitDraft,
)
from lvlmbench.autobench._drafts import UnitValidation as Validation
from lvlmbench.autobench._unit import AttemptRecord, Decision
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.images import ImageClient

__all__ = [
    "AttemptContext",
    "Chain",
    "Checked",
    "Keyed",
    "Questioned",
    "Rejected",
    "Rendered",
    "Stage",
    "Unit",
    "UnitChain",
    "chain",
]

In = TypeVar("In")
Out = TypeVar("Out")
Next = TypeVar("Next")


@dataclass(frozen=True)
class Unit:
    """One planned image: an aspect, a level, a stored description and the key plan's
    assignment (the question's kind, a statement's truth value)."""

    key: str
    aspect: PlannedAspect
    level: str
    description: StoredDescription
    assigned: AssignedKey


@dataclass(frozen=True)
class AttemptContext:
    """What every stage of one attempt may read."""

    unit: Unit
    attempt: int
    settings: GenerateSettings
    images: ImageClient


@dataclass(frozen=True)
class Rejected:
    """A stage's verdict that this attempt ends here (the unit may try again)."""

    decision: Decision
    reason: str | None = None


@dataclass(frozen=True)
class Rendered:
    """A draft and the image drawn from it."""

    draft: UnitDraft
    png: bytes
    digest: str


@dataclass(frozen=True)
class Checked:
    """A rendered draft with its self-check."""

    rendered: Rendered
    check: Validation


@dataclass(frozen=True)
class Questioned:
    """A checked image with the question written for it."""

    checked: Checked
    question: QuestionDraft


@dataclass(frozen=True)
class Keyed:
    """A question whose key was checked against what was drawn: the chain's last value."""

    questioned: Questioned
    key: KeyCheck


class Stage(ABC, Generic[In, Out]):
    """One step of an attempt. Failures are values: return :class:`Rejected`, never raise
    for a model's or renderer's failure."""

    name: str = "stage"

    @abstractmethod
    async def run(self, ctx: AttemptContext, value: In) -> Out | Rejected:
        """The next value, or why the attempt ends here."""

    def note(self, record: AttemptRecord, value: Out) -> AttemptRecord:
        """The attempt's history record with what this stage found (by default nothing)."""
        return record


@dataclass(frozen=True)
class Chain(Generic[In, Out]):
    """Stages run in order, each fed the previous one's output."""

    stages: tuple[Stage[Any, Any], ...]

    def then(self, stage: Stage[Out, Next]) -> Chain[In, Next]:
        """This chain followed by ``stage``."""
        return Chain((*self.stages, stage))

    @property
    def names(self) -> list[str]:
        """The stages' names in order."""
        return [s.name for s in self.stages]

    async def run(self, ctx: AttemptContext, value: In) -> tuple[AttemptRecord, Out | None]:
        """Run every stage; the record says how far the attempt got (its decision is left at
        ``reject`` with no reason until the caller decides on a finished value)."""
        record = AttemptRecord(attempt=ctx.attempt, decision=Decision.REJECT)
        current: Any = value
        for stage in self.stages:
            result = await stage.run(ctx, current)
            if isinstance(result, Rejected):
                return replace(record, decision=result.decision, reason=result.reason), None
            record = stage.note(record, result)
            current = result
        finished: Out = current
        return record, finished


def chain(first: Stage[In, Out]) -> Chain[In, Out]:
    """A chain that starts with ``first``."""
    return Chain((first,))


UnitChain = Chain[Unit, Keyed]
