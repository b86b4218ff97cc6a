"""Turning the examiner, images and mode settings into a pipeline backend and an image client
(``lvlmbench generate`` and :func:`lvlmbench.api.generate`); a mismatch raises ValueError."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from lvlmbench.autobench.pipeline import ProgressHook, generate_benchmark
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient, load_chat_model

if TYPE_CHECKING:
    from lvlmbench.autobench._backend import ExaminerBackend
    from lvlmbench.autobench.pipeline import GenerateSettings
    from lvlmbench.store import GenerationReport, Store

__all__ = [
    "check_pairing",
    "generate_with",
    "generate_within",
    "make_backend",
    "make_images",
    "opened_backend",
]


def check_pairing(examiner: str, images: str, mode: str, guidelines: bool) -> None:
    """ValueError when examiner, images and mode do not fit together (from the specs alone)."""
    if examiner == "procedural":
        if not guidelines:
            raise ValueError(
                "--no-guidelines is an ablation of a model examiner's descriptions; the built-in "
                "examiner draws scene programs that no guideline steers: give --examiner"
            )
        if images != "procedural" or mode != "scene":
            raise ValueError(
                "--examiner procedural writes scene programs: use it with "
                "--images procedural --mode scene"
            )
        return
    if images == "procedural" and mode != "scene":
        raise ValueError("--images procedural draws scene programs: use --mode scene")
    if images != "procedural" and mode == "scene":
        raise ValueError(
            f"--images {images} draws from text: use --mode text (scene mode "
            "needs --images procedural)"
        )


def make_backend(
    examiner: str,
    images: str,
    mode: str,
    store: Store,
    settings: GenerateSettings,
) -> ExaminerBackend:
    """The examiner backend; checks that examiner, images and mode fit together."""
    check_pairing(examiner, images, mode, settings.guidelines)
    if examiner == "procedural":
        from lvlmbench.autobench.procedural import ProceduralBackend

        return ProceduralBackend(k_checks=settings.k_checks)
    from lvlmbench.autobench.diversity import exclusion_schedule
    from lvlmbench.autobench.llm import ModelBackend

    client = ModelClient(load_chat_model(examiner), store)
    return ModelBackend(
        client,
        mode="scene" if mode == "scene" else "text",
        k_checks=settings.k_checks,
        diversity_graph=settings.diversity_graph,
        exclusions=exclusion_schedule(settings.exclusions),
        guidelines=settings.guidelines,
    )


def make_images(spec: str, store: Store) -> ImageClient:
    """The text-to-image client for --images."""
    return ImageClient(load_image_model(spec), store)


@asynccontextmanager
async def opened_backend(
    store: Store, settings: GenerateSettings, examiner: str, images: str, mode: str
) -> AsyncIterator[tuple[ExaminerBackend, ImageClient]]:
    """The backend and image client for the specs, their endpoints checked (a dead one stops
    here, in seconds, before any stage starts); both closed on the way out."""
    backend = make_backend(examiner, images, mode, store, settings)
    image_client = make_images(images, store)
    try:
        examiner_client = getattr(backend, "examiner", None)
        if isinstance(examiner_client, ModelClient):
            await examiner_client.check()
        await image_client.check()
        yield backend, image_client
    finally:
        await image_client.aclose()
        await backend.aclose()


async def generate_with(
    store: Store,
    settings: GenerateSettings,
    examiner: str,
    images: str,
    mode: str,
    on_progress: ProgressHook | None = None,
) -> GenerationReport:
    """Run the pipeline with the backend and image client for the specs; returns the
    generation report stored with the benchmark."""
    async with opened_backend(store, settings, examiner, images, mode) as (backend, image_client):
        return await generate_benchmark(store, settings, backend, image_client, on_progress)


async def generate_within(
    store: Store,
    settings: GenerateSettings,
    examiner: str,
    images: str,
    mode: str,
    *,
    budget: int,
    first_round: int,
    on_progress: ProgressHook | None = None,
) -> GenerationReport:
    """Build the plan's units in rounds until it is built or ``budget`` examiner and
    text-to-image requests are spent (:class:`~lvlmbench.autobench.budgeted.RoundBuilder`)."""
    from lvlmbench.autobench.budgeted import RoundBuilder

    async with opened_backend(store, settings, examiner, images, mode) as (backend, image_client):
        builder = await RoundBuilder.start(
            store, settings, backend, image_client, budget=budget, on_progress=on_progress
        )
        async for _ in builder.rounds_built(first_round):
            pass
        return builder.report
