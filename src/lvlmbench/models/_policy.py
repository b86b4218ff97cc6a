"""What every model call shares: cache keys, retry policy with backoff, per-endpoint limits.

Chat models and text-to-image models both go through :func:`call_with_retries` and
:class:`EndpointLimiter`, so the two kinds of call follow one policy.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from lvlmbench.ids import canonical_json
from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._meter import count_request
from lvlmbench.types import GenerationConfig, ImagePart, Message, TextPart

__all__ = [
    "BREAKER_MARGIN",
    "DEFAULT_CONCURRENCY",
    "CallStats",
    "CircuitBreaker",
    "EndpointLimiter",
    "RetryEvent",
    "RetryHook",
    "RetryPolicy",
    "aborts_run",
    "breaker_threshold",
    "cache_key",
    "call_with_retries",
    "chat_cache_key",
]

T = TypeVar("T")
DEFAULT_CONCURRENCY = 16


def cache_key(kind: str, identity: dict[str, object], request: object) -> str:
    """sha256 of the canonical JSON of what determines an output (never timeouts or limits)."""
    payload = canonical_json({"kind": kind, "model": identity, "request": request})
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _message_fingerprint(message: Message) -> dict[str, Any]:
    parts: list[dict[str, str]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            parts.append({"text": part.text})
        elif isinstance(part, ImagePart):
            # Hash the bytes, not the path: the same picture from two paths is one entry.
            parts.append({"image": part.sha256()})
    return {"role": message.role, "content": parts}


def chat_cache_key(
    identity: dict[str, object], messages: list[Message], config: GenerationConfig
) -> str:
    """Cache key of a chat call. Every epoch but 0 is its own entry (``--epochs`` asks for K
    answers even at T = 0, where providers still vary); epoch 0 at T = 0 and unset ``params``
    leave the key as it was before those fields existed, so older caches stay valid."""
    params = config.model_dump(mode="json")
    if config.temperature <= 0 and config.epoch == 0:
        params.pop("epoch")
    if config.params is None:
        params.pop("params")
    return cache_key(
        "chat",
        identity,
        {"messages": [_message_fingerprint(m) for m in messages], "config": params},
    )


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before retrying a transient failure."""

    max_retries: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.25
    """Fraction of the delay added at random so that many waiting calls do not retry in step."""
    max_retry_after: float = 300.0
    """Longest Retry-After honoured; a server asking for more fails the call instead."""

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if retry_after is not None:
            # The server said when; never retry earlier than that.
            return retry_after + rng.uniform(0, self.jitter * min(retry_after, 1.0))
        base = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return float(base * (1 + rng.uniform(0, self.jitter)))


@dataclass
class CallStats:
    """Counters of one client, for progress lines and cost reports."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    waits: list[float] = field(default_factory=list)
    """Backoff delays actually slept, in order (tests check Retry-After with these)."""


def aborts_run(exc: ProviderError) -> bool:
    """Failures that will hit every later call too (bad key, no quota, unknown model, a missing
    key): stop the run with a clear message instead of recording thousands of failed items.

    A transient failure never aborts by itself, even one that outlived its retries: a dropped
    connection or a refused one on one unlucky item fails that item. An endpoint down from the
    start is caught by the preflight, one that fails every call later by :class:`CircuitBreaker`.
    """
    if exc.kind is ErrorKind.FATAL:
        return exc.status_code in (None, 401, 402, 403, 404)
    return False


BREAKER_MARGIN = 4
"""Calls beyond one full wave (``concurrency``) that must fail too before the breaker trips."""


def breaker_threshold(concurrency: int) -> int:
    """Calls in a row that must fail with a server or connection error, after all their retries
    and with no success in between, before the circuit breaker stops a run: 20 at the default
    concurrency of 16.

    The calls in flight together fail together: one wave of them is one observation of an
    outage as long as a retry budget (~1 min by default), which retries may yet outlast. More
    than a wave means calls that started after the first wave had failed failed as well: the
    endpoint has been down for two retry budgets. So a dead server stops a run after ~2 min at
    any concurrency (instead of every item spending its retries: ~24 min for 360 items at 16),
    and a minute-long outage never trips it.
    """
    return max(5, concurrency + BREAKER_MARGIN)


def _server_side(exc: ProviderError) -> bool:
    # What a down or broken endpoint answers: 5xx, or nothing at all (refused, dropped,
    # timed out). A 429 means the server is up and metering; a 4xx is about the request.
    return exc.transient and (exc.status_code is None or exc.status_code >= 500)


class CircuitBreaker:
    """Trips after ``threshold`` consecutive calls failed server-side after their retries; any
    call that got an answer (a success, or a 4xx about the request) resets the count."""

    def __init__(self, threshold: int = 20) -> None:
        if threshold < 1:
            raise ValueError(f"breaker threshold must be at least 1, got {threshold}")
        self.threshold = threshold
        self.failures_in_a_row = 0
        self.tripped_by: str | None = None
        """Why it tripped (the last failure's message), or None while closed."""

    def record_success(self) -> None:
        """A call got an answer: the endpoint is alive."""
        self.failures_in_a_row = 0

    def record_failure(self, exc: ProviderError) -> bool:
        """Count a call that failed after its retries; True when this one trips the breaker."""
        if not _server_side(exc):
            self.failures_in_a_row = 0
            return False
        self.failures_in_a_row += 1
        if self.failures_in_a_row >= self.threshold and self.tripped_by is None:
            self.tripped_by = str(exc)
        return self.tripped_by is not None

    def message(self, spec: str) -> str:
        """The one line a tripped breaker stops the run with."""
        return (
            f"{spec}: stopped after {self.threshold} calls in a row failed with server "
            f"or connection errors after all their retries (last: {self.tripped_by}); the "
            "endpoint looks down, run again once it answers (finished items are kept)"
        )


@dataclass(frozen=True)
class RetryEvent:
    """A failed attempt about to be retried: for progress lines and logs."""

    attempt: int
    """The retry about to be made (1 = first retry)."""
    max_retries: int
    wait_s: float
    reason: str


RetryHook = Callable[[RetryEvent], None]
Sleeper = Callable[[float], Awaitable[None]]


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    stats: CallStats,
    rng: random.Random,
    sleep: Sleeper = asyncio.sleep,
    on_retry: RetryHook | None = None,
) -> tuple[T, int]:
    """Run ``call`` until it succeeds, retrying transient ProviderErrors with backoff.

    Returns the result and the number of attempts. Raises the last ProviderError when it is not
    transient or the retry budget is spent.
    """
    attempt = 0
    while True:
        attempt += 1
        stats.requests += 1
        count_request()
        try:
            return await call(), attempt
        except ProviderError as exc:
            if not exc.transient or attempt > policy.max_retries:
                raise
            if exc.retry_after is not None and exc.retry_after > policy.max_retry_after:
                raise
            wait = policy.delay(attempt, exc.retry_after, rng)
            stats.retries += 1
            stats.waits.append(wait)
            if on_retry is not None:
                on_retry(RetryEvent(attempt, policy.max_retries, wait, _short_reason(exc)))
            await sleep(wait)


def _short_reason(exc: ProviderError) -> str:
    # "HTTP 503" or the transport's words, without the spec and URL that every line repeats.
    if exc.status_code is not None and exc.status_code >= 400:
        return f"HTTP {exc.status_code}"
    text = str(exc.args[0]) if exc.args else str(exc)
    _, _, rest = text.partition(": ")
    return (rest or text)[:80]


class EndpointLimiter:
    """At most ``limit`` calls in flight per endpoint, shared by every client in the process.

    Semaphores belong to an event loop, so they are kept per running loop.
    """

    _per_loop: ClassVar[
        weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]]
    ] = weakref.WeakKeyDictionary()

    @classmethod
    def get(cls, endpoint: str, limit: int) -> asyncio.Semaphore:
        """The semaphore for ``endpoint`` in the running loop (created with ``limit``)."""
        if limit < 1:
            raise ValueError(f"concurrency must be at least 1, got {limit}")
        loop = asyncio.get_running_loop()
        table = cls._per_loop.setdefault(loop, {})
        key = f"{endpoint}#{limit}"
        if key not in table:
            table[key] = asyncio.Semaphore(limit)
        return table[key]
