"""Stage 2: a short guideline per fine aspect that every image description must follow.

The guideline keeps descriptions on the aspect (the paper's example: for *background vs
foreground*, "elements in the background and foreground must be clearly distinguishable").
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from lvlmbench.autobench._results import StageResult, writer_messages
from lvlmbench.models import ModelClient
from lvlmbench.types import GenerationConfig

__all__ = ["Guideline", "write_guideline"]

_CONFIG = GenerationConfig(temperature=0.0, max_tokens=400)


class Guideline(BaseModel):
    """A guideline for the image descriptions of one fine aspect."""

    text: str = Field(min_length=10, max_length=800)
    """One to three sentences; long enough to say something, short enough to stay a rule."""

    @field_validator("text", mode="before")
    @classmethod
    def _collapsed(cls, value: object) -> object:
        # Before the length check, so that padding whitespace cannot satisfy it.
        return " ".join(value.split()) if isinstance(value, str) else value


async def write_guideline(
    examiner: ModelClient, capability: str, general: str, fine: str, *, max_reasks: int = 2
) -> StageResult[Guideline]:
    """The examiner's guideline for descriptions of ``fine`` (under ``general``)."""
    messages = writer_messages(
        "autobench/guideline.md", capability=capability, general=general, fine=fine
    )
    result = await examiner.generate_json(messages, Guideline, _CONFIG, max_reasks)
    return StageResult.from_structured(result)
