"""The transformers chat model itself (see :mod:`lvlmbench.models.hf` for its options). It sits
below both ``hf`` (whose ``create`` picks it or the Ray pool) and ``_hf_ray`` (whose actors run
it), so neither imports the other in a loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import logging
import time
from collections.abc import Sequence
from typing import Any

import torch

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._hf_backend import Group
from lvlmbench.models._hf_capacity import Capacity
from lvlmbench.models._hf_engine import BatchLog, Replica
from lvlmbench.models._hf_generate import finish_row, sampling_of, to_conversation
from lvlmbench.models._hf_images import ImageDecoder, default_decode_threads
from lvlmbench.models._hf_load import (
    HFSettings,
    Loaded,
    Request,
    decoder,
    encode,
    generate_whole,
    generation_error,
    image_stream_for,
    load,
)
from lvlmbench.models._hf_memory import CudaMemory, DeviceMemory
from lvlmbench.models._hf_queue import Job, Pending
from lvlmbench.models._hf_rows import Row, Vocabulary, continuous_unsupported
from lvlmbench.models._local import (
    LocalSource,
    check_weights,
    resolve_device,
)
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Usage

__all__ = ["QUEUED_BATCHES", "HFChatModel"]

log = logging.getLogger(__name__)

QUEUED_BATCHES = 3
"""Calls in flight per replica by default, in batches: one decoding, two waiting their turn."""


def _static_key(request: Request) -> tuple[int, tuple[str, ...]]:
    # What ``generate`` takes for the whole batch; sampling is per row (RowSampler).
    return (request.config.max_tokens, request.config.stop)


class HFChatModel:
    """A transformers image-text-to-text model on this machine, batched across callers."""

    def __init__(self, name: str, settings: HFSettings | None = None) -> None:
        settings = settings or HFSettings()
        source = LocalSource.of("hf", name, settings.device, settings.dtype)
        self.name, self.spec, self.path = name, source.spec, source.path
        self.endpoint, self.device, self.dtype = source.endpoint, source.device, source.dtype
        self.settings = settings
        self.revision = settings.revision
        self.trust_remote_code = settings.trust_remote_code
        self.local_files_only = settings.local_files_only
        self.devices = _replica_devices(settings, self.device)
        self._pending = Pending()
        self._images = ImageDecoder(settings.decode_threads or default_decode_threads())
        self._replicas: list[Replica] = []
        self._outbox: list[Job] = []
        self._ready_at = 0.0

    # What the client and the runner read -----------------------------------------------------

    @property
    def batch_size(self) -> int:
        """Most rows decoded at once per replica: the fixed ``batch_size``, or what ``auto``
        may reach (``max_batch_size`` on a GPU, 8 on a CPU)."""
        if self.settings.batch_size is not None:
            return self.settings.batch_size
        if self.auto_batch:
            return self.settings.max_batch_size
        return min(8, self.settings.max_batch_size)

    @property
    def auto_batch(self) -> bool:
        """Whether the batch size is sized from the device (``batch_size=auto`` on a GPU)."""
        return self.settings.batch_size is None and self.device_memory(self.devices[0]) is not None

    @property
    def replica_count(self) -> int:
        """Model replicas: the client allows its concurrency on each."""
        return len(self.devices)

    @property
    def default_concurrency(self) -> int:
        """Calls in flight per replica when the caller names none: enough for a batch decoding
        and two more waiting, so a replica never waits for work."""
        return QUEUED_BATCHES * self.batch_size

    def batch_rows(self) -> list[int]:
        """Each started replica's batch capacity now (what ``auto`` chose, after halvings)."""
        return [replica.capacity.rows for replica in self._replicas]

    def out_of_memory_halvings(self) -> int:
        """Out-of-memory errors answered by halving a batch, over all replicas."""
        return sum(replica.capacity.halvings for replica in self._replicas)

    def batch_log(self) -> BatchLog:
        """What the started replicas ran, together: the rows of each ``generate`` call (or
        prefill) and the decode steps (the bench prints them)."""
        log = BatchLog()
        for replica in self._replicas:
            log.add(replica.log)
        return log

    def device_memory(self, device: str) -> DeviceMemory | None:
        """Where ``batch_size=auto`` reads ``device``'s free memory; None where it is not
        probed (a CPU: auto means a fixed small batch there)."""
        return CudaMemory(device) if device.startswith("cuda") else None

    def cache_identity(self) -> dict[str, object]:
        # Device and batch settings are left out: they change speed, not (beyond float noise)
        # text.
        return {"provider": "hf", "path": self.path, "revision": self.revision, "dtype": self.dtype}

    def check_weights(self) -> None:
        """Raise a FATAL ProviderError when the weights are certainly not on this machine (a
        path that is no directory, a repo id not in the cache): found in milliseconds."""
        check_weights(self.spec, self.name, self.revision, self.local_files_only, "config.json")

    async def check(self) -> None:
        """The preflight: the weights can be found (before any work is claimed)."""
        self.check_weights()

    # Calls ------------------------------------------------------------------------------------

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        if config.params:  # no request body to pass them into: refuse rather than ignore
            raise ProviderError(
                f"{self.spec}: local models take no provider params "
                f"({', '.join(sorted(config.params))}); drop --param",
                ErrorKind.FATAL,
            )
        loop = asyncio.get_running_loop()
        future: asyncio.Future[ModelOutput] = loop.create_future()

        def deliver(result: Any) -> None:
            loop.call_soon_threadsafe(_settle, future, result)

        job = Job(Request(messages, config, time.perf_counter()), deliver, future.done)
        # Calls made in one turn of the event loop reach the queue together, so the first
        # group is not cut short by a preparation thread that woke at the first of them.
        if not self._outbox:
            loop.call_soon(self._flush)
        self._outbox.append(job)
        # A cancelled caller cancels its future: its row is skipped if not yet prepared.
        return await future

    def answer_now(self, requests: Sequence[Request]) -> list[ModelOutput | Exception]:
        """Answer ``requests`` from this thread, waiting for all (a Ray actor's batch): they
        share the replicas' queue with every other caller, so concurrent batches refill each
        other's finished rows."""
        futures = [concurrent.futures.Future[Any]() for _ in requests]
        self._submit(
            [Job(request, f.set_result) for request, f in zip(requests, futures, strict=True)]
        )
        return [future.result() for future in futures]

    def start_and_wait(self) -> None:
        """Start the replicas and return once their weights are loaded; raise the load error
        (a Ray actor loads before it takes any batch)."""
        if not self._replicas:
            self._start()
        for replica in self._replicas:
            replica.loaded_event.wait()
            if replica.failure is not None:
                raise replica.failure

    def _flush(self) -> None:
        jobs, self._outbox = self._outbox, []
        self._submit(jobs)

    def _submit(self, jobs: list[Job]) -> None:
        if not self._replicas:
            self._start()
        self._pending.put(jobs)

    def _start(self) -> None:
        """Start one replica per device; each loads its weights on its own thread."""
        self._replicas = [
            Replica(
                self,
                self._pending,
                device,
                self._capacity(),
                overlap=self.settings.overlap,
                continuous=self.settings.continuous,
                spec=self.spec,
                memory=self.device_memory(device) if self.auto_batch else None,
            )
            for device in self.devices
        ]
        for replica in self._replicas:
            replica.start()

    def _capacity(self) -> Capacity:
        size = self.batch_size
        return Capacity(rows=size, limit=size, auto=self.auto_batch)

    async def aclose(self) -> None:
        """Fail waiting calls, stop the replicas, drop the weights and give memory back. A
        later call starts them again."""
        error = ProviderError(f"{self.spec}: model closed", ErrorKind.FATAL)
        pending, replicas = self._pending, self._replicas
        self._pending, self._replicas = Pending(), []
        pending.close(error)
        if replicas:
            await asyncio.to_thread(_stop_all, replicas, error)
        self._images.close()
        gc.collect()
        if any(device.startswith("cuda") for device in self.devices):
            torch.cuda.empty_cache()

    # What a replica asks of its model (lvlmbench.models._hf_backend.Backend) ------------------

    def load_replica(self, device: str) -> Loaded:
        loaded = load(self, device)
        loaded.image_stream = image_stream_for(loaded, device, self.settings.image_device)
        self._ready_at = max(self._ready_at, time.perf_counter())
        return loaded

    def batch_key(self, continuous: bool) -> Any:
        """Which requests may share a group: any, when rows decode on their own; the same
        max_tokens and stop strings for one ``generate`` call."""
        return None if continuous else _static_key

    def prepare_group(self, loaded: Loaded, jobs: list[Job]) -> Group:
        """Decode the images (on the decoding threads) and run the processor for ``jobs``; a
        row whose input cannot be read is answered with its error here."""
        started = time.perf_counter()
        wanted = [job for job in jobs if job.wanted()]
        parts = [p for job in wanted for m in job.request.messages for p in m.images()]
        decode = self._images.decode_all(parts if loaded.multimodal else [])
        kept: list[Job] = []
        conversations: list[list[dict[str, Any]]] = []
        for job in wanted:
            try:
                conversations.append(
                    to_conversation(job.request.messages, loaded.multimodal, decode)
                )
                kept.append(job)
            except ProviderError as exc:
                job.deliver(exc)
        decoded = time.perf_counter()
        if not kept:
            return Group([], None, decode_s=decoded - started)
        try:
            inputs = encode(loaded, conversations)
        except Exception as exc:
            error = generation_error(self.spec, exc)
            for job in kept:
                job.deliver(error)
            return Group([], None, decode_s=decoded - started)
        prompt_tokens = [int(n) for n in inputs["attention_mask"].sum(dim=1).tolist()]
        process_s = time.perf_counter() - decoded
        return Group(kept, inputs, prompt_tokens, decode_s=decoded - started, process_s=process_s)

    def to_device(self, loaded: Loaded, inputs: Any) -> dict[str, Any]:
        return dict(loaded.to_device(inputs))

    def generate_group(self, loaded: Loaded, group: Group) -> list[ModelOutput | Exception]:
        return generate_whole(self, loaded, group)

    def make_row(self, job: Job, prompt_tokens: int) -> Row:
        config = job.request.config
        return Row(
            ticket=job,
            max_tokens=config.max_tokens,
            stop=config.stop,
            prompt_tokens=prompt_tokens,
            sampling=sampling_of(config),
        )

    def vocabulary(self, loaded: Loaded) -> Vocabulary:
        return Vocabulary(frozenset(loaded.eos), loaded.pad, decoder(loaded))

    def answer(self, row: Row, seconds: float) -> ModelOutput:
        assert row.finished is not None
        raw = {"batch_size": row.group_rows, "generate_s": round(seconds, 4)}
        return self.output(row.ticket.request, row.finished, row.prompt_tokens, raw)

    def output(
        self, request: Request, finished: Any, prompt_tokens: int, raw: dict[str, Any]
    ) -> ModelOutput:
        """The answer to ``request`` from its decoded row."""
        return ModelOutput(
            text=finished.text,
            usage=Usage(input_tokens=prompt_tokens, output_tokens=finished.output_tokens),
            # Time since the call was made, minus any wait for the weights to load (a one-off
            # cost that would make the first batch look slow).
            latency_s=time.perf_counter() - max(request.submitted, self._ready_at),
            finish_reason=finished.finish_reason,
            raw=dict(raw),
        )

    def finish(self, loaded: Loaded, request: Request, ids: list[int]) -> Any:
        """One ``generate`` row's new tokens, decoded and cut as the request asks."""
        return finish_row(
            ids,
            decode=decoder(loaded),
            eos=loaded.eos,
            pad=loaded.pad,
            max_tokens=request.config.max_tokens,
            stop=request.config.stop,
        )

    def continuous_for(self, loaded: Loaded) -> bool:
        if not self.settings.continuous:
            return False
        reason = continuous_unsupported(loaded.model)
        if reason is not None:
            log.info("%s: one generate call per batch (%s)", self.spec, reason)
        return reason is None

    def failure(self, exc: Exception) -> Exception:
        return generation_error(self.spec, exc)


def _settle(future: asyncio.Future[ModelOutput], result: Any) -> None:
    if future.done():
        return  # its caller gave up
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)


def _stop_all(replicas: list[Replica], error: Exception) -> None:
    for replica in replicas:
        replica.stop(error)


def _replica_devices(settings: HFSettings, device: str) -> list[str]:
    """The device of each replica: ``devices`` (``all``: every visible GPU) or the model's own,
    repeated to ``replicas`` when that is given."""
    if settings.devices is None:
        devices = [device]
    elif settings.devices.strip().lower() == "all":
        count = torch.cuda.device_count()
        if count == 0:
            raise ValueError("option devices=all: no CUDA device is visible")
        devices = [f"cuda:{index}" for index in range(count)]
    else:
        devices = [resolve_device(part.strip()) for part in settings.devices.split(",")]
    count = settings.replicas or len(devices)
    return [devices[index % len(devices)] for index in range(count)]
