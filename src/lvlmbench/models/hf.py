"""Local Hugging Face transformers vision-language models (LLaVA, Idefics3/SmolVLM, ...).

``hf/<directory or repo id>``. Options: ``device`` (auto: cuda, then mps, then cpu), ``dtype``
(auto, float32, bfloat16, float16), ``batch_size`` (default 8: concurrent calls are answered in
batches of up to this many), ``revision``, ``trust_remote_code`` (default false) and
``local_files_only`` (default true: a repo id must already be in the Hugging Face cache, so an
offline run never waits on the hub; pass false to allow downloads). ``ray=true`` runs the same
model on a Ray actor pool (``actors``, ``num_gpus`` per actor, ``ray_address``; the ``ray``
extra; see :mod:`lvlmbench.models._hf_ray`).

Weights load on the first call, once. Greedy decoding when temperature is 0; otherwise each
request samples with its own ``torch.Generator`` seeded from its seed and epoch, so sampled
answers reproduce whatever else shares their batch. ``json_schema`` is not enforced here (no
constrained decoding): :meth:`~lvlmbench.models.ModelClient.generate_json` still extracts,
validates and re-asks.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import transformers
from transformers import (
    AutoModelForCausalLM,
    AutoModelForImageTextToText,
    AutoProcessor,
    LogitsProcessorList,
    StoppingCriteriaList,
)

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._hf_batch import Batcher
from lvlmbench.models._hf_generate import (
    RowSampler,
    StopOnStrings,
    finish_row,
    sampling_of,
    to_conversation,
)
from lvlmbench.models._local import (
    DTYPES,
    LoadOnce,
    LocalSource,
    check_weights,
    load_error,
    local_settings,
    parse_bool,
    parse_positive_int,
    ray_missing,
    wants_ray,
)
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Usage

__all__ = ["HFChatModel", "create"]


@dataclass(frozen=True)
class _Request:
    messages: list[Message]
    config: GenerationConfig
    submitted: float


@dataclass
class _Loaded:
    """A loaded model and what decoding needs to know about its tokenizer."""

    model: Any
    processor: Any
    tokenizer: Any
    multimodal: bool
    eos: set[int]
    pad: int | None


def _batch_key(request: _Request) -> Hashable:
    # Only what ``generate`` takes for the whole batch; sampling is per row (RowSampler).
    return (request.config.max_tokens, request.config.stop)


def _auto_classes() -> list[Any]:
    """Model classes to try, most specific first. AutoModelForVision2Seq only exists in
    transformers 4.x; text-only checkpoints end up in AutoModelForCausalLM."""
    vision2seq = getattr(transformers, "AutoModelForVision2Seq", None)
    classes = [AutoModelForImageTextToText, vision2seq, AutoModelForCausalLM]
    return [cls for cls in classes if cls is not None]


class HFChatModel:
    """A transformers image-text-to-text model on this machine, batched across callers."""

    def __init__(
        self,
        name: str,
        *,
        device: str = "auto",
        dtype: str = "auto",
        batch_size: int = 8,
        revision: str | None = None,
        trust_remote_code: bool = False,
        local_files_only: bool = True,
    ) -> None:
        source = LocalSource.of("hf", name, device, dtype)
        self.name, self.spec, self.path = name, source.spec, source.path
        self.endpoint, self.device, self.dtype = source.endpoint, source.device, source.dtype
        self.revision = revision
        self.trust_remote_code = trust_remote_code
        self.local_files_only = local_files_only
        self._weights: LoadOnce[_Loaded] = LoadOnce(self.device)
        self._ready_at = 0.0
        self._batcher: Batcher[_Request, ModelOutput] = Batcher(
            self._run_batch, max_size=batch_size, key=_batch_key
        )

    @property
    def batch_size(self) -> int:
        """Most requests answered by one ``generate`` call."""
        return self._batcher.max_size

    def cache_identity(self) -> dict[str, object]:
        # Device and batch size are left out: they change speed, not (beyond float noise) text.
        return {"provider": "hf", "path": self.path, "revision": self.revision, "dtype": self.dtype}

    def check_weights(self) -> None:
        """Raise a FATAL ProviderError when the weights are certainly not on this machine (a
        path that is no directory, a repo id not in the cache): found in milliseconds."""
        check_weights(self.spec, self.name, self.revision, self.local_files_only, "config.json")

    async def check(self) -> None:
        """The preflight: the weights can be found (before any work is claimed)."""
        self.check_weights()

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        if config.params:  # no request body to pass them into: refuse rather than ignore
            raise ProviderError(
                f"{self.spec}: local models take no provider params "
                f"({', '.join(sorted(config.params))}); drop --param",
                ErrorKind.FATAL,
            )
        # Submit at once and let the batch worker load the weights: a caller that awaited the
        # load first would reach the queue one event-loop turn after the others and miss their
        # batch.
        return await self._batcher.submit(_Request(messages, config, time.perf_counter()))

    async def _ensure_loaded(self) -> _Loaded:
        loaded, fresh = await self._weights.get(self._load)
        if fresh:
            self._ready_at = time.perf_counter()
        return loaded

    def _from_pretrained(self, cls: Any, **extra: Any) -> Any:
        return cls.from_pretrained(
            self.path,
            revision=self.revision,
            trust_remote_code=self.trust_remote_code,
            local_files_only=self.local_files_only,
            **extra,
        )

    def _load_model(self) -> Any:
        """The first auto class that knows this checkpoint's config, on the chosen device."""
        unknown: list[str] = []
        for cls in _auto_classes():
            try:
                return self._from_pretrained(
                    cls, dtype=DTYPES[self.dtype], device_map=self.device
                ).eval()
            except ValueError as exc:
                # Auto classes raise ValueError for a config they do not map; try the next one.
                if "Unrecognized configuration class" not in str(exc):
                    raise
                unknown.append(cls.__name__)
        raise ValueError(f"no model class for this config (tried {', '.join(unknown)})")

    def _load(self) -> _Loaded:
        """Load processor and weights (runs in a worker thread)."""
        try:
            processor = self._from_pretrained(AutoProcessor)
            model = self._load_model()
        except Exception as exc:
            raise load_error(self.spec, self.name, exc, self.local_files_only) from exc
        tokenizer = getattr(processor, "tokenizer", processor)
        if not model.config.is_encoder_decoder:
            # Decoder-only models continue the prompt: pad on the left so every row's last
            # prompt token sits next to its first generated token.
            tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        if getattr(processor, "chat_template", None) is None and tokenizer.chat_template is None:
            raise ProviderError(
                f"{self.spec}: the checkpoint has no chat template",
                ErrorKind.FATAL,
                hint="use an instruction-tuned checkpoint, or add chat_template.jinja to it",
            )
        eos = model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        if tokenizer.eos_token_id is not None:
            eos_ids.add(tokenizer.eos_token_id)
        return _Loaded(
            model=model,
            processor=processor,
            tokenizer=tokenizer,
            multimodal=hasattr(processor, "image_processor"),
            eos=eos_ids,
            pad=tokenizer.pad_token_id,
        )

    async def _run_batch(self, requests: list[_Request]) -> Sequence[ModelOutput | Exception]:
        loaded = await self._ensure_loaded()
        return await asyncio.to_thread(self._generate_batch, loaded, requests)

    def _encode(self, loaded: _Loaded, conversations: list[list[dict[str, Any]]]) -> Any:
        common: dict[str, Any] = {
            "add_generation_prompt": True,
            "tokenize": True,
            "return_dict": True,
            "return_tensors": "pt",
        }
        if loaded.multimodal:
            # padding_side again here: some processors carry their own text defaults, which
            # would win over the tokenizer attribute set at load time.
            text_kwargs = {"padding": True, "padding_side": loaded.tokenizer.padding_side}
            batch = loaded.processor.apply_chat_template(
                conversations, processor_kwargs=text_kwargs, **common
            )
            # Floating tensors (pixel values) follow the weights' dtype; token ids stay ints.
            return batch.to(device=loaded.model.device, dtype=DTYPES[self.dtype])
        batch = loaded.tokenizer.apply_chat_template(conversations, padding=True, **common)
        return batch.to(loaded.model.device)

    def _generation_config(self, loaded: _Loaded, config: GenerationConfig) -> Any:
        # Start from the checkpoint's defaults (eos ids, repetition penalty) but decode greedily:
        # RowSampler does any sampling, with per-request generators.
        settings = copy.deepcopy(loaded.model.generation_config)
        settings.do_sample = False
        settings.num_beams = 1
        settings.temperature = None
        settings.top_p = None
        settings.top_k = None
        settings.max_new_tokens = config.max_tokens
        settings.max_length = None
        settings.pad_token_id = loaded.pad
        return settings

    def _generate_batch(
        self, loaded: _Loaded, requests: list[_Request]
    ) -> list[ModelOutput | Exception]:
        """One ``generate`` call for every request whose input could be read (worker thread)."""
        failed: dict[int, Exception] = {}
        conversations: list[list[dict[str, Any]]] = []
        live: list[int] = []
        for index, request in enumerate(requests):
            try:
                conversations.append(to_conversation(request.messages, loaded.multimodal))
                live.append(index)
            except ProviderError as exc:
                failed[index] = exc
        answered: dict[int, ModelOutput] = {}
        if live:
            try:
                answered = self._generate_rows(loaded, [requests[i] for i in live], conversations)
            except Exception as exc:
                error = _generation_error(self.spec, exc)
                failed.update({index: error for index in live})
        outputs = {live[row]: output for row, output in answered.items()}
        return [outputs[i] if i in outputs else failed[i] for i in range(len(requests))]

    def _generate_rows(
        self,
        loaded: _Loaded,
        requests: list[_Request],
        conversations: list[list[dict[str, Any]]],
    ) -> dict[int, ModelOutput]:
        config = requests[0].config  # the batch key makes max_tokens and stop shared
        started = time.perf_counter()
        inputs = self._encode(loaded, conversations)
        # Decoder-only output repeats the (padded) prompt; encoder-decoder output starts with
        # the decoder start token, which was not generated either.
        encoder_decoder = bool(loaded.model.config.is_encoder_decoder)
        skip = 1 if encoder_decoder else int(inputs["input_ids"].shape[1])
        sampler = RowSampler([sampling_of(request.config) for request in requests])
        stopper = StopOnStrings(config.stop, skip, self._decoder(loaded)) if config.stop else None
        with torch.inference_mode():
            sequences = loaded.model.generate(
                **inputs,
                generation_config=self._generation_config(loaded, config),
                logits_processor=LogitsProcessorList([sampler] if sampler.active else []),
                stopping_criteria=StoppingCriteriaList([stopper] if stopper else []),
            )
        raw = {"batch_size": len(requests), "generate_s": round(time.perf_counter() - started, 4)}
        prompt_tokens = inputs["attention_mask"].sum(dim=1).tolist()
        return {
            row: self._output(
                loaded, request, sequences[row, skip:].tolist(), int(prompt_tokens[row]), raw
            )
            for row, request in enumerate(requests)
        }

    @staticmethod
    def _decoder(loaded: _Loaded) -> Callable[[list[int]], str]:
        """Token ids to answer text, special tokens (end of turn, padding) left out."""

        def decode(ids: list[int]) -> str:
            return str(loaded.tokenizer.decode(ids, skip_special_tokens=True))

        return decode

    def _output(
        self,
        loaded: _Loaded,
        request: _Request,
        new_ids: list[int],
        prompt_tokens: int,
        raw: dict[str, Any],
    ) -> ModelOutput:
        finished = finish_row(
            new_ids,
            decode=self._decoder(loaded),
            eos=loaded.eos,
            pad=loaded.pad,
            max_tokens=request.config.max_tokens,
            stop=request.config.stop,
        )
        return ModelOutput(
            text=finished.text,
            usage=Usage(input_tokens=prompt_tokens, output_tokens=finished.output_tokens),
            # Time since the call was made, minus any wait for the weights to load (a one-off
            # cost that would make the first batch look slow).
            latency_s=time.perf_counter() - max(request.submitted, self._ready_at),
            finish_reason=finished.finish_reason,
            raw=dict(raw),
        )

    async def aclose(self) -> None:
        """Fail waiting calls, drop the weights and give device memory back."""
        await self._batcher.aclose(ProviderError(f"{self.spec}: model closed", ErrorKind.FATAL))
        await self._weights.drop()


def _generation_error(spec: str, exc: Exception) -> ProviderError:
    """Errors of a whole batch. They come from the model or its template, not from one input,
    so every later call would fail alike: FATAL without a status code aborts the run."""
    hint = "lower batch_size or max_tokens" if isinstance(exc, torch.OutOfMemoryError) else None
    text = f"{type(exc).__name__}: {exc}"[:500]
    return ProviderError(f"{spec}: generation failed: {text}", ErrorKind.FATAL, hint=hint)


def create(name: str, options: Mapping[str, str]) -> HFChatModel:
    """Registry factory: ``hf/<path or repo id>`` with options device, dtype, batch_size,
    revision, trust_remote_code, local_files_only; ``ray=true`` (with ``actors``, ``num_gpus``,
    ``ray_address``) runs the same model on a Ray actor pool (the ``ray`` extra)."""
    settings: dict[str, Any] = {
        **local_settings(options),
        "batch_size": parse_positive_int(options.get("batch_size"), 8, "batch_size"),
        "trust_remote_code": parse_bool(
            options.get("trust_remote_code"), False, "trust_remote_code"
        ),
    }
    if not wants_ray(options):
        return HFChatModel(name, **settings)
    try:
        # Same package, imported only when asked for: Ray is an optional extra.
        from lvlmbench.models._hf_ray import RayHFChatModel
        from lvlmbench.models._ray import ray_settings
    except ImportError as exc:
        raise ray_missing(exc) from None
    return RayHFChatModel(name, ray_settings(options), **settings)
