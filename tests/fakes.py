"""Scripted stand-ins for model back-ends, shared by unit tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from lvlmbench.models import ProviderError
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Usage

Step = ModelOutput | ProviderError | Callable[[list[Message]], ModelOutput]


@dataclass
class ScriptedModel:
    """A ChatModel that replays scripted steps (outputs or errors) and counts calls."""

    steps: list[Step] = field(default_factory=list)
    default_text: str = "ok"
    spec: str = "fake/scripted"
    endpoint: str = "fake://scripted"
    delay: float = 0.0
    calls: list[list[Message]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    closed: bool = False

    def cache_identity(self) -> dict[str, object]:
        return {"provider": "fake", "model": self.spec}

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        self.calls.append(messages)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            step: Step = (
                self.steps.pop(0)
                if self.steps
                else ModelOutput(
                    text=self.default_text, usage=Usage(input_tokens=10, output_tokens=2)
                )
            )
            if isinstance(step, ProviderError):
                raise step
            if callable(step):
                return step(messages)
            return step
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        self.closed = True
