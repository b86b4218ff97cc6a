"""The one interface every text-to-image back-end implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from lvlmbench.types import Status

__all__ = ["ImageOutput", "ImageRequest", "PromptLength", "TextToImage"]


class ImageRequest(BaseModel):
    """What to draw. Every field is part of the cache key."""

    model_config = ConfigDict(frozen=True)
    prompt: str
    """Free-text description (text mode); a readable summary in scene mode."""
    scene: dict[str, Any] | None = None
    """A scene program (JSON) for renderers that draw programs exactly; others ignore it."""
    width: int = 512
    """Image width in pixels."""
    height: int = 512
    """Image height in pixels."""
    seed: int = 0
    """Sampling seed; also separates regeneration attempts of one description."""
    steps: int | None = None
    """Denoising steps for diffusion back-ends (None: the back-end's default)."""
    guidance: float | None = None
    """Classifier-free guidance scale for diffusion back-ends."""
    negative_prompt: str | None = None
    """What to avoid, for back-ends that support it."""


class ImageOutput(BaseModel):
    """A rendered image, or why there is none."""

    png: bytes | None = Field(default=None, repr=False)
    """The image, PNG-encoded."""
    status: Status = Status.OK
    """ok, refused (content policy) or error."""
    reason: str | None = None
    """Why the status is not ok."""
    latency_s: float = 0.0
    """Seconds the call took."""
    revised_prompt: str | None = None
    """Prompt as rewritten by the provider, when it says so."""
    cached: bool = False
    """True when served from the cache."""
    attempts: int = 1
    """Requests made (0 for a cache hit)."""

    @property
    def ok(self) -> bool:
        """Whether an image came back."""
        return self.status is Status.OK and self.png is not None


@dataclass(frozen=True)
class PromptLength:
    """A prompt measured by the text encoder(s) a model draws from: the tokens of the encoder
    that reads the most of it, and that encoder's limit (what lies past it is never seen)."""

    tokens: int
    limit: int
    encoder: str
    """Which tokenizer, e.g. ``tokenizer_2 (T5TokenizerFast)``."""

    @property
    def truncated(self) -> bool:
        """Whether the image is drawn from a cut prompt: longer than every encoder reads."""
        return self.tokens > self.limit


@runtime_checkable
class TextToImage(Protocol):
    """A model that turns a description (or a scene program) into one image.

    Like :class:`~lvlmbench.models.ChatModel`, implementations raise
    :class:`~lvlmbench.models.ProviderError` on failure and never retry or cache themselves.
    """

    spec: str
    endpoint: str

    def cache_identity(self) -> dict[str, object]:
        """Everything besides the request that changes the output (never secrets)."""
        ...

    async def generate(self, request: ImageRequest) -> ImageOutput:
        """Render one image."""
        ...

    async def aclose(self) -> None:
        """Release connections or weights."""
        ...


# Optional, like ``check``: ``prompt_length(prompt) -> PromptLength | None`` for a model whose
# text encoder cuts long prompts (diffusers' CLIP: 77 tokens); see ImageClient.prompt_length.
