"""``diffusers/…?ray=true``: the diffusers back-end run by actors on a Ray cluster.

Concurrent requests are gathered into chunks (:class:`~lvlmbench.models.providers.Batcher`)
and a chunk runs on the actor pool of :mod:`lvlmbench.models.ray_actors`: each actor loads the
pipeline once on ``num_gpus`` GPUs, keeps it until the model is closed, and renders its rows one
at a time with the code :class:`~lvlmbench.images.diffusers.DiffusersTextToImage` uses
locally, seeded the same way, so a request gives the same picture with or without Ray and the
cache identity is shared.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lvlmbench.images._api import ImageOutput, ImageRequest
from lvlmbench.images._diffusers_pipeline import DiffusersTextToImage
from lvlmbench.models import ProviderError
from lvlmbench.models.providers import Batcher
from lvlmbench.models.ray_actors import (
    ActorPoolRunner,
    PoolActor,
    RaySettings,
    actor_options,
    check_pool,
)

__all__ = ["RayDiffusersTextToImage"]

IMAGES_PER_ACTOR = 4
"""Rows per chunk, per actor: a pipeline renders one image at a time."""


@dataclass(frozen=True)
class _PipelineSettings:
    """What an actor needs to build the pipeline the driver describes (picklable)."""

    name: str
    device: str
    dtype: str
    steps: int
    guidance: float
    revision: str | None
    local_files_only: bool


class _DiffusersActor(PoolActor[ImageRequest, ImageOutput]):
    """One pipeline replica: loads once, renders every row Ray Data gives it."""

    def __init__(self, settings: _PipelineSettings) -> None:
        self._model = DiffusersTextToImage(
            settings.name,
            device=settings.device,
            dtype=settings.dtype,
            steps=settings.steps,
            guidance=settings.guidance,
            revision=settings.revision,
            local_files_only=settings.local_files_only,
        )
        self._model._pipeline = self._model._load()
        self._model._accepts = frozenset(
            inspect.signature(self._model._pipeline.__call__).parameters
        )

    def answer(self, requests: list[ImageRequest]) -> list[ImageOutput | Exception]:
        results: list[ImageOutput | Exception] = []
        for request in requests:
            started = time.perf_counter()
            try:
                output = self._model._render(self._model._call_kwargs(request), request.seed)
            except ProviderError as exc:
                results.append(exc)
                continue
            results.append(output.model_copy(update={"latency_s": time.perf_counter() - started}))
        return results


class RayDiffusersTextToImage(DiffusersTextToImage):
    """:class:`DiffusersTextToImage` whose images are rendered on a Ray actor pool."""

    def __init__(self, name: str, pool: RaySettings, **options: Any) -> None:
        super().__init__(name, **actor_options(options, pool))
        self.ray = pool
        settings = _PipelineSettings(
            name=self.path,
            device=self.device,
            dtype=self.dtype,
            steps=self.steps,
            guidance=self.guidance,
            revision=self.revision,
            local_files_only=self.local_files_only,
        )
        self._precheck = functools.partial(check_pool, self.spec, pool, self.check_weights)
        self._pool = ActorPoolRunner(
            _DiffusersActor, settings, pool, 1, ImageOutput, precheck=self._precheck
        )
        self._batcher: Batcher[ImageRequest, ImageOutput] = Batcher(
            self._run_chunk, max_size=pool.actors * IMAGES_PER_ACTOR, key=lambda _: None
        )

    async def check(self) -> None:
        """The preflight, before Ray starts: the cluster address answers; for a cluster
        started here, the pipeline is here."""
        await asyncio.to_thread(self._precheck)

    async def generate(self, request: ImageRequest) -> ImageOutput:
        return await self._batcher.submit(request)

    async def _run_chunk(self, requests: list[ImageRequest]) -> Sequence[ImageOutput | Exception]:
        return await self._pool.run_chunk(self.spec, requests)

    async def aclose(self) -> None:
        await self._batcher.aclose(ProviderError(f"{self.spec}: model closed"))
        self._pool.close()  # the actors held the pipeline for the whole run
        await super().aclose()
