"""The torch side of the transformers back-end: chat conversion, seeded sampling, decoding rows.

Kept apart from :mod:`lvlmbench.models.hf` (which owns loading, batching and the ChatModel
surface) so each piece can be read on its own.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import torch
from PIL import Image
from transformers import LogitsProcessor, StoppingCriteria

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.types import GenerationConfig, ImagePart, Message, TextPart

__all__ = [
    "Finished",
    "RowSampler",
    "Sampling",
    "StopOnStrings",
    "decode_image",
    "finish_row",
    "sample_token",
    "sampling_of",
    "to_conversation",
]

_SEED_MIX = 1_000_003


@dataclass(frozen=True)
class Sampling:
    """How one row samples: temperature, nucleus mass and the seed of its own generator."""

    temperature: float
    top_p: float | None
    seed: int


def sampling_of(config: GenerationConfig) -> Sampling | None:
    """The row's sampling parameters, or None for greedy decoding (temperature 0).

    The seed mixes ``seed`` and ``epoch`` so that (seed 0, epoch 1) and (seed 1, epoch 0) are
    different streams; a plain sum would make them the same sample.
    """
    if config.temperature <= 0:
        return None
    seed = ((config.seed or 0) * _SEED_MIX + config.epoch) % 2**63
    return Sampling(config.temperature, config.top_p, seed)


def decode_image(part: ImagePart) -> Image.Image:
    """The part's image, decoded to RGB; a ProviderError (status 400) when it cannot be read."""
    try:
        with Image.open(io.BytesIO(part.read_bytes())) as image:
            return image.convert("RGB")
    except (OSError, ValueError) as exc:
        where = part.path or "in-memory image"
        # status 400: a bad input fails this item only, it does not abort the run.
        raise ProviderError(
            f"cannot read image {where}: {exc}", ErrorKind.FATAL, status_code=400
        ) from None


def to_conversation(
    messages: list[Message],
    multimodal: bool,
    decode: Callable[[ImagePart], Image.Image] = decode_image,
) -> list[dict[str, Any]]:
    """Messages in the shape ``apply_chat_template`` takes, images where the message has them
    (``decode``: how an image part becomes a picture; a batch passes the ones it decoded ahead).

    A processor's template turns each ``{"type": "image"}`` part into its image placeholder
    tokens; a text-only model's template wants plain strings instead.
    """
    conversation: list[dict[str, Any]] = []
    for message in messages:
        if not multimodal:
            if message.images():
                raise ProviderError(
                    "this model has no image processor, so it cannot take images",
                    ErrorKind.FATAL,
                    status_code=400,
                )
            conversation.append({"role": message.role, "content": message.text()})
            continue
        content: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            else:
                content.append({"type": "image", "image": decode(part)})
        conversation.append({"role": message.role, "content": content})
    return conversation


def sample_token(logits: torch.Tensor, params: Sampling, generator: torch.Generator) -> int:
    probs = torch.softmax(logits.float().cpu() / params.temperature, dim=-1)
    if params.top_p is not None and params.top_p < 1.0:
        ordered, order = torch.sort(probs, descending=True)
        before = torch.cumsum(ordered, dim=-1) - ordered
        # Keep the smallest head whose mass reaches top_p; the likeliest token always stays, so
        # even top_p=0 leaves something to draw.
        drop = before >= params.top_p
        drop[0] = False
        ordered[drop] = 0.0
        probs = torch.zeros_like(probs).scatter(0, order, ordered)
    return int(torch.multinomial(probs, 1, generator=generator).item())


class RowSampler(LogitsProcessor):  # type: ignore[misc, unused-ignore]  # Any without transformers
    """Samples each row of a batch with its own seeded generator, then leaves only that token.

    ``generate`` runs greedy (argmax) and this processor turns a sampled row's scores into a
    one-hot choice, so every row draws from its own ``torch.Generator``: a sampled answer depends
    on its seed and epoch only, not on which other requests shared its batch. The draws happen on
    the CPU, which keeps samples the same whichever device computed the logits. Greedy rows
    (None) pass through untouched.
    """

    def __init__(self, rows: Sequence[Sampling | None]) -> None:
        self._rows = list(rows)
        self._generators = [
            None if row is None else torch.Generator(device="cpu").manual_seed(row.seed)
            for row in rows
        ]

    @property
    def active(self) -> bool:
        """Whether any row samples (otherwise the processor need not run)."""
        return any(row is not None for row in self._rows)

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        out = scores.clone()
        for index, (params, generator) in enumerate(zip(self._rows, self._generators, strict=True)):
            if params is None or generator is None:
                continue
            token = sample_token(scores[index], params, generator)
            out[index] = float("-inf")
            out[index, token] = 0.0
        return out


class StopOnStrings(StoppingCriteria):  # type: ignore[misc, unused-ignore]  # Any without transformers
    """Ends a row once its decoded answer contains a stop string.

    transformers' own ``stop_strings`` needs to tokenize a probe string, which word-level
    vocabularies cannot; decoding is what :func:`finish_row` cuts on, so matching on decoded text
    stops exactly where the answer will be cut. Only a tail window is decoded each step: a new
    match must end in the newest token, and a character spans at most four tokens.
    """

    def __init__(self, stop: Sequence[str], start: int, decode: Callable[[list[int]], str]) -> None:
        self._stop = [s for s in stop if s]
        self._start = start
        self._decode = decode
        self._window = 4 * max((len(s) for s in self._stop), default=0) + 4

    def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.Tensor:
        begin = max(self._start, input_ids.shape[1] - self._window)
        tails = input_ids[:, begin:].tolist()
        done = [any(s in self._decode(tail) for s in self._stop) for tail in tails]
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)


@dataclass(frozen=True)
class Finished:
    """One decoded row: the answer text, how many tokens were generated and why it stopped."""

    text: str
    output_tokens: int
    finish_reason: str


def _generated_length(ids: list[int], eos: AbstractSet[int], pad: int | None) -> tuple[int, bool]:
    """Tokens this row really generated, and whether it ended on an end-of-sequence token.

    ``generate`` pads rows that finished early with ``pad``; the end-of-sequence token itself
    counts as generated (the model did produce it).
    """
    for index, token in enumerate(ids):
        if token in eos:
            return index + 1, True
    length = len(ids)
    while length > 0 and pad is not None and ids[length - 1] == pad:
        length -= 1
    return length, False


def finish_row(
    ids: list[int],
    *,
    decode: Callable[[list[int]], str],
    eos: AbstractSet[int],
    pad: int | None,
    max_tokens: int,
    stop: Sequence[str],
) -> Finished:
    """Decode one row's new tokens and cut the text at the first stop string."""
    length, hit_eos = _generated_length(ids, eos, pad)
    text = decode(ids[:length])
    cuts = [index for index in (text.find(s) for s in stop if s) if index >= 0]
    if cuts:
        return Finished(text[: min(cuts)], length, "stop")
    reason = "length" if not hit_eos and length >= max_tokens else "stop"
    return Finished(text, length, reason)
