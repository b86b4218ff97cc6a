"""Continuous batching for the transformers back-end: the rows being decoded, and their KV cache.

``model.generate`` keeps every row of a batch until the longest one ends: with answers of mixed
lengths most of a batch decodes padding for most of its steps. Here each row leaves as soon as it
ends and a waiting group of requests is prefilled and merged into the running batch: its cache is
left-padded (or the batch's is) to a common length and stacked on the batch dimension, so every
row keeps its own positions and attention mask, as in a left-padded ``generate`` batch.

transformers' own continuous batching (``generate_batch``) takes token ids only, no images, so
this drives the model's forward directly. That needs a plain full-attention ``DynamicCache`` and
ordinary position ids; :func:`continuous_unsupported` says why a model cannot (sliding windows,
multimodal rotary positions, logits processors from its generation config), and such a model is
answered a whole batch per ``generate`` call instead.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as functional
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

from lvlmbench.models._hf_generate import Finished, Sampling, finish_row, sample_token

__all__ = ["Decoding", "Row", "continuous_unsupported"]

# Generation-config fields that make ``generate`` add a logits processor this loop does not run.
_PROCESSOR_FIELDS = {
    "repetition_penalty": (None, 1.0),
    "encoder_repetition_penalty": (None, 1.0),
    "no_repeat_ngram_size": (None, 0),
    "encoder_no_repeat_ngram_size": (None, 0),
    "bad_words_ids": (None,),
    "min_length": (None, 0),
    "min_new_tokens": (None, 0),
    "suppress_tokens": (None,),
    "begin_suppress_tokens": (None,),
    "forced_bos_token_id": (None,),
    "forced_eos_token_id": (None,),
    "sequence_bias": (None,),
    "exponential_decay_length_penalty": (None,),
}


def continuous_unsupported(model: Any) -> str | None:
    """Why ``model`` cannot be decoded here row by row (None: it can)."""
    config = model.config
    if config.is_encoder_decoder:
        return "an encoder-decoder model"
    settings = model.generation_config
    for name, neutral in _PROCESSOR_FIELDS.items():
        if getattr(settings, name, None) not in neutral:
            return f"its generation config sets {name}"
    text = config.get_text_config(decoder=True)
    if getattr(text, "rope_scaling", None) and "mrope_section" in (text.rope_scaling or {}):
        return "multimodal rotary positions"
    if hasattr(model, "get_rope_index") or hasattr(getattr(model, "model", None), "rope_deltas"):
        return "multimodal rotary positions"
    layers = DynamicCache(config=config).layers
    if not layers or any(type(layer) is not DynamicLayer for layer in layers):
        return "a sliding-window or linear-attention cache"
    accepted = set(inspect.signature(model.forward).parameters)
    missing = {"cache", "position_ids", "logits_to_keep"} - accepted
    if missing:
        return f"its forward takes no {', '.join(sorted(missing))}"
    return None


@dataclass
class Row:
    """One request being decoded: its own limits, sampler and the tokens generated so far."""

    ticket: Any
    """Whatever the caller needs to hand the answer back (opaque here)."""
    max_tokens: int
    stop: tuple[str, ...]
    prompt_tokens: int
    sampling: Sampling | None = None
    generator: torch.Generator | None = None
    tokens: list[int] = field(default_factory=list)
    finished: Finished | None = None
    unread: bool = False
    """Whether the batch's newest token of this row has not been appended yet."""
    group_rows: int = 0
    """Rows prefilled with it (its ``batch_size`` in the answer's raw data)."""
    started: float = 0.0
    """When its prefill started (``time.perf_counter``)."""

    def __post_init__(self) -> None:
        if self.sampling is not None and self.generator is None:
            self.generator = torch.Generator(device="cpu").manual_seed(self.sampling.seed)


@dataclass(frozen=True)
class Vocabulary:
    """What ending a row needs to know about the tokenizer."""

    eos: frozenset[int]
    pad: int | None
    decode: Callable[[list[int]], str]


class Decoding:
    """The rows decoded together, their KV cache, attention mask, next positions, last tokens."""

    def __init__(self, model: Any, vocabulary: Vocabulary) -> None:
        self.model = model
        self.vocabulary = vocabulary
        self.rows: list[Row] = []
        self.cache: DynamicCache | None = None
        self.mask: torch.Tensor | None = None  # [rows, length], 0 where a row is padded
        self.next_position: torch.Tensor | None = None  # [rows]
        self.last: torch.Tensor | None = None  # [rows]: each row's newest token, not yet fed

    @property
    def live(self) -> int:
        """Rows still generating."""
        return sum(1 for row in self.rows if row.finished is None)

    def __len__(self) -> int:
        return len(self.rows)

    def prefill(self, inputs: dict[str, Any], rows: Sequence[Row]) -> None:
        """Run the prompts of ``rows`` (one encoded, left-padded group) and merge them in."""
        mask = inputs["attention_mask"].long()
        positions = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 0)
        cache = DynamicCache(config=self.model.config)
        out = self.model(
            **inputs, position_ids=positions, cache=cache, use_cache=True, logits_to_keep=1
        )
        first = self._select(out.logits[:, -1], rows)
        for row in rows:
            row.unread = True
        self._merge(cache, mask, mask.sum(-1), first, list(rows))

    def step(self) -> None:
        """Feed every row its newest token: one forward for the whole batch."""
        assert self.cache is not None and self.mask is not None
        assert self.last is not None and self.next_position is not None
        ones = torch.ones((len(self.rows), 1), dtype=self.mask.dtype, device=self.mask.device)
        self.mask = torch.cat([self.mask, ones], dim=-1)
        out = self.model(
            input_ids=self.last[:, None],
            attention_mask=self.mask,
            position_ids=self.next_position[:, None],
            cache=self.cache,
            use_cache=True,
            logits_to_keep=1,
        )
        self.next_position = self.next_position + 1
        self.last = self._select(out.logits[:, -1], self.rows)
        for row in self.rows:
            row.unread = True

    def record(self) -> list[Row]:
        """Append each live row's newest token (one device sync) and return the rows that
        ended with it."""
        if self.last is None:
            return []
        tokens = self.last.tolist()
        ended = []
        for row, token in zip(self.rows, tokens, strict=True):
            if not row.unread:
                continue
            row.unread = False
            if row.finished is not None:
                continue
            row.tokens.append(int(token))
            if self._ends(row):
                row.finished = finish_row(
                    row.tokens,
                    decode=self.vocabulary.decode,
                    eos=self.vocabulary.eos,
                    pad=self.vocabulary.pad,
                    max_tokens=row.max_tokens,
                    stop=row.stop,
                )
                ended.append(row)
        return ended

    def drop_finished(self) -> None:
        """Take the rows that ended out of the batch, and the padding nobody needs any more."""
        keep = [i for i, row in enumerate(self.rows) if row.finished is None]
        if len(keep) == len(self.rows):
            return
        if not keep:
            self.clear()
            return
        assert self.cache is not None and self.mask is not None
        assert self.last is not None and self.next_position is not None
        index = torch.tensor(keep, device=self.mask.device)
        self.rows = [self.rows[i] for i in keep]
        self.cache.batch_select_indices(index)
        self.mask = self.mask[index]
        self.last = self.last[index]
        self.next_position = self.next_position[index]
        self._trim()

    def clear(self) -> None:
        """Forget every row and the cache (after an out-of-memory error, or when all ended)."""
        self.rows, self.cache, self.mask, self.next_position, self.last = [], None, None, None, None

    def cache_bytes(self) -> int:
        """Bytes the KV cache holds now."""
        if self.cache is None:
            return 0
        return sum(
            int(layer.keys.numel()) * int(layer.keys.element_size()) * 2
            for layer in _layers(self.cache)
        )

    @property
    def length(self) -> int:
        """Positions the cache holds per row (padding included)."""
        return 0 if self.mask is None else int(self.mask.shape[1])

    def _ends(self, row: Row) -> bool:
        token = row.tokens[-1]
        if token in self.vocabulary.eos or len(row.tokens) >= row.max_tokens:
            return True
        if not row.stop:
            return False
        # A new match must end in the newest token; a character spans at most four tokens.
        window = 4 * max(len(s) for s in row.stop) + 4
        tail = self.vocabulary.decode(row.tokens[-window:])
        return any(s and s in tail for s in row.stop)

    def _select(self, logits: torch.Tensor, rows: Sequence[Row]) -> torch.Tensor:
        """Each row's next token: argmax, or a draw from the row's own generator."""
        scores = logits.float()
        chosen = scores.argmax(dim=-1)
        sampled = [(i, row) for i, row in enumerate(rows) if row.sampling is not None]
        for index, row in sampled:
            assert row.sampling is not None and row.generator is not None
            chosen[index] = sample_token(scores[index], row.sampling, row.generator)
        return chosen

    def _merge(
        self,
        cache: DynamicCache,
        mask: torch.Tensor,
        next_position: torch.Tensor,
        last: torch.Tensor,
        rows: list[Row],
    ) -> None:
        if self.cache is None:
            self.cache, self.mask, self.next_position, self.last = cache, mask, next_position, last
            self.rows = rows
            return
        assert self.mask is not None and self.last is not None and self.next_position is not None
        length = max(self.length, int(mask.shape[1]))
        for mine, theirs in zip(_layers(self.cache), _layers(cache), strict=True):
            mine.keys = torch.cat([_pad_left(mine.keys, length), _pad_left(theirs.keys, length)])
            mine.values = torch.cat(
                [_pad_left(mine.values, length), _pad_left(theirs.values, length)]
            )
        self.mask = torch.cat([_pad_mask(self.mask, length), _pad_mask(mask, length)])
        self.next_position = torch.cat([self.next_position, next_position])
        self.last = torch.cat([self.last, last])
        self.rows = self.rows + rows

    def _trim(self) -> None:
        """Drop the leading positions every remaining row has as padding."""
        assert self.mask is not None and self.cache is not None
        used = self.mask.any(dim=0)
        first = int(used.int().argmax())
        if first == 0:
            return
        self.mask = self.mask[:, first:]
        for layer in _layers(self.cache):
            layer.keys = layer.keys[..., first:, :]
            layer.values = layer.values[..., first:, :]


def _layers(cache: DynamicCache) -> list[Any]:
    """The cache's layers: full-attention ``DynamicLayer`` s, each with ``keys`` and ``values``
    (:func:`continuous_unsupported` turns other caches away)."""
    return list(cache.layers)


def _pad_left(states: torch.Tensor, length: int) -> torch.Tensor:
    """``[rows, heads, positions, dim]`` left-padded with zeros to ``length`` positions."""
    missing = length - states.shape[-2]
    return states if missing == 0 else functional.pad(states, (0, 0, missing, 0))


def _pad_mask(mask: torch.Tensor, length: int) -> torch.Tensor:
    missing = length - mask.shape[-1]
    return mask if missing == 0 else functional.pad(mask, (missing, 0))
