"""Replicas of one deployment (several base URLs serving one model), balanced by in-flight count.

A replica that fails to connect, drops the connection, times out or answers 5xx is taken out
for a cool-down (30 s, doubling on each failure in a row, at most 5 min) and tried again after
it; a success puts it back at once and resets its cool-down. When every replica is out the one
due back first is used anyway: the client's retries and circuit breaker then decide, as they
do for a single endpoint, so a run never stalls on the balancer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from lvlmbench.models._api import ProviderError

__all__ = ["COOLDOWN_S", "MAX_COOLDOWN_S", "Replica", "ReplicaSet", "replica_failed"]

COOLDOWN_S = 30.0
MAX_COOLDOWN_S = 300.0


def replica_failed(exc: ProviderError) -> bool:
    """Whether ``exc`` says the replica (not the request) is broken: no answer at all, or a
    5xx. A 429 means it is up and metering, a 4xx is about the request, both stay put."""
    return exc.transient and (exc.status_code is None or exc.status_code >= 500)


@dataclass
class Replica:
    """One base URL and what the balancer knows of it."""

    url: str
    in_flight: int = 0
    down_until: float = 0.0
    """Monotonic time before which it is out (0: in)."""
    cooldown: float = 0.0
    """The cool-down its next failure starts (0: it has not failed since its last success)."""
    last_error: str | None = None

    def available(self, now: float) -> bool:
        """Whether it is in the rotation at ``now``."""
        return self.down_until <= now


class ReplicaSet:
    """The replicas of one model; :meth:`pick` chooses the one a call goes to."""

    def __init__(
        self,
        urls: list[str],
        *,
        cooldown_s: float = COOLDOWN_S,
        max_cooldown_s: float = MAX_COOLDOWN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not urls:
            raise ValueError("a replica set needs at least one URL")
        self.replicas = [Replica(url) for url in urls]
        self._cooldown_s = cooldown_s
        self._max_cooldown_s = max_cooldown_s
        self._clock = clock

    def __len__(self) -> int:
        return len(self.replicas)

    def pick(self, exclude: frozenset[str] = frozenset()) -> Replica:
        """The replica in rotation with the fewest calls in flight (the first listed on a tie),
        skipping ``exclude`` (those this call already failed on) while others remain; when all
        are out, the one due back first."""
        now = self._clock()
        candidates = [r for r in self.replicas if r.url not in exclude] or self.replicas
        alive = [r for r in candidates if r.available(now)]
        if alive:
            return min(alive, key=lambda r: r.in_flight)
        return min(candidates, key=lambda r: (r.down_until, r.in_flight))

    def has_other(self, exclude: frozenset[str]) -> bool:
        """Whether a replica in rotation is left outside ``exclude``."""
        now = self._clock()
        return any(r.url not in exclude and r.available(now) for r in self.replicas)

    def succeeded(self, replica: Replica) -> None:
        """It answered: back in rotation, cool-down reset."""
        replica.down_until = 0.0
        replica.cooldown = 0.0
        replica.last_error = None

    def failed(self, replica: Replica, reason: str) -> None:
        """It failed server-side: out for its cool-down, the next one twice as long. Calls
        already in flight on it when it went out do not lengthen the cool-down again."""
        now = self._clock()
        if replica.available(now) or replica.cooldown == 0:
            replica.cooldown = min(
                self._max_cooldown_s, replica.cooldown * 2 if replica.cooldown else self._cooldown_s
            )
            replica.down_until = now + replica.cooldown
        replica.last_error = reason

    def out(self) -> list[Replica]:
        """The replicas out of rotation now."""
        now = self._clock()
        return [r for r in self.replicas if not r.available(now)]
