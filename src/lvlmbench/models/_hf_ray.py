"""``hf/…?ray=true``: the transformers back-end run by actors on a Ray cluster.

Requests reach the model exactly as they do locally (the runner calls
:meth:`~lvlmbench.models.ModelClient.generate`, which consults the cache first), and the
:class:`~lvlmbench.models._hf_batch.Batcher` gathers concurrent calls into a chunk. A chunk becomes
one ``ray.data`` Dataset whose ``map_batches`` runs on a pool of ``actors`` actors, each holding
the model on ``num_gpus`` GPUs and answering ``batch_size`` rows per ``generate`` call with the
very code :class:`~lvlmbench.models.hf.HFChatModel` uses locally, so answers are the same as
without Ray and the cache identity is shared: nothing answered either way is asked again.
Results stream back with ``iter_batches`` and each caller's answer is cached and stored as soon
as its chunk is done.

Ray is an optional extra (``pip install lvlmbench[ray]``); only this module imports it. Ray Data
starts fresh actors for every Dataset, so each chunk loads the weights once per actor: give
``--concurrency`` at least ``actors × batch_size × 4`` so chunks are large and loads are rare.
"""

from __future__ import annotations

import asyncio
import pickle
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import ray
import ray.data

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._hf_batch import Batcher
from lvlmbench.models.hf import HFChatModel, _batch_key, _Loaded, _Request
from lvlmbench.types import ModelOutput

__all__ = ["RayHFChatModel", "RaySettings"]

CHUNK_PER_ACTOR_BATCH = 4
"""Rows per chunk, in model batches per actor: enough that every actor stays busy."""


@dataclass(frozen=True)
class RaySettings:
    """Where and how wide the actor pool runs."""

    actors: int = 1
    num_gpus: float = 0.0
    """GPUs per actor (fractions share a GPU); 0 runs the actors on CPU."""
    address: str | None = None
    """Cluster to join (``ray://…`` or ``auto``); None starts or reuses a local one."""


@dataclass(frozen=True)
class _ModelSettings:
    """What an actor needs to build the same model as the driver describes (picklable)."""

    name: str
    device: str
    dtype: str
    revision: str | None
    trust_remote_code: bool
    local_files_only: bool


@dataclass(frozen=True)
class _Failure:
    """A per-row error sent back as data: exceptions with keyword fields do not unpickle."""

    message: str
    kind: str
    hint: str | None
    status_code: int | None


def _encode_result(result: ModelOutput | Exception) -> bytes:
    if isinstance(result, ProviderError):
        return pickle.dumps(
            _Failure(str(result), result.kind.value, result.hint, result.status_code)
        )
    if isinstance(result, Exception):
        return pickle.dumps(_Failure(f"{type(result).__name__}: {result}", "fatal", None, None))
    return pickle.dumps(result)


def _decode_result(blob: bytes) -> ModelOutput | ProviderError:
    value = pickle.loads(blob)
    if isinstance(value, _Failure):
        return ProviderError(
            value.message, ErrorKind(value.kind), hint=value.hint, status_code=value.status_code
        )
    if not isinstance(value, ModelOutput):
        raise TypeError(f"a Ray actor returned {type(value).__name__}, not a ModelOutput")
    return value


class _HFActor:
    """One model replica: loads the weights once, answers every batch Ray Data gives it."""

    def __init__(self, settings: _ModelSettings) -> None:
        self._model = HFChatModel(
            settings.name,
            device=settings.device,
            dtype=settings.dtype,
            revision=settings.revision,
            trust_remote_code=settings.trust_remote_code,
            local_files_only=settings.local_files_only,
        )
        self._loaded: _Loaded = self._model._load()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        requests = [pickle.loads(blob) for blob in batch["request"]]
        outputs = self._model._generate_batch(self._loaded, requests)
        encoded = np.empty(len(outputs), dtype=object)
        encoded[:] = [_encode_result(output) for output in outputs]
        return {"index": batch["index"], "output": encoded}


class RayHFChatModel(HFChatModel):
    """:class:`HFChatModel` whose batches run on a Ray actor pool instead of this process."""

    def __init__(self, name: str, ray_settings: RaySettings, **options: Any) -> None:
        if ray_settings.num_gpus > 0:
            # The driver may have no GPU; the actors will: resolve for them, not for us.
            options["device"] = (
                "cuda" if options.get("device", "auto") == "auto" else options["device"]
            )
            if options.get("dtype", "auto") == "auto":
                options["dtype"] = "bfloat16"
        super().__init__(name, **options)
        self.ray = ray_settings
        self.rows_per_batch = self.batch_size
        chunk = self.rows_per_batch * ray_settings.actors * CHUNK_PER_ACTOR_BATCH
        self._batcher: Batcher[_Request, ModelOutput] = Batcher(
            self._run_batch, max_size=chunk, key=_batch_key
        )

    def _settings(self) -> _ModelSettings:
        return _ModelSettings(
            name=self.path,
            device=self.device,
            dtype=self.dtype,
            revision=self.revision,
            trust_remote_code=self.trust_remote_code,
            local_files_only=self.local_files_only,
        )

    async def _run_batch(self, requests: list[_Request]) -> Sequence[ModelOutput | Exception]:
        if self._load_failure is not None:
            raise self._load_failure
        try:
            results = await asyncio.to_thread(self._run_on_ray, requests)
        except ProviderError:
            raise
        except Exception as exc:
            # An actor that cannot load the weights fails the whole Dataset: every later chunk
            # would fail alike, so this is FATAL and remembered.
            text = f"{type(exc).__name__}: {exc}"[:500]
            self._load_failure = ProviderError(
                f"{self.spec}: the Ray actor pool failed: {text}",
                ErrorKind.FATAL,
                hint="check the model path is readable on every Ray node, and num_gpus",
            )
            raise self._load_failure from exc
        now = time.perf_counter()
        # Latency as the caller saw it, measured on this clock: actors may be other machines.
        return [
            result
            if isinstance(result, Exception)
            else replace_latency(result, now - request.submitted)
            for request, result in zip(requests, results, strict=True)
        ]

    def _run_on_ray(self, requests: list[_Request]) -> list[ModelOutput | ProviderError]:
        """One Dataset for the chunk; rows stream back as the actors finish their batches."""
        _ensure_ray(self.ray.address)
        rows = [{"index": i, "request": pickle.dumps(r)} for i, r in enumerate(requests)]
        # One block per model batch, so every actor of the pool gets a share of the chunk.
        blocks = -(-len(rows) // self.rows_per_batch)
        dataset = ray.data.from_items(rows, override_num_blocks=blocks).map_batches(
            _HFActor,
            fn_constructor_kwargs={"settings": self._settings()},
            batch_size=self.rows_per_batch,
            batch_format="numpy",
            concurrency=self.ray.actors,
            num_gpus=self.ray.num_gpus,
        )
        results: dict[int, ModelOutput | ProviderError] = {}
        for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
            for index, blob in zip(batch["index"], batch["output"], strict=True):
                results[int(index)] = _decode_result(blob)
        missing = [i for i in range(len(requests)) if i not in results]
        if missing:
            raise RuntimeError(f"Ray returned no answer for {len(missing)} of {len(requests)} rows")
        return [results[i] for i in range(len(requests))]


def replace_latency(output: ModelOutput, latency_s: float) -> ModelOutput:
    """``output`` with the driver-side latency (ModelOutput is an immutable pydantic model)."""
    return output.model_copy(update={"latency_s": latency_s})


def _ensure_ray(address: str | None) -> None:
    """Join ``address`` (or start a local cluster) unless this process already did."""
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
