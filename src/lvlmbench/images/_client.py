"""The wrapper every text-to-image call goes through: same cache, limits and retries as chat."""

from __future__ import annotations

import json
import random
import time

from lvlmbench.images._api import ImageOutput, ImageRequest, TextToImage
from lvlmbench.models._api import ProviderError
from lvlmbench.models._client import RunAborted, log_retry, preflight
from lvlmbench.models._policy import (
    CallStats,
    CircuitBreaker,
    EndpointLimiter,
    RetryPolicy,
    aborts_run,
    breaker_threshold,
    cache_key,
    call_with_retries,
)
from lvlmbench.models._secrets import redact_text
from lvlmbench.store import Store, cached_call, put_cached_calls
from lvlmbench.types import Status

__all__ = ["ImageClient"]


class ImageClient:
    """Wraps a :class:`TextToImage` model. Rendered images go to the store's image directory;
    the cache row keeps only their hash, so a re-run re-uses the file without a request."""

    def __init__(
        self,
        model: TextToImage,
        store: Store | None,
        *,
        concurrency: int = 4,
        retry: RetryPolicy | None = None,
        seed: int = 0,
    ) -> None:
        self.model = model
        self.store = store
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self.stats = CallStats()
        self.breaker = CircuitBreaker(breaker_threshold(concurrency))
        self._rng = random.Random(seed)
        self._identity = model.cache_identity()

    async def check(self) -> None:
        """The preflight: RunAborted within seconds when the endpoint refuses connections."""
        await preflight(self.model)

    @property
    def spec(self) -> str:
        """The wrapped model's spec."""
        return self.model.spec

    def cache_key(self, request: ImageRequest) -> str:
        """The key this request is cached under."""
        return cache_key("image", self._identity, request.model_dump(mode="json"))

    def _cached(self, key: str) -> ImageOutput | None:
        if self.store is None:
            return None
        row = cached_call(self.store, key)
        if row is None:
            return None
        output = ImageOutput.model_validate_json(row.output)
        sha = _sha_of(row.output)
        if sha is not None:
            path = self.store.image_path(sha)
            if not path.exists():
                return None  # the file was deleted by hand: render again
            output = output.model_copy(update={"png": path.read_bytes()})
        return output.model_copy(update={"cached": True, "attempts": 0})

    def _remember(self, key: str, output: ImageOutput) -> None:
        if self.store is None or output.status not in (Status.OK, Status.REFUSED):
            return
        record = output.model_dump(mode="json", exclude={"png"})
        if output.png is not None:
            record["sha256"] = self.store.put_image(output.png)
        put_cached_calls(
            self.store,
            [
                {
                    "key": key,
                    "kind": "image",
                    "spec": self.model.spec,
                    "output": json.dumps(record),
                    "input_tokens": 0,
                    "output_tokens": 0,
                    "created_at": time.time(),
                }
            ],
        )

    async def generate(self, request: ImageRequest) -> ImageOutput:
        """Render one image through cache, limiter and retries; failures come back as values
        (RunAborted for failures that every later call would hit too)."""
        key = self.cache_key(request)
        hit = self._cached(key)
        if hit is not None:
            self.stats.cache_hits += 1
            return hit
        async with EndpointLimiter.get(self.model.endpoint, self.concurrency):
            if self.breaker.tripped_by is not None:
                raise RunAborted(redact_text(self.breaker.message(self.model.spec)))
            try:
                output, attempts = await call_with_retries(
                    lambda: self.model.generate(request),
                    self.retry,
                    self.stats,
                    self._rng,
                    on_retry=lambda event: log_retry(self.model.spec, event),
                )
            except ProviderError as exc:
                self.stats.failures += 1
                if aborts_run(exc):
                    raise RunAborted(redact_text(str(exc))) from None
                if self.breaker.record_failure(exc):
                    raise RunAborted(redact_text(self.breaker.message(self.model.spec))) from None
                return ImageOutput(status=Status.ERROR, reason=redact_text(str(exc)))
        self.breaker.record_success()
        # The same masking as chat outputs: a revised prompt or reason may echo the key.
        output = output.model_copy(
            update={
                "attempts": attempts,
                "reason": None if output.reason is None else redact_text(output.reason),
                "revised_prompt": None
                if output.revised_prompt is None
                else redact_text(output.revised_prompt),
            }
        )
        self._remember(key, output)
        return output

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.model.aclose()


def _sha_of(output_json: str) -> str | None:
    value = json.loads(output_json).get("sha256")
    return str(value) if value else None
