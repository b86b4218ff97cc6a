"""Whether a server sees the images it is sent: prompt tokens with the images and without them.

A server that cannot read images may drop them without an error: llama.cpp with a text-only chat
format received correct image parts and counted 7 prompt tokens (image and question gone), and
every answer was stored as if the model had seen the picture. An image always costs prompt
tokens where it reaches the model, so asking the same messages once more with the images left
out tells: the same count or more means the images never arrived. Only servers that report
usage can be checked; where none is reported nothing is said.
"""

from __future__ import annotations

from dataclasses import dataclass

from lvlmbench.models._client import ModelClient
from lvlmbench.types import GenerationConfig, ImagePart, Message

__all__ = ["ImageTokens", "compare_image_tokens", "without_images"]


@dataclass(frozen=True)
class ImageTokens:
    """Prompt tokens a server reported for the same messages with their images and without."""

    with_images: int
    without_images: int

    @property
    def reported(self) -> bool:
        """Whether the server reported prompt tokens for both (0: it reports no usage)."""
        return self.with_images > 0 and self.without_images > 0

    @property
    def images_ignored(self) -> bool:
        """Whether the images added no prompt tokens: the server dropped them."""
        return self.reported and self.with_images <= self.without_images

    def describe(self) -> str:
        """The figures in words: ``7 prompt tokens with the image, 20 without it``."""
        return f"{self.with_images} prompt tokens with the image, {self.without_images} without it"


def without_images(messages: list[Message]) -> list[Message] | None:
    """``messages`` with every image part left out (a turn left empty is dropped); None when
    they hold no image, or nothing but images."""
    if not any(isinstance(p, ImagePart) for m in messages for p in m.content):
        return None
    kept = []
    for message in messages:
        parts = [p for p in message.content if not isinstance(p, ImagePart)]
        if parts:
            kept.append(message.model_copy(update={"content": parts}))
    return kept if any(m.role == "user" for m in kept) else None


async def compare_image_tokens(
    client: ModelClient,
    messages: list[Message],
    prompt_tokens: int,
    config: GenerationConfig | None = None,
) -> ImageTokens | None:
    """``prompt_tokens`` (what the server reported for ``messages``, which hold images) against
    the prompt tokens of one more call through ``client`` (cached like any), the same messages
    with the images left out and a one-token reply. None when there is nothing to compare: no
    image, no usage reported, or a call that failed."""
    text_only = without_images(messages)
    if text_only is None or prompt_tokens <= 0:
        return None
    # One token: only the prompt is measured, and the reply costs next to nothing.
    short = (config or GenerationConfig()).model_copy(update={"max_tokens": 1, "json_schema": None})
    output = await client.generate(text_only, short)
    if not output.ok or output.usage.input_tokens <= 0:
        return None
    return ImageTokens(prompt_tokens, output.usage.input_tokens)
