"""The one interface every chat back-end implements, and the errors it may raise."""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol, runtime_checkable

from lvlmbench.types import GenerationConfig, Message, ModelOutput

__all__ = ["ChatModel", "ErrorKind", "ProviderError"]


class ErrorKind(StrEnum):
    """How the client should react to a failed request."""

    TRANSIENT = "transient"
    """Worth retrying: rate limit, 5xx, timeout, dropped connection."""
    FATAL = "fatal"
    """Will not heal by waiting: bad key, no quota, bad request, unknown model."""
    UNSUPPORTED = "unsupported"
    """The server rejected a feature (e.g. a response_format); the caller may fall back."""


class ProviderError(Exception):
    """A failed request, classified. Messages never include API keys or request headers."""

    def __init__(
        self,
        message: str,
        kind: ErrorKind = ErrorKind.FATAL,
        *,
        status_code: int | None = None,
        retry_after: float | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status_code = status_code
        self.retry_after = retry_after
        self.hint = hint

    @property
    def transient(self) -> bool:
        """Whether a retry may succeed."""
        return self.kind is ErrorKind.TRANSIENT

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} ({self.hint})" if self.hint else text


@runtime_checkable
class ChatModel(Protocol):
    """A model that answers a list of messages with text.

    ``spec`` is the registry string (``provider/name``) and ``endpoint`` identifies the server the
    model runs on, so that concurrency limits apply per endpoint rather than per model object.
    Implementations raise :class:`ProviderError` for failed requests and never retry themselves:
    retries, caching and concurrency belong to :class:`~lvlmbench.models.ModelClient`.

    Optional attribute: ``cacheable = False`` tells the client not to cache this model's outputs
    (for local, deterministic models that answer faster than a cache lookup).
    """

    spec: str
    endpoint: str

    def cache_identity(self) -> dict[str, object]:
        """Everything besides messages and config that changes the output (provider, model,
        revision...). Never secrets, timeouts or concurrency settings."""
        ...

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        """One request. Raises ProviderError on failure."""
        ...

    async def aclose(self) -> None:
        """Release connections or weights."""
        ...
