"""Work through jobs under leases, so several runs on one store share the work instead of
paying for it twice (see :mod:`lvlmbench.store._leases`)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import TypeVar

from lvlmbench._concurrency import drain
from lvlmbench.store import Leases

__all__ = ["drain_leased"]

T = TypeVar("T")

MAX_WAIT_S = 0.25
"""Longest pause before asking again for units another run holds."""


async def drain_leased(
    leases: Leases,
    jobs: Iterable[T],
    unit: Callable[[T], str],
    handle: Callable[[T], Awaitable[None]],
    workers: int,
    on_done_elsewhere: Callable[[T], None] | None = None,
    flush: Callable[[], None] | None = None,
    on_claimed: Callable[[list[T]], None] | None = None,
) -> None:
    """``await handle(job)`` for every job whose unit this run claims, ``workers`` at a time.

    Jobs are claimed ``workers`` at a time as the workers reach them, so concurrent runs
    interleave rather than one taking everything. A job another live run holds is set aside
    and claimed again once this run has nothing else to do: it is then either finished by its
    holder (``on_done_elsewhere``) or free again (its holder released it, or died and the lease
    expired). Leases are renewed while this runs; the caller releases them once it has
    stored the results (released earlier, another run could take a finished unit again).
    ``flush`` stores (and releases) what this run finished before it waits: the run it waits
    for may be waiting for those very units. ``on_claimed`` sees each batch of jobs this run
    claimed before any of them is handled (the runner looks their cache rows up in one query).
    """
    batch = max(1, workers)
    waiting: list[T] = []

    def skip(job: T) -> None:
        if on_done_elsewhere is not None:
            on_done_elsewhere(job)

    def claimed(source: Iterable[T]) -> Iterator[T]:
        for chunk in _batched(source, batch):
            claim = leases.claim([unit(job) for job in chunk])
            mine = []
            for job in chunk:
                key = unit(job)
                if key in claim.mine:
                    mine.append(job)
                elif key in claim.done:
                    skip(job)
                else:
                    waiting.append(job)
            if on_claimed is not None and mine:
                on_claimed(mine)
            yield from mine

    renewing = asyncio.create_task(_renew(leases))
    try:
        await drain(claimed(jobs), handle, workers)
        pause = min(MAX_WAIT_S, leases.lease_s / 4)
        while waiting:
            pending, waiting[:] = list(waiting), []
            before = len(pending)
            await drain(claimed(pending), handle, workers)
            if len(waiting) == before:  # nothing came free: its holders are still at work
                if flush is not None:
                    flush()
                await asyncio.sleep(pause)
    finally:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing


def _batched(source: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(source)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


async def _renew(leases: Leases) -> None:
    while True:
        await asyncio.sleep(leases.lease_s / 3)
        leases.renew()
