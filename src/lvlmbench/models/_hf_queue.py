"""The requests a transformers model has not started yet, and how they are cut into groups.

A group is prepared (images decoded, the processor run) and then decoded together. On a GPU one
``generate`` call costs about as much for 1 row as for 32 (a decode step of a small batch is
bound by kernel launches, not arithmetic), so a group cut short costs a whole call for a few
rows. Calls reach the queue in waves: the answers of one batch free the caller's concurrency
slots over several turns of its event loop, and each turn adds a few requests. A preparation
thread that took whatever waited at the first wave made groups such as 1 + 31 where 32 were
coming: measured on the tiny model, 5 ``generate`` calls for 128 rows at batch 32 instead of 4.

So a group of fewer rows than asked for is handed out only when its taker could use it now
(its generation thread would otherwise wait, or its running batch has room) and the arrivals
have gone quiet; until then the taker waits for the group to fill.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["LINGER_S", "QUIET_S", "Job", "Pending"]

QUIET_S = 0.02
"""A short group waits until no request arrived for this long: one wave of calls reaches the
queue over several turns of the caller's event loop, each a few milliseconds apart when the
generation thread holds the GIL."""
LINGER_S = 0.25
"""The longest a short group waits for arrivals to go quiet once its taker could use it."""
_POLL_S = 0.05
"""How often a waiting taker asks again whether it could use a short group."""


@dataclass
class Job:
    """One request and how to hand its answer (or error) back to whoever asked."""

    request: Any
    deliver: Callable[[Any], None]
    """Called once, from any thread, with a ModelOutput or an Exception."""
    abandoned: Callable[[], bool] = lambda: False
    """Whether its caller gave up (then it is not prepared)."""

    def wanted(self) -> bool:
        """Whether an answer is still awaited."""
        return not self.abandoned()


class Pending:
    """Requests not yet taken by a replica, shared by all of them."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._jobs: collections.deque[Job] = collections.deque()
        self._ready = threading.Condition()
        self._error: Exception | None = None
        self._clock = clock
        self._last_put = clock()

    def put(self, jobs: Sequence[Job], front: bool = False) -> None:
        """Queue ``jobs`` (at the front: rows given back after an out-of-memory error)."""
        with self._ready:
            if self._error is not None:
                for job in jobs:
                    job.deliver(self._error)
                return
            if front:
                self._jobs.extendleft(reversed(jobs))
            else:
                self._jobs.extend(jobs)
                self._last_put = self._clock()
            self._ready.notify_all()

    def wake(self) -> None:
        """Make waiting takers ask again whether they could use a short group."""
        with self._ready:
            self._ready.notify_all()

    def take(
        self,
        most: int,
        block: bool,
        key: Callable[[Any], Any] | None = None,
        short_ok: Callable[[], bool] | None = None,
    ) -> list[Job] | None:
        """Up to ``most`` jobs, oldest first; with ``key``, only those whose request has the
        oldest one's key. None once closed.

        ``most`` of them are taken at once. Fewer are taken only when ``short_ok()`` (default:
        always) says the taker could use them now and no job arrived for ``QUIET_S`` (or
        ``LINGER_S`` passed since ``short_ok`` first said so); until then this waits when
        ``block``, else returns [] at once."""
        allowed_since: float | None = None
        with self._ready:
            while True:
                if self._error is not None:
                    return None
                wanted = key(self._jobs[0].request) if key is not None and self._jobs else None
                count = self._count(most, key, wanted)
                if count >= most:
                    return self._pop(most, key, wanted)
                timeout: float | None = None if block else 0.0
                if count and (short_ok is None or short_ok()):
                    now = self._clock()
                    allowed_since = now if allowed_since is None else allowed_since
                    quiet_at = min(self._last_put + QUIET_S, allowed_since + LINGER_S)
                    if now >= quiet_at:
                        return self._pop(count, key, wanted)
                    timeout = quiet_at - now
                elif count:
                    allowed_since, timeout = None, _POLL_S
                if not block:
                    return []
                self._ready.wait(timeout)

    def _count(self, most: int, key: Callable[[Any], Any] | None, wanted: Any) -> int:
        if key is None:
            return min(most, len(self._jobs))
        count = 0
        for job in self._jobs:
            if key(job.request) == wanted:
                count += 1
                if count == most:
                    break
        return count

    def _pop(self, most: int, key: Callable[[Any], Any] | None, wanted: Any) -> list[Job]:
        if key is None:
            return [self._jobs.popleft() for _ in range(most)]
        taken: list[Job] = []
        rest: collections.deque[Job] = collections.deque()
        for job in self._jobs:
            if len(taken) < most and key(job.request) == wanted:
                taken.append(job)
            else:
                rest.append(job)
        self._jobs = rest
        return taken

    def __len__(self) -> int:
        return len(self._jobs)

    def close(self, error: Exception) -> None:
        """Fail every waiting and every later job with ``error``; wake the threads."""
        with self._ready:
            self._error = error
            waiting, self._jobs = list(self._jobs), collections.deque()
            self._ready.notify_all()
        for job in waiting:
            job.deliver(error)
