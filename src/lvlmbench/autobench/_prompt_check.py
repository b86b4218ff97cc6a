"""Descriptions longer than the text-to-image model's text encoder reads: CLIP, the encoder of
Stable Diffusion and SDXL, cuts a prompt at 77 tokens, so a long description's image is drawn
from its first part and the self-check then compares the picture with words it never saw.
Each accepted item's description is measured with the model's own tokenizer(s) when the
benchmark is finalized; the cut ones are counted and named in the report and its warnings."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lvlmbench.images import PromptLength
from lvlmbench.store import PromptTruncation

__all__ = ["MeasurePrompt", "prompt_truncation", "truncation_warning"]

MeasurePrompt = Callable[[str], PromptLength | None]
"""A text-to-image model's prompt measure (:meth:`lvlmbench.images.ImageClient.prompt_length`)."""
SHOWN_UNITS = 10


def prompt_truncation(
    described: Sequence[tuple[str, str]], measure: MeasurePrompt | None
) -> PromptTruncation | None:
    """``described``: (unit key, the description drawn) per item. None when nothing was
    measured (a renderer that reads programs, a model that cuts no prompt)."""
    if measure is None:
        return None
    lengths = [(key, measure(text)) for key, text in described]
    measured = [(key, length) for key, length in lengths if length is not None]
    if not measured:
        return None
    cut = [key for key, length in measured if length.truncated]
    # The encoder named is the one that read the longest description (they share one here).
    longest = max(measured, key=lambda pair: pair[1].tokens)[1]
    return PromptTruncation(
        encoder=longest.encoder,
        limit=longest.limit,
        truncated=len(cut),
        items=len(measured),
        longest=longest.tokens,
        units=cut[:SHOWN_UNITS],
    )


def truncation_warning(found: PromptTruncation | None, images: str) -> str | None:
    """The warning line for ``found`` (None when no description was cut)."""
    if found is None or not found.truncated:
        return None
    more = "" if found.truncated <= len(found.units) else ", ..."
    return (
        f"{found.truncated} of {found.items} items' descriptions are longer than the "
        f"{found.limit} tokens {images}'s text encoder reads ({found.encoder}; the longest "
        f"has {found.longest}): their images were drawn from a truncated prompt "
        f"(units {', '.join(found.units)}{more}); ask the examiner for shorter descriptions "
        "or use a text-to-image model with a longer text encoder"
    )
