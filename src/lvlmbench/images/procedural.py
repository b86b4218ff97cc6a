"""``procedural``: the text-to-image back-end that draws scene programs exactly, offline.

It needs no network, GPU or weights: the request's ``scene`` (a scene program as JSON) is
validated and rendered with Pillow at the requested size. A free-text prompt alone cannot be
drawn, so that is a fatal error rather than a guess.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from lvlmbench._workers import preload_in_workers, run_cpu
from lvlmbench.images._api import ImageOutput, ImageRequest
from lvlmbench.models import ErrorKind, ProviderError
from lvlmbench.scenes import RENDERER_VERSION, SceneError, render_png, validate_scene

__all__ = ["ProceduralRenderer", "create"]

preload_in_workers("lvlmbench.scenes")  # rendering runs in the worker processes


class ProceduralRenderer:
    """Renders ``ImageRequest.scene`` programs (implements the TextToImage protocol)."""

    spec = "procedural"
    endpoint = "local:procedural"

    def cache_identity(self) -> dict[str, object]:
        """Only the renderer version changes pixels for a given request."""
        return {"provider": "procedural", "version": RENDERER_VERSION}

    async def generate(self, request: ImageRequest) -> ImageOutput:
        """Validate and draw the request's scene program at request.width x request.height."""
        if request.scene is None:
            raise ProviderError(
                "the procedural renderer draws scene programs; got a free-text prompt only "
                f"({request.prompt[:60]!r}). Send an ImageRequest with scene=<scene program>, "
                "or use a text-to-image model such as diffusers/... or openai/...",
                ErrorKind.FATAL,
            )
        try:
            program = validate_scene(request.scene)
        except SceneError as exc:
            raise ProviderError(str(exc), ErrorKind.FATAL) from None
        started = time.perf_counter()
        # Rendering is CPU-bound: worker processes draw in parallel and keep the event loop free.
        png = await run_cpu(render_png, program, request.width, request.height)
        return ImageOutput(png=png, latency_s=time.perf_counter() - started)

    async def aclose(self) -> None:
        """Nothing to release."""


def create(name: str, options: Mapping[str, str]) -> ProceduralRenderer:
    """Registry factory. ``procedural`` (or ``procedural/<any label>``, the label is ignored:
    there is one renderer) takes no options."""
    del name
    if options:
        raise ProviderError(
            f"procedural: unknown options {', '.join(sorted(options))} (it takes none)",
            ErrorKind.FATAL,
        )
    return ProceduralRenderer()
