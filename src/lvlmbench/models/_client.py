"""The one wrapper every chat call goes through: cache, concurrency, retries, accounting."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from lvlmbench.models._api import ChatModel, ProviderError
from lvlmbench.models._cache import CallCache
from lvlmbench.models._generation import GenerationSettings
from lvlmbench.models._policy import (
    DEFAULT_CONCURRENCY,
    CallStats,
    CircuitBreaker,
    EndpointLimiter,
    RetryEvent,
    RetryHook,
    RetryPolicy,
    aborts_run,
    breaker_threshold,
    call_with_retries,
    chat_cache_key,
)
from lvlmbench.models._secrets import redact_data, redact_text
from lvlmbench.models._structured import extract_json
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Status, Usage

__all__ = ["ModelClient", "RunAborted", "Structured", "preflight", "redact_output"]

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
_DEFAULT_CONFIG = GenerationConfig()  # frozen: one instance serves every call without a config


class RunAborted(RuntimeError):
    """A failure that every later call would hit too (bad key, unknown model, server down)."""


def redact_output(output: ModelOutput) -> ModelOutput:
    """``output`` with every registered secret masked in its text, reason and raw body."""
    update = {
        "text": redact_text(output.text),
        "reason": None if output.reason is None else redact_text(output.reason),
        "raw": redact_data(output.raw),
    }
    if all(update[name] is getattr(output, name) for name in update):
        return output
    return output.model_copy(update=update)


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


@dataclass(frozen=True)
class Structured(Generic[M]):
    """A structured-output call: the validated value, or why there is none."""

    value: M | None
    output: ModelOutput
    status: Status
    reason: str | None
    attempts: int
    """Model calls made, re-asks included (cache hits count too)."""


class ModelClient:
    """Wraps a :class:`ChatModel` with the store cache, a per-endpoint concurrency limit,
    retries with backoff that honour Retry-After, and token/cost accounting.

    Only ok and refused outputs are cached: an error is retried on the next run, never replayed.
    """

    def __init__(
        self,
        model: ChatModel,
        store: Store | None,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        retry: RetryPolicy | None = None,
        price_per_mtok: tuple[float, float] | None = None,
        seed: int = 0,
        on_retry: RetryHook | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.model = model
        self.store = store
        self.replicas = int(getattr(model, "replica_count", 1))
        # ``concurrency`` is per replica (what each vLLM server is sized for): a model served by
        # several keeps that many calls in flight on each, the balancer spreading them.
        self.concurrency = concurrency * self.replicas
        """Calls in flight at most, over all the model's replicas."""
        self.retry = retry or RetryPolicy()
        self.price_per_mtok = price_per_mtok
        self.stats = CallStats()
        self.on_retry = on_retry
        """Called with each retry about to be made (the CLI's status line); may be set later."""
        self.breaker = breaker or CircuitBreaker(breaker_threshold(self.concurrency))
        self._rng = random.Random(seed)
        self._identity = model.cache_identity()
        # The spec's generation settings (evaluate --temperature ...), applied to every call;
        # they are in the model's identity too, so its stored rows never mix settings.
        self.settings = GenerationSettings.from_options(getattr(model, "generation", None) or {})
        # A model may opt out (``cacheable = False``) when answering costs less than a cache
        # lookup and is deterministic anyway: the baselines. Runner responses still resume.
        use_cache = store is not None and bool(getattr(model, "cacheable", True))
        self._cache = CallCache(store) if use_cache and store is not None else None
        # Identical calls already in flight: a second caller awaits the first instead of paying.
        self._inflight: dict[str, asyncio.Future[ModelOutput]] = {}

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

    def cache_key(self, messages: list[Message], config: GenerationConfig) -> str:
        """The key this call is cached under."""
        return chat_cache_key(self._identity, messages, config)

    async def _cached(self, key: str) -> ModelOutput | None:
        if self._cache is None:
            return None
        found = await self._cache.get(key)
        if found is None:
            return None
        # Masked again: a row written before its key was masked (an older store) must not
        # carry the key into a new response.
        output = redact_output(ModelOutput.model_validate_json(found))
        return output.model_copy(update={"cached": True, "attempts": 0})

    async def _remember(self, key: str, output: ModelOutput) -> None:
        if self._cache is None or output.status not in (Status.OK, Status.REFUSED):
            return
        await self._cache.put(
            {
                "key": key,
                "kind": "chat",
                "spec": self.model.spec,
                "output": output.model_dump_json(),
                "input_tokens": output.usage.input_tokens,
                "output_tokens": output.usage.output_tokens,
                "created_at": time.time(),
            }
        )

    def call_key(self, messages: list[Message], config: GenerationConfig | None = None) -> str:
        """The key :meth:`generate` caches this call under (``config`` None: the default), the
        client's generation settings applied exactly as :meth:`generate` applies them."""
        applied = self.settings.apply(config or _DEFAULT_CONFIG)
        return self.cache_key(self.settings.messages(messages), applied)

    def cost_of(self, usage: Usage) -> float | None:
        """What ``usage`` costs at this client's price, in USD (None: no price set)."""
        if self.price_per_mtok is None:
            return None
        price_in, price_out = self.price_per_mtok
        return (usage.input_tokens * price_in + usage.output_tokens * price_out) / 1e6

    def _account(self, output: ModelOutput) -> None:
        self.stats.input_tokens += output.usage.input_tokens
        self.stats.output_tokens += output.usage.output_tokens
        cost = self.cost_of(output.usage)
        if cost is not None:
            self.stats.cost_usd += cost

    async def generate(
        self, messages: list[Message], config: GenerationConfig | None = None
    ) -> ModelOutput:
        """One chat call through cache, limiter and retries.

        Returns an output whose status says what happened; raises :class:`RunAborted` for
        failures that will not heal for any later call either.
        """
        output, _key = await self.generate_keyed(messages, config)
        return output

    async def generate_keyed(
        self, messages: list[Message], config: GenerationConfig | None = None
    ) -> tuple[ModelOutput, str]:
        """:meth:`generate` and the key its answer is cached under (:meth:`call_key`), which
        the runner stores with each response: computed once, not again after the call (the
        canonical JSON behind a key was ~6 % of the client's CPU a request)."""
        key = self.call_key(messages, config)
        config = self.settings.apply(config or _DEFAULT_CONFIG)
        messages = self.settings.messages(messages)
        hit = await self._cached(key)
        if hit is not None:
            self.stats.cache_hits += 1
            return hit, key
        if key in self._inflight:
            self.stats.cache_hits += 1
            shared = await asyncio.shield(self._inflight[key])
            return shared.model_copy(update={"cached": True, "attempts": 0}), key
        future: asyncio.Future[ModelOutput] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            output = await self._call(key, messages, config)
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
        return output, key

    async def _call(
        self, key: str, messages: list[Message], config: GenerationConfig
    ) -> ModelOutput:
        async with EndpointLimiter.get(self.model.endpoint, self.concurrency):
            if self.breaker.tripped_by is not None:  # tripped while this call waited its turn
                raise RunAborted(redact_text(self.breaker.message(self.model.spec)))
            try:
                output, attempts = await call_with_retries(
                    lambda: self.model.generate(messages, config),
                    self.retry,
                    self.stats,
                    self._rng,
                    on_retry=self._retried,
                )
            except ProviderError as exc:
                self.stats.failures += 1
                if aborts_run(exc):
                    raise RunAborted(redact_text(str(exc))) from None
                if self.breaker.record_failure(exc):
                    raise RunAborted(redact_text(self.breaker.message(self.model.spec))) from None
                return ModelOutput(status=Status.ERROR, reason=redact_text(str(exc)))
            self.breaker.record_success()
            # Masked before anything keeps it: the cache row, the response, the report.
            output = redact_output(output)
            if output.attempts != attempts:  # a copy costs as much as the accounting below
                output = output.model_copy(update={"attempts": attempts})
            self._account(output)
            # Still holding the endpoint slot: the next call starts only once this one's cache
            # row is committed, so a run that aborts on that next call keeps this answer.
            await self._remember(key, output)
        return output

    async def generate_json(
        self,
        messages: list[Message],
        schema: type[M],
        config: GenerationConfig | None = None,
        max_reasks: int = 2,
    ) -> Structured[M]:
        """Ask for JSON valid against ``schema``; re-ask up to ``max_reasks`` times with the
        validation error, then give up and record why. Never returns a guessed value."""
        json_schema = schema.model_json_schema()
        config = (config or GenerationConfig()).model_copy(update={"json_schema": json_schema})
        history = list(messages)
        output = ModelOutput(status=Status.ERROR, reason="no call made")
        reason = "no call made"
        for attempt in range(1, max_reasks + 2):
            output = await self.generate(history, config)
            if not output.ok:
                return Structured(None, output, output.status, output.reason, attempt)
            try:
                value = schema.model_validate(extract_json(output.text))
                return Structured(value, output, Status.OK, None, attempt)
            except (ValueError, ValidationError) as exc:
                reason = _short_error(exc)
            history = [
                *messages,
                Message.assistant(output.text),
                Message.user(
                    render_prompt(
                        "common/reask_json.md", error=reason, schema=json.dumps(json_schema)
                    )
                ),
            ]
        return Structured(None, output, Status.UNPARSEABLE, reason, max_reasks + 1)

    async def aclose(self) -> None:
        """Commit cache rows still waiting for their batch, and close the wrapped model."""
        if self._cache is not None:
            self._cache.flush()
        await self.model.aclose()


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return f"{exc.error_count()} validation error(s); first at {where}: {first['msg']}"
    return str(exc)[:300]
