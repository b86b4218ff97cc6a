"""Per-client limits: token buckets on votes (per annotator and per address) and on sign-in
attempts (per address), with a back-off that doubles after each failed sign-in.

State lives in the server process (a second server on the same store keeps its own), bounded:
past ``capacity`` keys the least recently seen is forgotten, which only ever gives that key a
full bucket again. An IPv6 client is keyed by its /64, the block one subscriber usually holds.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fastapi import HTTPException, Request

__all__ = ["LoginGuard", "Rate", "TokenBuckets", "client_key", "too_many"]

Clock = Callable[[], float]


@dataclass(frozen=True)
class Rate:
    """``per_minute`` sustained, up to ``burst`` at once; ``per_minute`` 0 means no limit."""

    per_minute: float
    burst: int

    def __post_init__(self) -> None:
        if self.per_minute < 0 or self.burst < 1:
            raise ValueError(f"a rate needs per_minute >= 0 and burst >= 1, not {self}")

    @property
    def per_second(self) -> float:
        return self.per_minute / 60


class TokenBuckets:
    """Token buckets by key: each starts full (``burst``) and refills at its rate."""

    def __init__(self, clock: Clock = time.monotonic, capacity: int = 100_000) -> None:
        self._clock = clock
        self._capacity = capacity
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, when
        self._lock = threading.Lock()

    def _level(self, rate: Rate, key: str, now: float) -> float:
        tokens, then = self._buckets.get(key, (float(rate.burst), now))
        return min(float(rate.burst), tokens + (now - then) * rate.per_second)

    def take(self, wanted: Sequence[tuple[Rate, str]]) -> float:
        """Take one token from each bucket named (all or none): 0.0 when taken, else the
        seconds until every one of them holds a token again."""
        with self._lock:
            now = self._clock()
            active = [(rate, key) for rate, key in wanted if rate.per_minute > 0]
            levels = [self._level(rate, key, now) for rate, key in active]
            pairs = list(zip(active, levels, strict=True))
            wait = max(((1 - level) / r.per_second for (r, _), level in pairs), default=0.0)
            if wait > 0:
                return wait
            for (_, key), level in pairs:
                self._buckets[key] = (level - 1, now)
                self._buckets.move_to_end(key)
            while len(self._buckets) > self._capacity:
                self._buckets.popitem(last=False)
            return 0.0


@dataclass
class _Failures:
    count: int
    last: float


class LoginGuard:
    """Sign-in attempts per client: ``rate`` on every attempt, and after ``n`` failures in a
    row no attempt for ``base_s * 2**(n-1)`` seconds (at most ``cap_s``). A success clears the
    failures; so does an hour without any."""

    def __init__(
        self,
        rate: Rate,
        *,
        base_s: float = 1.0,
        cap_s: float = 300.0,
        forget_s: float = 3600.0,
        clock: Clock = time.monotonic,
        capacity: int = 100_000,
    ) -> None:
        self._rate = rate
        self._base_s, self._cap_s, self._forget_s = base_s, cap_s, forget_s
        self._clock = clock
        self._capacity = capacity
        self._attempts = TokenBuckets(clock, capacity)
        self._failures: OrderedDict[str, _Failures] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, client: str, *, count: bool = True) -> float:
        """0.0 when ``client`` may try now, else seconds to wait. ``count``: the attempt also
        takes a token from the client's bucket (off: only the back-off applies)."""
        with self._lock:
            now = self._clock()
            failed = self._failures.get(client)
            if failed is not None and now - failed.last > self._forget_s:
                del self._failures[client]
                failed = None
            if failed is not None:
                backoff = min(self._cap_s, self._base_s * 2 ** min(failed.count - 1, 30))
                if failed.last + backoff > now:
                    return float(failed.last + backoff - now)
        return self._attempts.take([(self._rate, client)]) if count else 0.0

    def failed(self, client: str) -> None:
        with self._lock:
            failed = self._failures.pop(client, None)
            count = 1 if failed is None else failed.count + 1
            self._failures[client] = _Failures(count, self._clock())
            while len(self._failures) > self._capacity:
                self._failures.popitem(last=False)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


def client_key(request: Request) -> str:
    """The client's address as limits key it: IPv4 as is, IPv6 by its /64. Behind a reverse
    proxy this is the proxy's unless the server trusts its forwarded headers (uvicorn's
    ``--forwarded-allow-ips``, which ``serve`` leaves at 127.0.0.1)."""
    host = request.client.host if request.client is not None else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def too_many(what: str, wait: float) -> HTTPException:
    """429 saying what was limited and when to try again, with ``Retry-After``."""
    seconds = max(1, math.ceil(wait))
    return HTTPException(
        429, f"{what}: try again in {seconds} s", headers={"Retry-After": str(seconds)}
    )
