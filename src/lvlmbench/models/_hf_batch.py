"""Gather concurrent requests into batches for a back-end that is faster on a batch.

A local model answers eight prompts in one ``generate`` call in little more time than one, but
callers (the runner, :class:`~lvlmbench.models.ModelClient`) send one request per coroutine. The
:class:`Batcher` sits between them: each caller awaits its own future while a single worker task
takes up to ``max_size`` waiting requests that share a key and runs them together. Requests that
arrive while a batch runs form the next one, so the model stays busy without a fixed timer; with
``in_flight`` > 1 that many batches run at once (the next chunk of a Ray pool is handed out while
the last batches of the previous one still run).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Generic, TypeVar

__all__ = ["Batcher"]

T = TypeVar("T")
R = TypeVar("R")


class Batcher(Generic[T, R]):
    """Runs submitted items in batches through ``run``.

    ``run`` receives the items of one batch and returns one result per item, in order; a result
    that is an exception is raised to that item's caller only. If ``run`` itself raises, every
    caller in the batch gets the exception. ``key`` decides which items may share a batch.
    """

    def __init__(
        self,
        run: Callable[[list[T]], Awaitable[Sequence[R | Exception]]],
        *,
        max_size: int,
        key: Callable[[T], Hashable],
        in_flight: int = 1,
    ) -> None:
        if max_size < 1 or in_flight < 1:
            raise ValueError("max_size and in_flight must be at least 1")
        self._run = run
        self._max_size = max_size
        self._key = key
        self._in_flight = in_flight
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._running: list[tuple[T, asyncio.Future[R]]] = []
        self._workers: set[asyncio.Task[None]] = set()

    @property
    def max_size(self) -> int:
        """Largest batch ``run`` is given."""
        return self._max_size

    async def submit(self, item: T) -> R:
        """Queue ``item`` and wait for its result."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        self._pending.append((item, future))
        self._workers = {w for w in self._workers if not w.done() and w.get_loop() is loop}
        if len(self._workers) < self._in_flight:
            # Started here, not in __init__: there may be no running loop when the model is
            # created, and a worker bound to a closed loop is useless. A worker starts on the
            # next turn of the loop, so the calls made in this one share its first batch.
            self._workers.add(loop.create_task(self._drain()))
        # A cancelled caller cancels its future; _take skips it, so nothing runs for nobody.
        return await future

    def _take(self) -> list[tuple[T, asyncio.Future[R]]]:
        """The oldest live item and the next live items sharing its key, up to max_size."""
        live = [entry for entry in self._pending if not entry[1].done()]
        if not live:
            self._pending = []
            return []
        key = self._key(live[0][0])
        batch: list[tuple[T, asyncio.Future[R]]] = []
        rest: list[tuple[T, asyncio.Future[R]]] = []
        for entry in live:
            if len(batch) < self._max_size and self._key(entry[0]) == key:
                batch.append(entry)
            else:
                rest.append(entry)
        self._pending = rest
        return batch

    async def _drain(self) -> None:
        while True:
            batch = self._take()
            if not batch:
                return
            self._running += batch
            try:
                results: Sequence[R | Exception] = await self._run([item for item, _ in batch])
                if len(results) != len(batch):
                    raise RuntimeError(f"batch of {len(batch)} gave {len(results)} results")
            except Exception as exc:
                results = [exc] * len(batch)
            finished = {id(entry) for entry in batch}
            self._running = [entry for entry in self._running if id(entry) not in finished]
            for (_, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue  # its caller gave up while the batch ran
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    async def aclose(self, reason: Exception) -> None:
        """Stop the worker and fail every waiting caller with ``reason``."""
        workers, self._workers = self._workers, set()
        for worker in workers:
            if worker.done():
                continue
            worker.cancel()
            if worker.get_loop() is asyncio.get_running_loop():
                with contextlib.suppress(asyncio.CancelledError):
                    await worker
        waiting = self._running + self._pending
        self._running, self._pending = [], []
        for _, future in waiting:
            if not future.done():
                future.set_exception(reason)
