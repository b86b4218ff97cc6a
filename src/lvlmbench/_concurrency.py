"""The two pieces every long run shares: a pool of workers over one job stream, and a writer
that stores finished records in batches.

Used by the evaluation runner, the judges and the generation pipeline, so that all of them stop
the same way on a fatal error and lose at most one small batch when killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Generic, TypeVar

__all__ = ["BatchWriter", "Coalescer", "collect_rarely", "drain"]

T = TypeVar("T")

# Young objects are collected after this many net allocations during a run (Python's default
# is 700): a call allocates hundreds of short-lived objects, most freed by reference counting.
_RUN_THRESHOLDS = (50_000, 20, 100)
_relaxed_runs = 0
_saved_thresholds: tuple[int, int, int] = gc.get_threshold()
_relaxed_lock = threading.Lock()  # runs may start and end on several threads (the web app's)


@contextlib.contextmanager
def collect_rarely() -> Iterator[None]:
    """Keep the cycle collector out of a long run's way, and restore it afterwards.

    Every call stalls behind a collection the event loop makes: measured at 64 calls in
    flight, L = 50 ms, a full collection scanning what the process held before the run (the
    imports, the store, the items' ids) paused the loop 45-55 ms twice a run, and young ones
    ran ~300 times; requests waiting on the loop made the run 1.5 % slower. Objects made before
    the run are frozen (gc.freeze: never scanned again while it lasts) and young ones are
    collected every 50,000 allocations. Runs in one process may overlap (several models on one
    loop): the first to start relaxes, the last to end restores.
    """
    global _relaxed_runs, _saved_thresholds
    with _relaxed_lock:
        if _relaxed_runs == 0:
            _saved_thresholds = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(*_RUN_THRESHOLDS)
        _relaxed_runs += 1
    try:
        yield
    finally:
        with _relaxed_lock:
            _relaxed_runs -= 1
            if _relaxed_runs == 0:
                gc.set_threshold(*_saved_thresholds)
                gc.unfreeze()


async def drain(jobs: Iterable[T], handle: Callable[[T], Awaitable[None]], workers: int) -> None:
    """``await handle(job)`` for every job, ``workers`` at a time, each job exactly once.

    The first exception cancels the other workers and is raised as itself (RunAborted reaches
    the CLI's error handling instead of an ExceptionGroup).
    """
    pending = iter(jobs)  # shared: each job goes to exactly one worker

    async def worker() -> None:
        for job in pending:
            await handle(job)

    try:
        with collect_rarely():
            async with asyncio.TaskGroup() as group:
                for _ in range(max(1, workers)):
                    group.create_task(worker())
    except BaseExceptionGroup as failures:
        raise failures.exceptions[0] from None


class BatchWriter(Generic[T]):
    """Buffers records and hands them to ``write`` in batches bounded by count and by time:
    one transaction per batch instead of per record, and at most ``seconds`` of work unsaved."""

    def __init__(
        self, write: Callable[[list[T]], None], every: int = 256, seconds: float = 2.0
    ) -> None:
        self._write = write
        self._every = every
        self._seconds = seconds
        self._buffer: list[T] = []
        self._last = time.monotonic()

    def add(self, record: T) -> None:
        """Buffer one record; write the batch when it is full or old enough."""
        self._buffer.append(record)
        if len(self._buffer) >= self._every or time.monotonic() - self._last > self._seconds:
            self.flush()

    def flush(self) -> None:
        """Write whatever is buffered."""
        if self._buffer:
            self._write(self._buffer)
            self._buffer = []
        self._last = time.monotonic()


R = TypeVar("R")


class Coalescer(Generic[T, R]):
    """Hands everything submitted within ``window`` seconds to ``run`` in one call, and each
    submitter its own result: one transaction or one query for many concurrent callers.

    ``run`` is synchronous and returns one result per item, in order. It runs on the event loop
    thread, so a batch costs one statement's overhead instead of one per item; a caller that
    awaits :meth:`submit` knows its item was handled (a written row is committed). Items whose
    caller was cancelled are still handled: a paid call's cache row is never dropped.
    """

    def __init__(
        self, run: Callable[[list[T]], list[R]], window: float = 0.0, limit: int = 256
    ) -> None:
        self._run = run
        self._window = window
        self._limit = limit
        self._items: list[T] = []
        self._futures: list[asyncio.Future[R]] = []
        self._thens: list[Callable[[], None]] = []
        self._timer: asyncio.Handle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def submit(self, item: T) -> R:
        """``run``'s result for ``item``, once its batch has run."""
        return await self.enqueue(item)

    def enqueue(self, item: T, then: Callable[[], None] | None = None) -> asyncio.Future[R]:
        """Queue ``item`` for its batch and return the future of its result.

        ``then`` is called as soon as the batch has run (succeeded or failed), before any
        submitter is woken, even one whose wait was cancelled: what it wakes (a task waiting
        for a lock it releases, say) runs before the submitters resume.
        """
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # Items left by a loop that ended before its timer fired (a model reused under a
            # new asyncio.run) are handled now rather than waiting forever.
            self.flush()
            self._loop = loop
        future: asyncio.Future[R] = loop.create_future()
        self._items.append(item)
        self._futures.append(future)
        if then is not None:
            self._thens.append(then)
        if len(self._items) >= self._limit:
            self.flush()
        elif self._timer is None and self._window > 0:
            self._timer = loop.call_later(self._window, self.flush)
        elif self._timer is None:  # cheaper than a zero-delay timer: no heap entry
            self._timer = loop.call_soon(self.flush)
        return future

    def flush(self) -> None:
        """Run whatever is pending now."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        items, futures, thens = self._items, self._futures, self._thens
        self._items, self._futures, self._thens = [], [], []
        if not items:
            return
        outcome: list[R] | Exception
        try:
            outcome = self._run(items)
        except Exception as exc:
            outcome = exc
        try:
            for then in thens:  # before any submitter is woken: what these wake runs first
                then()
        finally:
            _deliver(futures, outcome)


def _deliver(futures: list[asyncio.Future[R]], outcome: list[R] | Exception) -> None:
    """Each waiting submitter's result, or the batch's exception."""
    if isinstance(outcome, Exception):
        for future in futures:
            if _waiting(future):
                future.set_exception(outcome)
        return
    for future, result in zip(futures, outcome, strict=True):
        if _waiting(future):
            future.set_result(result)


def _waiting(future: asyncio.Future[R]) -> bool:
    # False when its caller is gone: cancelled, or its event loop has ended.
    return not future.done() and not future.get_loop().is_closed()
