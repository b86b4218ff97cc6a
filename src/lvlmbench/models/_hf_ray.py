"""``hf/…?ray=true``: the transformers back-end run by actors on a Ray cluster.

Requests reach the model exactly as they do locally (the runner calls
:meth:`~lvlmbench.models.ModelClient.generate`, which consults the cache first), and the
:class:`~lvlmbench.models._hf_batch.Batcher` gathers concurrent calls into a chunk. A chunk runs
on the actor pool of :mod:`lvlmbench.models._ray`: each actor holds the model and answers
``batch_size`` rows per ``generate`` call with the very code of
:class:`~lvlmbench.models.hf.HFChatModel`, so answers equal those without Ray and the cache
identity is shared: nothing answered either way is asked again. The actors load the weights once
and live until the model is closed (end of the run). Each answer is cached (and the runner stores
it) as soon as its chunk is back; give ``--concurrency`` at least ``actors × batch_size × 4`` so
every actor has a batch while the others run theirs.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lvlmbench.models._api import ProviderError
from lvlmbench.models._hf_batch import Batcher
from lvlmbench.models._ray import (
    ActorPoolRunner,
    PoolActor,
    RaySettings,
    actor_options,
    check_pool,
)
from lvlmbench.models.hf import HFChatModel, _batch_key, _Loaded, _Request
from lvlmbench.types import ModelOutput

__all__ = ["CHUNK_PER_ACTOR_BATCH", "RayHFChatModel"]

CHUNK_PER_ACTOR_BATCH = 4
"""Rows per chunk, in model batches per actor: enough that every actor stays busy."""


@dataclass(frozen=True)
class _ModelSettings:
    """What an actor needs to build the model the driver describes (picklable)."""

    name: str
    device: str
    dtype: str
    revision: str | None
    trust_remote_code: bool
    local_files_only: bool


class _HFActor(PoolActor[_Request, ModelOutput]):
    """One model replica: loads the weights once, answers every batch of the run."""

    def __init__(self, settings: _ModelSettings) -> None:
        self._model = HFChatModel(
            settings.name,
            device=settings.device,
            dtype=settings.dtype,
            revision=settings.revision,
            trust_remote_code=settings.trust_remote_code,
            local_files_only=settings.local_files_only,
        )
        self._loaded: _Loaded = self._model._load()

    def answer(self, requests: list[_Request]) -> list[ModelOutput | Exception]:
        return self._model._generate_batch(self._loaded, requests)


class RayHFChatModel(HFChatModel):
    """:class:`HFChatModel` whose batches run on a Ray actor pool instead of this process."""

    def __init__(self, name: str, pool: RaySettings, **options: Any) -> None:
        super().__init__(name, **actor_options(options, pool))
        self.ray = pool
        settings = _ModelSettings(
            name=self.path,
            device=self.device,
            dtype=self.dtype,
            revision=self.revision,
            trust_remote_code=self.trust_remote_code,
            local_files_only=self.local_files_only,
        )
        self._precheck = functools.partial(check_pool, self.spec, pool, self.check_weights)
        self._pool = ActorPoolRunner(
            _HFActor, settings, pool, self.batch_size, ModelOutput, precheck=self._precheck
        )
        chunk = self.batch_size * pool.actors * CHUNK_PER_ACTOR_BATCH
        self._batcher: Batcher[_Request, ModelOutput] = Batcher(
            self._run_batch, max_size=chunk, key=_batch_key
        )

    async def check(self) -> None:
        """The preflight, before Ray starts: the cluster address answers; for a cluster
        started here, the weights are here."""
        await asyncio.to_thread(self._precheck)

    async def _run_batch(self, requests: list[_Request]) -> Sequence[ModelOutput | Exception]:
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
        await super().aclose()
        self._pool.close()
