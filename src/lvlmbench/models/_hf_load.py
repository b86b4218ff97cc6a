"""The transformers back-end's settings, its loading, its processor call and its one-``generate``
path (models that cannot be decoded row by row), apart from :mod:`lvlmbench.models.hf`, which
owns the ChatModel surface and hands requests to the replicas."""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

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
from lvlmbench.models._hf_generate import RowSampler, StopOnStrings, sampling_of
from lvlmbench.models._local import (
    DTYPES,
    load_error,
    local_settings,
    parse_bool,
    parse_positive_int,
)
from lvlmbench.types import GenerationConfig, Message, ModelOutput

if TYPE_CHECKING:
    from lvlmbench.models._hf_backend import Group

__all__ = [
    "DEFAULT_MAX_BATCH",
    "HFSettings",
    "Loaded",
    "Request",
    "decoder",
    "encode",
    "generate_whole",
    "generation_error",
    "image_stream_for",
    "load",
    "parse_hf_settings",
]

DEFAULT_MAX_BATCH = 256
"""The most rows ``batch_size=auto`` decodes at once unless ``max_batch_size`` says otherwise."""


class ModelOwner(Protocol):
    """What loading and whole-batch generation read of the model they serve (the
    ``HFChatModel``, named by what it offers so this module does not import it back)."""

    @property
    def name(self) -> str: ...
    @property
    def spec(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def revision(self) -> str | None: ...
    @property
    def trust_remote_code(self) -> bool: ...
    @property
    def local_files_only(self) -> bool: ...

    def output(
        self, request: Request, finished: Any, prompt_tokens: int, raw: dict[str, Any]
    ) -> ModelOutput: ...

    def finish(self, loaded: Loaded, request: Request, ids: list[int]) -> Any: ...


@dataclass(frozen=True)
class HFSettings:
    """An ``hf/…`` spec's options, parsed."""

    device: str = "auto"
    dtype: str = "auto"
    batch_size: int | None = None
    """Rows decoded at once per replica; None: ``auto``."""
    max_batch_size: int = DEFAULT_MAX_BATCH
    continuous: bool = False
    """Rows leave the batch as they end (opt-in: on an H200 whole batches were faster)."""
    overlap: bool = True
    decode_threads: int | None = None
    """Threads that decode a group's images; None: the CPU count, at most 8."""
    image_device: str = "auto"
    """Where the image processor resizes and normalises: ``auto`` (the model's GPU when the
    processor is a torchvision one) or ``cpu``."""
    devices: str | None = None
    replicas: int | None = None
    revision: str | None = None
    trust_remote_code: bool = False
    local_files_only: bool = True


def parse_hf_settings(options: Mapping[str, str]) -> HFSettings:
    """The options of an ``hf/…`` spec (registry strings), checked."""
    batch = options.get("batch_size")
    auto = batch is None or batch == "" or batch.strip().lower() == "auto"
    replicas = options.get("replicas")
    threads = options.get("decode_threads")
    local = local_settings(options)
    return HFSettings(
        device=local.device,
        dtype=local.dtype,
        revision=local.revision,
        local_files_only=local.local_files_only,
        batch_size=None if auto else parse_positive_int(batch, 8, "batch_size"),
        max_batch_size=parse_positive_int(
            options.get("max_batch_size"), DEFAULT_MAX_BATCH, "max_batch_size"
        ),
        continuous=parse_bool(options.get("continuous"), False, "continuous"),
        overlap=parse_bool(options.get("overlap"), True, "overlap"),
        decode_threads=parse_positive_int(threads, 1, "decode_threads") if threads else None,
        image_device=_image_device(options.get("image_device")),
        devices=options.get("devices") or None,
        replicas=parse_positive_int(replicas, 1, "replicas") if replicas else None,
        trust_remote_code=parse_bool(options.get("trust_remote_code"), False, "trust_remote_code"),
    )


def _image_device(value: str | None) -> str:
    chosen = (value or "auto").strip().lower()
    if chosen not in ("auto", "cpu"):
        raise ValueError(f"option image_device: expected auto or cpu, got {value!r}")
    return chosen


@dataclass(frozen=True)
class Request:
    """One call: its messages, its settings and when it was made."""

    messages: list[Message]
    config: GenerationConfig
    submitted: float


@dataclass
class Loaded:
    """A loaded model and what decoding needs to know about its tokenizer."""

    model: Any
    processor: Any
    tokenizer: Any
    multimodal: bool
    eos: set[int]
    pad: int | None
    dtype: torch.dtype
    image_stream: Any = None
    """The CUDA stream the image processor runs on, on the model's GPU (``image_device``);
    None: it runs on the CPU."""

    def to_device(self, batch: Any) -> Any:
        """A processor batch on the model's device; floating tensors (pixel values) in the
        weights' dtype, token ids left as they are."""
        if self.image_stream is not None:
            # Pixel values made on the image stream are read on this one: the allocator must
            # not hand their memory back to the image stream before this stream is done.
            current = torch.cuda.current_stream(self.model.device)
            for value in batch.values():
                if isinstance(value, torch.Tensor) and value.is_cuda:
                    value.record_stream(current)
        if self.multimodal:
            return batch.to(device=self.model.device, dtype=self.dtype)
        return batch.to(self.model.device)


def _auto_classes() -> list[Any]:
    """Model classes to try, most specific first. AutoModelForVision2Seq only exists in
    transformers 4.x; text-only checkpoints end up in AutoModelForCausalLM."""
    vision2seq = getattr(transformers, "AutoModelForVision2Seq", None)
    classes = [AutoModelForImageTextToText, vision2seq, AutoModelForCausalLM]
    return [cls for cls in classes if cls is not None]


def _from_pretrained(owner: ModelOwner, cls: Any, **extra: Any) -> Any:
    return cls.from_pretrained(
        owner.path,
        revision=owner.revision,
        trust_remote_code=owner.trust_remote_code,
        local_files_only=owner.local_files_only,
        **extra,
    )


def _load_model(owner: ModelOwner, device: str) -> Any:
    """The first auto class that knows this checkpoint's config, on ``device``."""
    unknown: list[str] = []
    for cls in _auto_classes():
        try:
            return _from_pretrained(owner, cls, dtype=DTYPES[owner.dtype], device_map=device).eval()
        except ValueError as exc:
            # Auto classes raise ValueError for a config they do not map; try the next one.
            if "Unrecognized configuration class" not in str(exc):
                raise
            unknown.append(cls.__name__)
    raise ValueError(f"no model class for this config (tried {', '.join(unknown)})")


def load(owner: ModelOwner, device: str) -> Loaded:
    """Load processor and weights onto ``device`` (runs on a replica's thread)."""
    try:
        processor = _from_pretrained(owner, AutoProcessor)
        model = _load_model(owner, device)
    except Exception as exc:
        raise load_error(owner.spec, owner.name, exc, owner.local_files_only) from exc
    tokenizer = getattr(processor, "tokenizer", processor)
    if not model.config.is_encoder_decoder:
        # Decoder-only models continue the prompt: pad on the left so every row's last
        # prompt token sits next to its first generated token.
        tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if getattr(processor, "chat_template", None) is None and tokenizer.chat_template is None:
        raise ProviderError(
            f"{owner.spec}: the checkpoint has no chat template",
            ErrorKind.FATAL,
            hint="use an instruction-tuned checkpoint, or add chat_template.jinja to it",
        )
    eos = model.generation_config.eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
    if tokenizer.eos_token_id is not None:
        eos_ids.add(tokenizer.eos_token_id)
    return Loaded(
        model=model,
        processor=processor,
        tokenizer=tokenizer,
        multimodal=hasattr(processor, "image_processor"),
        eos=eos_ids,
        pad=tokenizer.pad_token_id,
        dtype=DTYPES[owner.dtype],
    )


def image_stream_for(loaded: Loaded, device: str, image_device: str) -> Any:
    """A CUDA stream for the image processor on ``device``, where it can run there: ``auto``,
    a GPU, and a torchvision image processor (its resizing and normalising are tensor
    operations that take a device); else None (the CPU)."""
    processor = getattr(loaded.processor, "image_processor", None)
    on_gpu = image_device == "auto" and device.startswith("cuda")
    if not (on_gpu and loaded.multimodal and getattr(processor, "backend", "") == "torchvision"):
        return None
    return torch.cuda.Stream(device)  # type: ignore[no-untyped-call]


def encode(loaded: Loaded, conversations: list[list[dict[str, Any]]]) -> Any:
    """The processor's (or tokenizer's) left-padded batch for ``conversations``: token ids on
    the CPU, pixel values on the GPU when the image processor runs there (``image_stream``:
    its own stream, waited for here, so the model's work never queues behind it or it behind
    the model's)."""
    common: dict[str, Any] = {
        "add_generation_prompt": True,
        "tokenize": True,
        "return_dict": True,
        "return_tensors": "pt",
    }
    if loaded.multimodal:
        # padding_side again here: some processors carry their own text defaults, which
        # would win over the tokenizer attribute set at load time.
        kwargs: dict[str, Any] = {
            "padding": True,
            "padding_side": loaded.tokenizer.padding_side,
        }
        stream = loaded.image_stream
        if stream is not None:
            kwargs["device"] = loaded.model.device
        with torch.cuda.stream(stream) if stream is not None else contextlib.nullcontext():
            batch = loaded.processor.apply_chat_template(
                conversations, processor_kwargs=kwargs, **common
            )
        if stream is not None:
            stream.synchronize()
        return batch
    return loaded.tokenizer.apply_chat_template(conversations, padding=True, **common)


def decoder(loaded: Loaded) -> Callable[[list[int]], str]:
    """Token ids to answer text, special tokens (end of turn, padding) left out."""

    def decode(ids: list[int]) -> str:
        return str(loaded.tokenizer.decode(ids, skip_special_tokens=True))

    return decode


def _generation_config(loaded: Loaded, config: GenerationConfig) -> Any:
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


def generate_whole(
    owner: ModelOwner, loaded: Loaded, group: Group
) -> list[ModelOutput | Exception]:
    """One ``generate`` call for a group that shares max_tokens and stop strings (models that
    cannot be decoded row by row). Out of memory is raised (the replica halves its batch);
    any other error fails the group's rows."""
    requests = [job.request for job in group.jobs]
    config = requests[0].config
    started = time.perf_counter()
    try:
        inputs = loaded.to_device(group.inputs)
        # Decoder-only output repeats the (padded) prompt; encoder-decoder output starts with
        # the decoder start token, which was not generated either.
        encoder_decoder = bool(loaded.model.config.is_encoder_decoder)
        skip = 1 if encoder_decoder else int(inputs["input_ids"].shape[1])
        sampler = RowSampler([sampling_of(request.config) for request in requests])
        stopper = StopOnStrings(config.stop, skip, decoder(loaded)) if config.stop else None
        sequences = loaded.model.generate(
            **inputs,
            generation_config=_generation_config(loaded, config),
            logits_processor=LogitsProcessorList([sampler] if sampler.active else []),
            stopping_criteria=StoppingCriteriaList([stopper] if stopper else []),
        )
        rows = sequences[:, skip:].tolist()  # one copy to the host, not one per row
    except torch.OutOfMemoryError:
        raise
    except Exception as exc:
        return [generation_error(owner.spec, exc)] * len(requests)
    raw = {"batch_size": len(requests), "generate_s": round(time.perf_counter() - started, 4)}
    return [
        owner.output(request, owner.finish(loaded, request, ids), tokens, raw)
        for request, ids, tokens in zip(requests, rows, group.prompt_tokens, strict=True)
    ]


def generation_error(spec: str, exc: Exception) -> ProviderError:
    """Errors of a whole batch. They come from the model or its template, not from one input,
    so every later call would fail alike: FATAL without a status code aborts the run."""
    text = f"{type(exc).__name__}: {exc}"[:500]
    return ProviderError(f"{spec}: generation failed: {text}", ErrorKind.FATAL)
