"""Work through jobs under leases, so several runs on one store share the work instead of
paying for it twice (see :mod:`lvlmbench.store._leases`)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar

from lvlmbench._concurrency import drain
from lvlmbench.store import Holder, Leases

__all__ = ["WaitNotices", "drain_leased"]

T = TypeVar("T")

MAX_WAIT_S = 0.25
"""Longest pause before asking again for units another run holds."""
NOTICE_EVERY_S = 30.0
"""While the same holders keep a run waiting, how often the waiting line is said again."""

log = logging.getLogger("lvlmbench.runner")


class WaitNotices:
    """What a run says about the units it cannot take: one line per holder when it starts to
    wait for them (and again every ``NOTICE_EVERY_S`` while it still waits), so a resumed run
    never waits in silence; and the gone owners whose units it took over."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._said: frozenset[str] = frozenset()
        self._said_at = 0.0

    def waiting(self, holders: Sequence[Holder]) -> list[str]:
        """The lines for ``holders`` (merged per owner), or [] when they were said lately."""
        merged: dict[str, Holder] = {}
        for holder in holders:
            seen = merged.get(holder.owner)
            merged[holder.owner] = holder if seen is None else _merge(seen, holder)
        now = self._clock()
        owners = frozenset(merged)
        if not owners or (owners == self._said and now - self._said_at < NOTICE_EVERY_S):
            return []
        self._said, self._said_at = owners, now
        lines = []
        for holder in sorted(merged.values(), key=lambda h: h.label):
            left = max(0, round(holder.expires_at - now))
            items = "item" if holder.units == 1 else "items"
            lines.append(
                f"waiting for {holder.units} {items} leased by {holder.label} "
                f"(they expire in {left} s)"
            )
        return lines

    @staticmethod
    def taken_over(holders: Sequence[Holder]) -> list[str]:
        """The lines for gone owners whose leases a claim took over (all of each owner's
        leases go at once, the units of later claims among them)."""
        return [
            f"taking over the items leased by {h.label}: it is no longer running" for h in holders
        ]


def _merge(a: Holder, b: Holder) -> Holder:
    return Holder(a.owner, a.process, a.units + b.units, max(a.expires_at, b.expires_at))


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
    holder (``on_done_elsewhere``) or free again (its holder released it, or died: at once when
    it ran on this host, else once its lease expired); while it waits it says for whom, on the
    ``lvlmbench.runner`` logger (:class:`WaitNotices`). Leases are renewed while this runs; the
    caller releases them once it has stored the results (released earlier, another run could
    take a finished unit again).
    ``flush`` stores (and releases) what this run finished before it waits: the run it waits
    for may be waiting for those very units. ``on_claimed`` sees each batch of jobs this run
    claimed before any of them is handled (the runner looks their cache rows up in one query).
    """
    claims = _Claims(leases, unit, max(1, workers), on_done_elsewhere, on_claimed)
    renewing = asyncio.create_task(_renew(leases))
    try:
        await drain(claims.claimed(jobs), handle, workers)
        pause = min(MAX_WAIT_S, leases.lease_s / 4)
        while claims.waiting:
            for line in claims.notices.waiting(claims.holders):
                log.warning(line)
            pending = claims.set_aside()
            await drain(claims.claimed(pending), handle, workers)
            if len(claims.waiting) == len(pending):  # nothing came free: holders still at work
                if flush is not None:
                    flush()
                await asyncio.sleep(pause)
    finally:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing


class _Claims(Generic[T]):
    """What :func:`drain_leased` claims: the jobs it set aside for another run (and that run's
    holders, for the wait notices), claimed again in later rounds."""

    def __init__(
        self,
        leases: Leases,
        unit: Callable[[T], str],
        batch: int,
        on_done_elsewhere: Callable[[T], None] | None,
        on_claimed: Callable[[list[T]], None] | None,
    ) -> None:
        self.leases, self.unit, self.batch = leases, unit, batch
        self.on_done_elsewhere, self.on_claimed = on_done_elsewhere, on_claimed
        self.waiting: list[T] = []
        self.holders: list[Holder] = []  # of the units set aside in the current round
        self.notices = WaitNotices()

    def set_aside(self) -> list[T]:
        """The jobs set aside so far, to claim again; a new round starts with none."""
        pending = list(self.waiting)
        self.waiting.clear()
        self.holders.clear()
        return pending

    def claimed(self, source: Iterable[T]) -> Iterator[T]:
        """The jobs of ``source`` this run claims, a batch at a time; the others are skipped
        (finished elsewhere) or set aside (held by a live run)."""
        for chunk in _batched(source, self.batch):
            claim = self.leases.claim([self.unit(job) for job in chunk])
            self.holders.extend(claim.held)
            for line in self.notices.taken_over(claim.taken_over):
                log.info(line)
            mine = []
            for job in chunk:
                key = self.unit(job)
                if key in claim.mine:
                    mine.append(job)
                elif key in claim.done:
                    if self.on_done_elsewhere is not None:
                        self.on_done_elsewhere(job)
                else:
                    self.waiting.append(job)
            if self.on_claimed is not None and mine:
                self.on_claimed(mine)
            yield from mine


def _batched(source: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(source)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk


async def _renew(leases: Leases) -> None:
    while True:
        await asyncio.sleep(leases.lease_s / 3)
        leases.renew()
