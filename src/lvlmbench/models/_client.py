"""The client every chat call goes through: :class:`~lvlmbench.models._call.CallClient`'s
cache, concurrency and retries, plus generation settings, accounting and structured output."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from lvlmbench.models._api import ChatModel
from lvlmbench.models._call import CallClient, RunAborted, log_retry, preflight
from lvlmbench.models._generation import GenerationSettings
from lvlmbench.models._policy import (
    DEFAULT_CONCURRENCY,
    CircuitBreaker,
    RetryHook,
    RetryPolicy,
    chat_cache_key,
)
from lvlmbench.models._secrets import redact_data, redact_text
from lvlmbench.models._structured import extract_json
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store, put_system_prompt
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Status, Usage

__all__ = [
    "ModelClient",
    "PreparedCall",
    "RunAborted",
    "Structured",
    "log_retry",
    "preflight",
    "redact_output",
]

M = TypeVar("M", bound=BaseModel)
_DEFAULT_CONFIG = GenerationConfig()  # frozen: one instance serves every call without a config


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


class PreparedCall(NamedTuple):
    """One chat call with the client's generation settings applied and its cache key computed
    (:meth:`ModelClient.prepare_call`), ready for :meth:`ModelClient.generate_prepared`."""

    messages: list[Message]
    """What is sent (the settings' system prompt, if any, included)."""
    config: GenerationConfig
    key: str
    """The cache key the answer is stored under."""


@dataclass(frozen=True)
class Structured(Generic[M]):
    """A structured-output call: the validated value, or why there is none."""

    value: M | None
    output: ModelOutput
    status: Status
    reason: str | None
    attempts: int
    """Model calls made, re-asks included (cache hits count too)."""


class ModelClient(CallClient[ChatModel, ModelOutput]):
    """Wraps a :class:`ChatModel` with the :class:`CallClient` wiring (cache, per-endpoint
    concurrency, retries, breaker), the spec's generation settings and token/cost accounting."""

    kind = "chat"
    default_concurrency = DEFAULT_CONCURRENCY

    def __init__(
        self,
        model: ChatModel,
        store: Store | None,
        *,
        concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        price_per_mtok: tuple[float, float] | None = None,
        seed: int = 0,
        on_retry: RetryHook | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        super().__init__(
            model,
            store,
            concurrency=concurrency,
            retry=retry,
            seed=seed,
            on_retry=on_retry,
            breaker=breaker,
        )
        # USD per million input and output tokens: given here, or the spec's ``price=IN,OUT``
        # (which load_chat_model puts on the model); None: the calls are not priced.
        self.price_per_mtok: tuple[float, float] | None = (
            price_per_mtok if price_per_mtok is not None else getattr(model, "price_per_mtok", None)
        )
        # The spec's generation settings (evaluate --temperature ...), applied to every call;
        # they are in the model's identity too, so its stored rows never mix settings.
        self.settings = GenerationSettings.from_options(getattr(model, "generation", None) or {})
        if self.settings.system is not None and store is not None and not store.read_only:
            # The identity names the prompt by digest only: the text is kept once, before any
            # answer under that identity is stored, so every transcript can show it.
            put_system_prompt(store, self.settings.system)

    def cache_key(self, messages: list[Message], config: GenerationConfig) -> str:
        """The key this call is cached under."""
        return chat_cache_key(self._identity, messages, config)

    def _decode(self, stored: str) -> ModelOutput:
        # Masked again: a row written before its key was masked (an older store) must not
        # carry the key into a new response.
        return redact_output(ModelOutput.model_validate_json(stored))

    def _encode(self, output: ModelOutput) -> str:
        return output.model_dump_json()

    def _tokens(self, output: ModelOutput) -> tuple[int, int]:
        return output.usage.input_tokens, output.usage.output_tokens

    def _failed(self, reason: str) -> ModelOutput:
        return ModelOutput(status=Status.ERROR, reason=reason)

    def _finished(self, output: ModelOutput, attempts: int) -> ModelOutput:
        output = redact_output(output)
        if output.attempts != attempts:  # a copy costs as much as the accounting below
            output = output.model_copy(update={"attempts": attempts})
        return output

    def prepare_call(
        self, messages: list[Message], config: GenerationConfig | None = None
    ) -> PreparedCall:
        """The call :meth:`generate` makes for ``messages`` (``config`` None: the default), the
        client's generation settings applied, with the key it is cached under."""
        applied = self.settings.apply(config or _DEFAULT_CONFIG)
        sent = self.settings.messages(messages)
        return PreparedCall(sent, applied, self.cache_key(sent, applied))

    def call_key(self, messages: list[Message], config: GenerationConfig | None = None) -> str:
        """The key :meth:`generate` caches this call under (``config`` None: the default), the
        client's generation settings applied exactly as :meth:`generate` applies them."""
        return self.prepare_call(messages, config).key

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
        return await self.generate_prepared(self.prepare_call(messages, config))

    async def generate_prepared(self, call: PreparedCall) -> tuple[ModelOutput, str]:
        """:meth:`generate_keyed` for a call prepared ahead (:meth:`prepare_call`), e.g. one
        whose cache row was looked up with others in one query (:meth:`prefetch`)."""
        sent, applied, key = call
        output = await self._through(key, lambda: self.model.generate(sent, applied))
        return output, key

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


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return f"{exc.error_count()} validation error(s); first at {where}: {first['msg']}"
    return str(exc)[:300]
