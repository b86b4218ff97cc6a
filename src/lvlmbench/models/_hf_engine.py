"""The transformers back-end's two threads per model replica: one prepares, one generates.

Requests wait in one :class:`~lvlmbench.models._hf_queue.Pending` queue shared by every replica.
Each replica's preparation thread takes a group of them, decodes their images and runs the
processor while the replica's generation thread decodes the groups taken before: the model does
not wait for the CPU to encode its next batch. By default the generation thread answers each
group with one ``generate`` call (whole batches); with ``continuous=true`` it admits a prepared
group as soon as the rows still decoding leave room for it (see :mod:`lvlmbench.models._hf_rows`).
A group is cut short only when the generation thread could use it at once
(:mod:`lvlmbench.models._hf_queue`).

Out of memory never fails a request: the rows in flight go back to the front of the queue, the
replica's batch capacity halves, and they are answered again from their prompts (greedy rows
give the same answer, sampled rows restart their own seeded generator). Only a single row that
does not fit alone fails, as a bad input does.
"""

from __future__ import annotations

import contextlib
import gc
import queue
import threading
import time
from dataclasses import dataclass, field, fields
from typing import Any

import torch

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._hf_backend import Backend, Group
from lvlmbench.models._hf_capacity import Capacity
from lvlmbench.models._hf_memory import DeviceMemory
from lvlmbench.models._hf_queue import Job, Pending
from lvlmbench.models._hf_rows import Decoding, Row

__all__ = ["BatchLog", "Replica"]

READY_GROUPS = 2
"""Groups prepared ahead of the generation thread."""


@dataclass
class BatchLog:
    """What a replica ran: the rows of each ``generate`` call (or prefill, when rows decode
    continuously), and its decode steps with the rows they carried."""

    groups: list[int] = field(default_factory=list)
    steps: int = 0
    step_rows: int = 0
    refills: int = 0
    """Prefills merged into rows still answering (continuous batching)."""
    decode_s: float = 0.0
    """Seconds spent decoding images, over every group prepared."""
    process_s: float = 0.0
    """Seconds spent in the processor, over every group prepared."""
    generate_s: float = 0.0
    """Seconds the generation thread spent in ``generate`` (or prefills and decode steps)."""
    idle_s: float = 0.0
    """Seconds the generation thread waited with no prepared group while requests waited:
    what preparation cost the device."""

    def add(self, other: BatchLog) -> None:
        """Count ``other``'s calls, steps and seconds in too (replicas' logs together)."""
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class Replica:
    """One copy of the model on one device, with its preparation and generation threads."""

    def __init__(
        self,
        backend: Backend,
        pending: Pending,
        device: str,
        capacity: Capacity,
        *,
        overlap: bool,
        continuous: bool,
        spec: str,
        memory: DeviceMemory | None = None,
    ) -> None:
        self.backend, self.pending, self.device, self.spec = backend, pending, device, spec
        self.capacity = capacity
        self.overlap = overlap
        self.continuous = continuous
        self.memory = memory
        """Where ``batch_size=auto`` reads the device's memory (None: no probe, a fixed size)."""
        self.log = BatchLog()
        self.loaded: Any = None
        self.ready_at = 0.0
        self.failure: ProviderError | None = None
        self._ready: queue.Queue[Group | None] = queue.Queue(maxsize=READY_GROUPS)
        self._held: Group | None = None
        self._held_back: list[Job] | None = None  # a group whose prefill ran out of memory
        self._decoding: Decoding | None = None
        self._stopped = threading.Event()
        self._idle = False  # the generation thread waits for a prepared group
        self._idle_since = 0.0
        self._threads: list[threading.Thread] = []
        self.loaded_event = threading.Event()
        """Set once the weights loaded or failed to (then ``failure`` says why)."""

    def start(self) -> None:
        """Start the generation thread (it loads the weights, then starts the preparation)."""
        worker = threading.Thread(target=self._generation_thread, name="hf-generate", daemon=True)
        self._threads.append(worker)
        worker.start()

    def stop(self, error: Exception) -> None:
        """End both threads (the queue was closed first), wait for them, and fail the rows
        they still held with ``error``."""
        self._stopped.set()
        with contextlib.suppress(queue.Full):  # a full queue wakes nobody anyway
            self._ready.put_nowait(None)
        for thread in self._threads:
            thread.join(timeout=60)
        held = [self._held] if self._held is not None else []
        while True:
            try:
                group = self._ready.get_nowait()
            except queue.Empty:
                break
            held += [group] if group is not None else []
        jobs = [job for group in held for job in group.jobs]
        if self._decoding is not None:
            jobs += [row.ticket for row in self._decoding.rows if row.finished is None]
        for job in jobs + (self._held_back or []):
            job.deliver(error)
        self.loaded = self._decoding = self._held = self._held_back = None

    # Threads ---------------------------------------------------------------------------------

    def _generation_thread(self) -> None:
        try:
            self.loaded = self.backend.load_replica(self.device)
        except ProviderError as exc:
            self.failure = exc
            self.pending.close(exc)
            return
        finally:
            self.loaded_event.set()
        self.ready_at = time.perf_counter()
        self.continuous = self.continuous and self.backend.continuous_for(self.loaded)
        if self.capacity.auto and self.memory is not None:
            self.capacity.start_probe()
        self._decoding = Decoding(self.loaded.model, self.backend.vocabulary(self.loaded))
        if self.overlap:
            prep = threading.Thread(target=self._preparation_thread, name="hf-prepare", daemon=True)
            self._threads.append(prep)
            prep.start()
        with torch.inference_mode():
            while not self._stopped.is_set():
                try:
                    if not self._turn():
                        return
                except torch.OutOfMemoryError as exc:
                    self._out_of_memory(exc)
                except Exception as exc:  # a model error fails its rows, not the thread
                    self._fail_in_flight(self.backend.failure(exc))

    def _preparation_thread(self) -> None:
        while not self._stopped.is_set():
            group = self._prepare(block=True)
            if group is None:
                return
            while True:
                try:
                    self._ready.put(group, timeout=0.5)
                    break
                except queue.Full:
                    if self._stopped.is_set():
                        for job in group.jobs:
                            self.pending.put([job], front=True)
                        return

    def _prepare(self, block: bool) -> Group | None:
        """A prepared group of waiting jobs; None once closed, or (not ``block``) when none
        waits. Rows that cannot be read were answered with their error by ``prepare``."""
        while True:
            size = self.capacity.group(self.continuous)
            key = self.backend.batch_key(self.continuous)
            jobs = self.pending.take(size, block, key, short_ok=self._short_ok)
            if jobs is None or (not jobs and not block):
                return None
            if jobs:
                group = self.backend.prepare_group(self.loaded, jobs)
                group.size = size
                self._count_preparation(group)
                if group.jobs:
                    return group

    def _count_preparation(self, group: Group) -> None:
        """Add ``group``'s preparation to the log, and the part of it the generation thread
        spent waiting (all of it without overlap; with overlap, since it began to wait)."""
        self.log.decode_s += group.decode_s
        self.log.process_s += group.process_s
        took = group.decode_s + group.process_s
        if not self.overlap:
            self.log.idle_s += took
        elif self._idle:
            now = time.perf_counter()
            self.log.idle_s += now - max(now - took, self._idle_since)

    def _stale(self, group: Group) -> bool:
        """Whether ``group`` was cut for a batch size since changed (a probe or a halving): its
        rows go back to the queue to be grouped again, rather than run as a batch too large
        for the device or one far smaller than it holds."""
        if group.size == self.capacity.group(self.continuous):
            return False
        self.pending.put(group.jobs, front=True)
        return True

    def _next_group(self, block: bool) -> Group | None:
        """The next prepared group: held back, from the preparation thread, or made here."""
        if self._held is not None:
            group, self._held = self._held, None
            return group
        if not self.overlap:
            self._idle = block
            try:
                return self._prepare(block)
            finally:
                self._idle = False
        try:
            return self._ready.get_nowait()
        except queue.Empty:
            if not block:
                return None
        # Nothing prepared: a short group is now worth preparing (see _short_ok).
        self._idle = True
        self.pending.wake()
        self._idle_since = time.perf_counter()
        try:
            return self._ready.get()
        finally:
            self._idle = False

    def _short_ok(self) -> bool:
        """Whether a group of fewer rows than asked for is worth preparing now: the generation
        thread waits with nothing prepared (whole batches: a call costs about as much for a
        few rows as for a full batch), or its running batch has room for more rows than are
        prepared (continuous batching)."""
        with self._ready.mutex:
            prepared = sum(len(group.jobs) for group in self._ready.queue if group is not None)
        held = self._held
        prepared += len(held.jobs) if held is not None else 0
        if not self.continuous:
            return self._idle and prepared == 0
        decoding = self._decoding
        live = decoding.live if decoding is not None else 0
        return self.capacity.rows - live - prepared >= self.capacity.refill_rows()

    # One turn of the generation loop -----------------------------------------------------------

    def _turn(self) -> bool:
        """Admit what fits, decode one step; False once the model is closed."""
        decoding = self._decoding
        assert decoding is not None
        if not self.continuous:
            group = self._next_group(block=True)
            if group is None:
                return False
            if not self._stale(group):
                self._generate_whole(group)
            return True
        if not self._admit(block=decoding.live == 0):
            return False
        self._deliver(decoding.record())
        if decoding.live == 0:
            decoding.clear()
            return True
        if len(decoding) - decoding.live >= max(1, len(decoding) // 4):
            decoding.drop_finished()
        started = time.perf_counter()
        decoding.step()
        self.log.generate_s += time.perf_counter() - started
        self.log.steps += 1
        self.log.step_rows += len(decoding)
        return True

    def _admit(self, block: bool) -> bool:
        """Prefill the prepared groups the batch has room for, once a refill's worth of rows
        is free; False once closed."""
        decoding = self._decoding
        assert decoding is not None
        if decoding.live and self.capacity.rows - decoding.live < self.capacity.refill_rows():
            return True
        while True:
            group = self._next_group(block=block and len(decoding) == 0)
            if group is None:
                return not (self._stopped.is_set() or (block and len(decoding) == 0))
            if self._stale(group):
                continue
            if decoding.live + len(group.jobs) > self.capacity.rows:
                self._held = group
                return True
            decoding.drop_finished()
            self._prefill(decoding, group)
            block = False

    def _prefill(self, decoding: Decoding, group: Group) -> None:
        rows = [
            self.backend.make_row(job, tokens)
            for job, tokens in zip(group.jobs, group.prompt_tokens, strict=True)
        ]
        started = time.perf_counter()
        for row in rows:
            row.group_rows, row.started = len(rows), started
        try:
            memory = self._probing()
            before = memory.mark() if memory is not None else 0
            self.log.refills += decoding.live > 0
            decoding.prefill(self.backend.to_device(self.loaded, group.inputs), rows)
            self.log.generate_s += time.perf_counter() - started
            self.log.groups.append(len(rows))
            if memory is not None:
                self.capacity.size_from_prefill(memory, before, decoding, rows)
        except BaseException:
            # The rows were not merged: they go back (or fail) with the batch's own.
            self._held_back = group.jobs
            raise

    def _generate_whole(self, group: Group) -> None:
        """Answer a whole group with one ``generate`` call (models decoded per batch)."""
        memory = self._probing()
        before = memory.mark() if memory is not None else 0
        started = time.perf_counter()
        try:
            outputs = self.backend.generate_group(self.loaded, group)
        except BaseException:
            self._held_back = group.jobs
            raise
        finally:
            self.log.generate_s += time.perf_counter() - started
        self.log.groups.append(len(group.jobs))
        if memory is not None:
            self.capacity.size_from_generate(memory, before, len(group.jobs))
        for job, output in zip(group.jobs, outputs, strict=True):
            job.deliver(output)

    def _probing(self) -> DeviceMemory | None:
        """The device memory to measure this group's by, while ``auto`` probes; else None."""
        return self.memory if self.capacity.probing else None

    def _deliver(self, ended: list[Row]) -> None:
        now = time.perf_counter()
        for row in ended:
            row.ticket.deliver(self.backend.answer(row, now - row.started))

    # Errors ------------------------------------------------------------------------------------

    def _unanswered(self) -> list[Job]:
        """Take every unanswered row of the batch (and a group whose prefill failed) off it."""
        decoding = self._decoding
        assert decoding is not None
        jobs = [row.ticket for row in decoding.rows if row.finished is None]
        jobs += self._held_back or []
        self._held_back = None
        decoding.clear()
        return jobs

    def _fail_in_flight(self, error: Exception) -> None:
        """Fail every unanswered row of the batch (and a group whose prefill failed)."""
        for job in self._unanswered():
            job.deliver(error)

    def _out_of_memory(self, exc: torch.OutOfMemoryError) -> None:
        """Give every unanswered row back to the queue and halve the batch; a single row that
        does not fit alone fails instead."""
        jobs = self._unanswered()
        gc.collect()
        if self.device.startswith("cuda"):
            torch.cuda.empty_cache()
        if self.capacity.halve(len(jobs)):
            self.pending.put(jobs, front=True)
            return
        error = ProviderError(
            f"{self.spec}: one request does not fit in the device's memory: {exc}"[:500],
            ErrorKind.FATAL,
            status_code=413,
            hint="lower max_tokens, or run the model on a larger device",
        )
        for job in jobs:
            job.deliver(error)
