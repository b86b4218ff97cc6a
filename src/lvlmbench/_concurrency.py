"""The two pieces every long run shares: a pool of workers over one job stream, and a writer
that stores finished records in batches.

Used by the evaluation runner, the judges and the generation pipeline, so that all of them stop
the same way on a fatal error and lose at most one small batch when killed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Generic, TypeVar

__all__ = ["BatchWriter", "drain"]

T = TypeVar("T")


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
