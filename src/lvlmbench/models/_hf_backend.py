"""What a transformers replica (:mod:`lvlmbench.models._hf_engine`) asks of the model it runs,
and the group of requests it has that model prepare: the contract
:class:`lvlmbench.models._hf_model.HFChatModel` keeps, and the tests' toy models keep too."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from lvlmbench.models._hf_queue import Job
from lvlmbench.models._hf_rows import Row, Vocabulary

__all__ = ["Backend", "Group"]


@dataclass
class Group:
    """Jobs prepared together: the processor's output for the rows that could be read."""

    jobs: list[Job]
    inputs: Any
    """The processor's batch (pixel values on the GPU where the image processor runs there),
    or None when no row could be read."""
    prompt_tokens: list[int] = field(default_factory=list)
    size: int = 0
    """The group size it was cut for (a batch size changed since makes it stale)."""
    decode_s: float = 0.0
    """Seconds its images took to decode (and its conversations to build)."""
    process_s: float = 0.0
    """Seconds the processor took (template, tokens, pixel values)."""


class Backend(Protocol):
    """What a replica needs from the model it runs
    (:class:`lvlmbench.models._hf_model.HFChatModel`)."""

    def load_replica(self, device: str) -> Any: ...

    def batch_key(self, continuous: bool) -> Callable[[Any], Any] | None: ...

    def prepare_group(self, loaded: Any, jobs: list[Job]) -> Group: ...

    def to_device(self, loaded: Any, inputs: Any) -> dict[str, Any]: ...

    def generate_group(self, loaded: Any, group: Group) -> list[Any]: ...

    def make_row(self, job: Job, prompt_tokens: int) -> Row: ...

    def vocabulary(self, loaded: Any) -> Vocabulary: ...

    def answer(self, row: Row, seconds: float) -> Any: ...

    def continuous_for(self, loaded: Any) -> bool: ...

    def failure(self, exc: Exception) -> Exception: ...
