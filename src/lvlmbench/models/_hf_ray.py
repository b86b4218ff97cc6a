"""``hf/…?ray=true``: the transformers back-end run by actors on a Ray cluster.

Requests reach the model exactly as they do locally (the runner calls
:meth:`~lvlmbench.models.ModelClient.generate`, which consults the cache first), and the
:class:`~lvlmbench.models._hf_batch.Batcher` gathers concurrent calls into chunks. A chunk runs
on the actor pool of :mod:`lvlmbench.models._ray`: each actor holds an
:class:`~lvlmbench.models.hf.HFChatModel` and answers its rows with the same replica code as a
local model (the preparation thread, whole batches or continuous batching, ``batch_size=auto``,
out-of-memory halving), so answers equal those without Ray and the cache identity is shared:
nothing answered either way is asked again. Each actor takes two batches at a time, so the
second is prepared while the first decodes, and the next chunk is handed out while the
previous one's last batches run. The actors load the weights once and live until the model is
closed (end of the run). Each answer is cached (and the runner stores it) as soon as its chunk
is back; the default concurrency keeps every actor's batches full.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._hf_batch import Batcher
from lvlmbench.models._hf_load import HFSettings, Request
from lvlmbench.models._hf_model import QUEUED_BATCHES, HFChatModel
from lvlmbench.models._ray import ActorPoolRunner, PoolActor, RaySettings, check_pool
from lvlmbench.types import GenerationConfig, Message, ModelOutput

__all__ = ["BATCHES_PER_ACTOR", "RayHFChatModel"]

BATCHES_PER_ACTOR = 2
"""Batches an actor holds at once: one decoding, one prepared to follow it (or, with continuous
batching, to refill its finished rows)."""


@dataclass(frozen=True)
class _ModelSettings:
    """What an actor needs to build the model the driver describes (picklable)."""

    name: str
    settings: HFSettings


class _HFActor(PoolActor[Request, ModelOutput]):
    """One model replica: loads the weights once, answers every batch of the run."""

    def __init__(self, settings: _ModelSettings) -> None:
        self._model = HFChatModel(settings.name, settings.settings)
        self._model.start_and_wait()

    def answer(self, requests: list[Request]) -> list[ModelOutput | Exception]:
        return self._model.answer_now(requests)


def _for_actors(settings: HFSettings, pool: RaySettings) -> HFSettings:
    """``device``/``dtype`` ``auto`` resolved for GPU actors: the driver may have no GPU, the
    actors will, so ``auto`` must not be resolved on the driver."""
    if pool.num_gpus <= 0:
        return settings
    return dataclasses.replace(
        settings,
        device="cuda" if settings.device == "auto" else settings.device,
        dtype="bfloat16" if settings.dtype == "auto" else settings.dtype,
    )


class RayHFChatModel(HFChatModel):
    """:class:`HFChatModel` whose batches run on a Ray actor pool instead of this process."""

    def __init__(self, name: str, pool: RaySettings, settings: HFSettings) -> None:
        settings = _for_actors(settings, pool)
        super().__init__(name, settings)
        self.ray = pool
        actor = _ModelSettings(name=self.path, settings=settings)
        self._precheck = functools.partial(check_pool, self.spec, pool, self.check_weights)
        self._pool = ActorPoolRunner(
            _HFActor,
            actor,
            pool,
            self.batch_size,
            ModelOutput,
            batches_per_actor=BATCHES_PER_ACTOR,
            precheck=self._precheck,
        )
        chunk = self.batch_size * pool.actors * BATCHES_PER_ACTOR
        # Two chunks in flight: the next is handed out while the last batches of one still run.
        self._batcher: Batcher[Request, ModelOutput] = Batcher(
            self._run_chunk, max_size=chunk, key=lambda _: 0, in_flight=2
        )

    async def check(self) -> None:
        """The preflight, before Ray starts: the cluster address answers; for a cluster
        started here, the weights are here."""
        await asyncio.to_thread(self._precheck)

    @property
    def replica_count(self) -> int:
        return 1  # the actors are counted in default_concurrency

    @property
    def default_concurrency(self) -> int:
        """Enough calls for every actor's batches and the next chunk's."""
        return QUEUED_BATCHES * self.batch_size * self.ray.actors

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        if config.params:
            raise ProviderError(
                f"{self.spec}: local models take no provider params "
                f"({', '.join(sorted(config.params))}); drop --param",
                ErrorKind.FATAL,
            )
        return await self._batcher.submit(Request(messages, config, time.perf_counter()))

    async def _run_chunk(self, requests: list[Request]) -> Sequence[ModelOutput | Exception]:
        results = await self._pool.run_chunk(self.spec, requests)
        now = time.perf_counter()
        # Latency as the caller saw it, on this clock: the actors may be other machines.
        return [
            result
            if isinstance(result, ProviderError)
            else result.model_copy(update={"latency_s": now - request.submitted})
            for request, result in zip(requests, results, strict=True)
        ]

    async def aclose(self) -> None:
        """Fail waiting calls and end the actors (their weights and GPUs are freed)."""
        await self._batcher.aclose(ProviderError(f"{self.spec}: model closed", ErrorKind.FATAL))
        await super().aclose()
        self._pool.close()
