"""The one cached, limited, retried call path every model call goes through, chat or image.

:class:`CallClient` owns the wiring: the store cache (batched), identical calls in flight shared,
the per-endpoint concurrency limit (per replica), retries with backoff reported to a hook and the
log, the circuit breaker, the preflight, and secrets masked before anything keeps an output.
A specialisation (:class:`~lvlmbench.models.ModelClient`, ``lvlmbench.images.ImageClient``) says
only what differs: the cache key, how an output is stored and read back, how it is masked.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from lvlmbench.models._api import ProviderError
from lvlmbench.models._cache import CallCache
from lvlmbench.models._meter import count_usage
from lvlmbench.models._policy import (
    CallStats,
    CircuitBreaker,
    EndpointLimiter,
    RetryEvent,
    RetryHook,
    RetryPolicy,
    aborts_run,
    breaker_threshold,
    call_with_retries,
)
from lvlmbench.models._secrets import redact_text
from lvlmbench.store import Store
from lvlmbench.types import Status

__all__ = ["CallClient", "CallOutput", "CalledModel", "RunAborted", "log_retry", "preflight"]

log = logging.getLogger("lvlmbench.models._client")  # the logger retries were always logged on


class RunAborted(RuntimeError):
    """A failure that every later call would hit too (bad key, unknown model, server down)."""


class CalledModel(Protocol):
    """What the client needs of any model (chat or image) besides its call."""

    @property
    def spec(self) -> str: ...

    @property
    def endpoint(self) -> str: ...

    def cache_identity(self) -> dict[str, object]: ...

    async def aclose(self) -> None: ...


class CallOutput(Protocol):
    """What the client needs of any output: its status, and copies with fields replaced."""

    @property
    def status(self) -> Status: ...

    def model_copy(
        self, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> Self: ...


ModelT = TypeVar("ModelT", bound=CalledModel)
OutputT = TypeVar("OutputT", bound=CallOutput)


async def preflight(model: object) -> None:
    """Check once, before a run, that ``model``'s endpoint accepts connections, through the
    model's optional ``async def check()`` (models without an endpoint have none).

    Raises RunAborted with one line naming the URL and the cause when it does not.
    """
    check = getattr(model, "check", None)
    if check is None:
        return
    try:
        await check()
    except ProviderError as exc:
        raise RunAborted(redact_text(str(exc))) from None


def log_retry(spec: str, event: RetryEvent) -> None:
    """Log one retry at INFO (shown under ``lvlmbench -v``)."""
    log.info(
        "%s: retry %d/%d in %.1f s: %s",
        spec,
        event.attempt,
        event.max_retries,
        event.wait_s,
        redact_text(event.reason),
    )


_warned_batches: set[tuple[str, int]] = set()


def _warn_small_concurrency(model: object, concurrency: int | None) -> None:
    """Warn once per model and concurrency when an explicit concurrency keeps a batching model's
    batches smaller than its ``batch_size``: it can never gather more calls than are in flight."""
    batch = getattr(model, "batch_size", None)
    if concurrency is None or not isinstance(batch, int) or concurrency >= batch:
        return
    spec = str(getattr(model, "spec", "model"))
    if (spec, concurrency) in _warned_batches:
        return
    _warned_batches.add((spec, concurrency))
    log.warning(
        "%s: --concurrency %d keeps its batches at %d rows or fewer (batch_size allows %d); "
        "leave --concurrency out to let the model choose",
        spec,
        concurrency,
        concurrency,
        batch,
    )


class CallClient(ABC, Generic[ModelT, OutputT]):
    """Wraps a model with the store cache, a per-endpoint concurrency limit, retries with
    backoff that honour Retry-After, a circuit breaker and the call counters.

    Only ok and refused outputs are cached: an error is retried on the next run, never replayed.
    """

    kind: ClassVar[str]
    """The cache rows' ``kind`` column (``chat``, ``image``)."""
    default_concurrency: ClassVar[int]
    """Calls in flight per replica when the caller names no ``concurrency``."""

    def __init__(
        self,
        model: ModelT,
        store: Store | None,
        *,
        concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        seed: int = 0,
        on_retry: RetryHook | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.model = model
        self.store = store
        self.replicas = int(getattr(model, "replica_count", 1))
        # ``concurrency`` is per replica (what each vLLM server is sized for): a model served by
        # several keeps that many calls in flight on each, the balancer spreading them.
        per_replica = concurrency if concurrency is not None else self._model_default(model)
        _warn_small_concurrency(model, concurrency)
        self.concurrency = per_replica * self.replicas
        """Calls in flight at most, over all the model's replicas."""
        self.retry = retry or RetryPolicy()
        self.stats = CallStats()
        self.on_retry = on_retry
        """Called with each retry about to be made (the CLI's status line); may be set later."""
        self.breaker = breaker or CircuitBreaker(breaker_threshold(self.concurrency))
        self._rng = random.Random(seed)
        self._identity = model.cache_identity()
        # A model may opt out (``cacheable = False``) when answering costs less than a cache
        # lookup and is deterministic anyway: the baselines. Runner responses still resume.
        use_cache = store is not None and bool(getattr(model, "cacheable", True))
        self._cache = CallCache(store) if use_cache and store is not None else None
        # Identical calls already in flight: a second caller awaits the first instead of paying.
        self._inflight: dict[str, asyncio.Future[OutputT]] = {}
        # Why the run was aborted (a fatal error every later call would hit too), once it was.
        self._aborted_by: str | None = None

    def _model_default(self, model: ModelT) -> int:
        """The concurrency ``model`` asks for (a local model: enough to keep its batches
        full), else this client's default."""
        declared = getattr(model, "default_concurrency", None)
        return declared if isinstance(declared, int) and declared > 0 else self.default_concurrency

    # What a specialisation says -------------------------------------------------------------

    @abstractmethod
    def _decode(self, stored: str) -> OutputT | None:
        """A cached output from its row's ``output`` text (None: unusable, call again)."""

    @abstractmethod
    def _encode(self, output: OutputT) -> str:
        """The ``output`` text of the cache row kept for ``output``."""

    @abstractmethod
    def _failed(self, reason: str) -> OutputT:
        """The output of a call that failed after its retries (``reason`` already masked)."""

    @abstractmethod
    def _finished(self, output: OutputT, attempts: int) -> OutputT:
        """``output`` with its secrets masked and ``attempts`` recorded."""

    def _tokens(self, output: OutputT) -> tuple[int, int]:
        """Input and output tokens of ``output``, for the cache row."""
        return 0, 0

    def _images(self, output: OutputT) -> int:
        """Images ``output`` holds, for the request meters (what a price per image costs)."""
        return 0

    def _account(self, output: OutputT) -> None:
        """Add a paid ``output`` to the counters beyond requests (tokens, cost)."""

    # The one call path ------------------------------------------------------------------------

    @property
    def spec(self) -> str:
        """The wrapped model's spec."""
        return self.model.spec

    async def check(self) -> None:
        """The preflight: raises RunAborted within seconds when the endpoint refuses
        connections (closed port, unknown host, invalid URL). Call it once before a run."""
        await preflight(self.model)

    def _retried(self, event: RetryEvent) -> None:
        log_retry(self.model.spec, event)
        if self.on_retry is not None:
            self.on_retry(event)

    def prefetch(self, keys: Collection[str]) -> None:
        """Look the cache rows of calls about to be made up now, all in one query, so that each
        call then finds its answer (or its absence) without a query of its own. The runner does
        it for each batch of items it claims: one lookup per item was ~9 % of the client's CPU
        at 64 calls in flight."""
        if self._cache is not None:
            self._cache.prefetch(keys)

    async def _cached(self, key: str) -> OutputT | None:
        if self._cache is None:
            return None
        found = await self._cache.get(key)
        output = None if found is None else self._decode(found)
        if output is None:
            return None
        return output.model_copy(update={"cached": True, "attempts": 0})

    def _remember(
        self, key: str, output: OutputT, then: Callable[[], None]
    ) -> asyncio.Future[None] | None:
        """Queue ``output``'s cache row for the group commit and call ``then`` right after it;
        the future is done once the row is committed. None (``then`` not called): nothing to
        keep."""
        if self._cache is None or output.status not in (Status.OK, Status.REFUSED):
            return None
        input_tokens, output_tokens = self._tokens(output)
        return self._cache.put(
            {
                "key": key,
                "kind": self.kind,
                "spec": self.model.spec,
                "output": self._encode(output),
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "created_at": time.time(),
            },
            then,
        )

    async def _through(self, key: str, call: Callable[[], Awaitable[OutputT]]) -> OutputT:
        """``call`` (the model's own request) through cache, sharing, limiter and retries.

        Returns an output whose status says what happened; raises :class:`RunAborted` for
        failures that will not heal for any later call either.
        """
        hit = await self._cached(key)
        if hit is not None:
            self.stats.cache_hits += 1
            return hit
        if key in self._inflight:
            self.stats.cache_hits += 1
            shared = await asyncio.shield(self._inflight[key])
            return shared.model_copy(update={"cached": True, "attempts": 0})
        future: asyncio.Future[OutputT] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            output = await self._call(key, call)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: nobody else may be waiting
            raise
        except BaseException:
            future.cancel()
            raise
        finally:
            del self._inflight[key]
        future.set_result(output)
        return output

    async def _call(self, key: str, call: Callable[[], Awaitable[OutputT]]) -> OutputT:
        slot = EndpointLimiter.get(self.model.endpoint, self.concurrency)
        await slot.acquire()
        try:
            output = await self._attempt(call)
            # The slot is held until this answer's cache row is committed, so a run that aborts
            # on the next call keeps this answer; the commit itself frees it, before this caller
            # resumes. Freed after the caller's bookkeeping (as an ``async with`` did), a burst
            # of answers (C arriving together from a steady server) kept every slot idle until
            # all of them were stored and handled, and only then did the next requests go out:
            # measured 1.4-1.6x the ideal at C=64, L=50 ms.
            committed = self._remember(key, output, then=slot.release)
        except BaseException:
            slot.release()
            raise
        if committed is None:
            slot.release()
        else:
            await committed  # returns once stored: a kill after this loses no paid call
        return output

    async def _attempt(self, call: Callable[[], Awaitable[OutputT]]) -> OutputT:
        """``call`` with retries, holding an endpoint slot; its masked output, or the failure's.
        Raises RunAborted for failures every later call would hit too."""
        if self._aborted_by is not None:  # a call that waited its turn behind the abort
            raise RunAborted(self._aborted_by)
        if self.breaker.tripped_by is not None:  # tripped while this call waited its turn
            raise RunAborted(redact_text(self.breaker.message(self.model.spec)))
        try:
            output, attempts = await call_with_retries(
                call, self.retry, self.stats, self._rng, on_retry=self._retried
            )
        except ProviderError as exc:
            return await self._failure(exc)
        self.breaker.record_success()
        # Masked before anything keeps it: the cache row, the response, the report.
        output = self._finished(output, attempts)
        self._account(output)
        count_usage(*self._tokens(output), self._images(output))
        return output

    async def _failure(self, exc: ProviderError) -> OutputT:
        """The output of a call that failed after its retries; raises RunAborted instead when
        every later call would fail too."""
        self.stats.failures += 1
        if aborts_run(exc):
            message = str(exc)
        elif self.breaker.record_failure(exc):
            message = self.breaker.message(self.model.spec)
        else:
            return self._failed(redact_text(str(exc)))
        # Every later call of this client stops before its request: a caller already past the
        # cache with the slot this call frees must not send what is known to fail.
        self._aborted_by = redact_text(message)
        # One turn of the event loop before the abort cancels the other callers: a call that
        # finished just before this one freed its slot at its commit, before its caller
        # resumed; that caller now stores its answer first, as the run promises for what
        # finished.
        await asyncio.sleep(0)
        raise RunAborted(self._aborted_by) from None

    async def aclose(self) -> None:
        """Commit cache rows still waiting for their batch, and close the wrapped model."""
        if self._cache is not None:
            self._cache.flush()
        await self.model.aclose()
