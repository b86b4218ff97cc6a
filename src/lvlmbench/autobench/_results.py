"""What every AutoBench-V stage returns, and the message shape the writing stages share.

A stage never raises for a model failure and never substitutes a default: it returns a
:class:`StageResult` whose ``status`` says what happened, so the pipeline can store, count and
show failures like any other value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from lvlmbench.models import Structured
from lvlmbench.prompts import load_prompt, render_prompt
from lvlmbench.types import Message, Status

__all__ = ["StageResult", "writer_messages"]

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

SYSTEM_PROMPT = "autobench/system.md"
"""The examiner's standing instructions for every writing stage (not for answering on images:
there the examiner acts as a plain LVLM and must not know it is checking its own work)."""


@dataclass(frozen=True)
class StageResult(Generic[T]):
    """One stage's outcome: the value, or why there is none (failures are values)."""

    value: T | None
    """The validated result; None whenever ``status`` is not ok."""
    status: Status
    """ok, refused, unparseable or error."""
    reason: str | None
    """Why the status is not ok (None when it is)."""
    calls: int
    """Model calls made for this result, re-asks included (cache hits count too)."""

    @property
    def ok(self) -> bool:
        """Whether the stage produced a value."""
        return self.status is Status.OK and self.value is not None

    @classmethod
    def from_structured(cls, result: Structured[M]) -> StageResult[M]:
        """Wrap a :meth:`ModelClient.generate_json` result unchanged."""
        return StageResult(result.value, result.status, result.reason, result.attempts)

    @classmethod
    def failure(cls, status: Status, reason: str, calls: int) -> StageResult[T]:
        """A result without a value."""
        return cls(None, status, reason, calls)


def writer_messages(prompt: str, **values: object) -> list[Message]:
    """The system prompt plus one user message rendered from the prompt file ``prompt``."""
    return [
        Message.system(load_prompt(SYSTEM_PROMPT)),
        Message.user(render_prompt(prompt, **values)),
    ]
