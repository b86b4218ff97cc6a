"""The diffusers text-to-image pipeline itself (see :mod:`lvlmbench.images.diffusers` for the
options). It sits below both ``diffusers`` (whose ``create`` picks it or the Ray pool) and
``_diffusers_ray`` (whose actors run it), so neither imports the other in a loop.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import time
from typing import Any

import diffusers
import torch

from lvlmbench.images._api import ImageOutput, ImageRequest, PromptLength
from lvlmbench.images._diffusers_tokens import PromptCounter
from lvlmbench.models import ErrorKind, ProviderError
from lvlmbench.models.local import (
    DTYPES,
    LoadOnce,
    LocalSource,
    check_weights,
    load_error,
)
from lvlmbench.types import Status

__all__ = ["DiffusersTextToImage"]

NSFW_REASON = "the pipeline's safety checker flagged the image as not safe for work"
MARKER = "model_index.json"
"""The file every diffusers pipeline has (what the cache check looks for)."""


class DiffusersTextToImage:
    """A diffusers text-to-image pipeline on this machine, one image at a time."""

    def __init__(
        self,
        name: str,
        *,
        device: str = "auto",
        dtype: str = "auto",
        steps: int = 30,
        guidance: float = 7.5,
        revision: str | None = None,
        local_files_only: bool = True,
    ) -> None:
        source = LocalSource.of("diffusers", name, device, dtype)
        self.name, self.spec, self.path = name, source.spec, source.path
        self.endpoint, self.device, self.dtype = source.endpoint, source.device, source.dtype
        self.steps = steps
        self.guidance = guidance
        self.revision = revision
        self.local_files_only = local_files_only
        self._pipeline: Any = None
        self._accepts: frozenset[str] = frozenset()
        self._weights: LoadOnce[Any] = LoadOnce(self.device)
        # Pipelines keep per-call state (the scheduler's timesteps): one image at a time.
        self._busy = asyncio.Lock()
        self._prompts = PromptCounter(self.path, revision, local_files_only)

    def cache_identity(self) -> dict[str, object]:
        # The defaults for steps and guidance change the picture of a request that leaves them
        # unset, so they belong here; the device does not.
        return {
            "provider": "diffusers",
            "path": self.path,
            "revision": self.revision,
            "dtype": self.dtype,
            "steps": self.steps,
            "guidance": self.guidance,
        }

    def check_weights(self) -> None:
        """Raise a FATAL ProviderError when the pipeline is certainly not on this machine (a
        path that is no directory, a repo id not in the cache): found in milliseconds."""
        check_weights(self.spec, self.name, self.revision, self.local_files_only, MARKER)

    async def check(self) -> None:
        """The preflight: the pipeline can be found (before any stage starts)."""
        self.check_weights()

    def prompt_length(self, prompt: str) -> PromptLength | None:
        """``prompt`` counted by the pipeline's own tokenizer(s) (CLIP cuts at 77 tokens),
        loaded without the weights; None when it names none or they are not on this machine."""
        return self._prompts.measure(prompt)

    async def generate(self, request: ImageRequest) -> ImageOutput:
        await self._ensure_loaded()
        kwargs = self._call_kwargs(request)
        async with self._busy:
            started = time.perf_counter()
            result = await asyncio.to_thread(self._render, kwargs, request.seed)
            latency = time.perf_counter() - started
        return result.model_copy(update={"latency_s": latency})

    async def _ensure_loaded(self) -> None:
        pipeline, fresh = await self._weights.get(self._load)
        if fresh:
            self._pipeline = pipeline
            self._accepts = frozenset(inspect.signature(pipeline.__call__).parameters)

    def _load(self) -> Any:
        """Load the pipeline (runs in a worker thread)."""
        options: dict[str, Any] = {
            "revision": self.revision,
            "local_files_only": self.local_files_only,
            "dtype": DTYPES[self.dtype],
        }
        # Any: diffusers' from_pretrained is untyped, and strict mypy rejects calling it as is.
        auto: Any = diffusers.AutoPipelineForText2Image
        generic: Any = diffusers.DiffusionPipeline
        try:
            try:
                pipeline = auto.from_pretrained(self.path, **options)
            except ValueError as exc:
                # AutoPipeline knows the common families only; a custom pipeline class named in
                # model_index.json still loads through DiffusionPipeline.
                if "AutoPipeline can't find a pipeline" not in str(exc):
                    raise
                pipeline = generic.from_pretrained(self.path, **options)
            pipeline = pipeline.to(self.device)
        except Exception as exc:
            raise load_error(self.spec, self.name, exc, self.local_files_only) from exc
        pipeline.set_progress_bar_config(disable=True)
        return pipeline

    def _call_kwargs(self, request: ImageRequest) -> dict[str, Any]:
        """The pipeline call for ``request``; an option the pipeline cannot honour is refused
        rather than dropped, because it is part of the cache key."""
        kwargs: dict[str, Any] = {
            "prompt": request.prompt,
            "width": request.width,
            "height": request.height,
            "num_inference_steps": request.steps if request.steps is not None else self.steps,
            "guidance_scale": request.guidance if request.guidance is not None else self.guidance,
            "output_type": "pil",
        }
        if request.negative_prompt is not None:
            kwargs["negative_prompt"] = request.negative_prompt
        unsupported = sorted(set(kwargs) - self._accepts)
        if unsupported and "kwargs" not in self._accepts:
            raise ProviderError(
                f"{self.spec}: this pipeline takes no {', '.join(unsupported)}",
                ErrorKind.UNSUPPORTED,
                status_code=400,
            )
        return kwargs

    def _render(self, kwargs: dict[str, Any], seed: int) -> ImageOutput:
        """Run the pipeline (worker thread). Bad sizes and the like fail this request only."""
        # A CPU generator draws the same starting noise whatever device denoises it.
        generator = torch.Generator(device="cpu").manual_seed(seed)
        try:
            with torch.inference_mode():
                result = self._pipeline(**kwargs, generator=generator)
        except (ValueError, TypeError) as exc:
            # status 400: this request's size or option is wrong, the pipeline is fine.
            raise ProviderError(f"{self.spec}: {exc}", ErrorKind.FATAL, status_code=400) from None
        except Exception as exc:
            hint = "lower the image size" if isinstance(exc, torch.OutOfMemoryError) else None
            message = f"{self.spec}: generation failed: {type(exc).__name__}: {exc}"[:500]
            raise ProviderError(message, ErrorKind.FATAL, hint=hint) from None
        flags = getattr(result, "nsfw_content_detected", None)
        if flags and flags[0]:
            return ImageOutput(status=Status.REFUSED, reason=NSFW_REASON)
        buffer = io.BytesIO()
        result.images[0].save(buffer, format="PNG")
        return ImageOutput(png=buffer.getvalue())

    async def aclose(self) -> None:
        """Drop the pipeline and give device memory back."""
        async with self._busy:
            self._pipeline = None
            await self._weights.drop()
