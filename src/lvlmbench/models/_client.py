"""The one wrapper every chat call goes through: cache, concurrency, retries, accounting."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from lvlmbench.models._api import ChatModel, ProviderError
from lvlmbench.models._cache import CallCache
from lvlmbench.models._policy import (
    DEFAULT_CONCURRENCY,
    CallStats,
    EndpointLimiter,
    RetryPolicy,
    aborts_run,
    call_with_retries,
    chat_cache_key,
)
from lvlmbench.models._structured import extract_json
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Status

__all__ = ["ModelClient", "RunAborted", "Structured"]

M = TypeVar("M", bound=BaseModel)
_DEFAULT_CONFIG = GenerationConfig()  # frozen: one instance serves every call without a config


class RunAborted(RuntimeError):
    """A failure that every later call would hit too (bad key, unknown model, server down)."""


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
    ) -> None:
        self.model = model
        self.store = store
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self.price_per_mtok = price_per_mtok
        self.stats = CallStats()
        self._rng = random.Random(seed)
        self._identity = model.cache_identity()
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

    def cache_key(self, messages: list[Message], config: GenerationConfig) -> str:
        """The key this call is cached under."""
        return chat_cache_key(self._identity, messages, config)

    async def _cached(self, key: str) -> ModelOutput | None:
        if self._cache is None:
            return None
        found = await self._cache.get(key)
        if found is None:
            return None
        output = ModelOutput.model_validate_json(found)
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

    def _account(self, output: ModelOutput) -> None:
        self.stats.input_tokens += output.usage.input_tokens
        self.stats.output_tokens += output.usage.output_tokens
        if self.price_per_mtok is not None:
            price_in, price_out = self.price_per_mtok
            self.stats.cost_usd += (
                output.usage.input_tokens * price_in + output.usage.output_tokens * price_out
            ) / 1e6

    async def generate(
        self, messages: list[Message], config: GenerationConfig | None = None
    ) -> ModelOutput:
        """One chat call through cache, limiter and retries.

        Returns an output whose status says what happened; raises :class:`RunAborted` for
        failures that will not heal for any later call either.
        """
        config = config or _DEFAULT_CONFIG
        key = self.cache_key(messages, config)
        hit = await self._cached(key)
        if hit is not None:
            self.stats.cache_hits += 1
            return hit
        if key in self._inflight:
            self.stats.cache_hits += 1
            shared = await asyncio.shield(self._inflight[key])
            return shared.model_copy(update={"cached": True, "attempts": 0})
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
        return output

    async def _call(
        self, key: str, messages: list[Message], config: GenerationConfig
    ) -> ModelOutput:
        async with EndpointLimiter.get(self.model.endpoint, self.concurrency):
            try:
                output, attempts = await call_with_retries(
                    lambda: self.model.generate(messages, config), self.retry, self.stats, self._rng
                )
            except ProviderError as exc:
                self.stats.failures += 1
                if aborts_run(exc):
                    raise RunAborted(str(exc)) from None
                return ModelOutput(status=Status.ERROR, reason=str(exc))
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
