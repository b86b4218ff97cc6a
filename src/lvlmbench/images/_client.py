"""The client every text-to-image call goes through: the models' :class:`CallClient` (cache,
limits, retries, breaker), storing rendered images in the store's image directory."""

from __future__ import annotations

import json
from typing import Any

from lvlmbench.images._api import ImageOutput, ImageRequest, PromptLength, TextToImage
from lvlmbench.models import CallClient, cache_key, redact_text
from lvlmbench.store import Store
from lvlmbench.types import Status

__all__ = ["ImageClient"]


class ImageClient(CallClient[TextToImage, ImageOutput]):
    """Wraps a :class:`TextToImage` model. Rendered images go to the store's image directory;
    the cache row keeps only their hash, so a re-run re-uses the file without a request. Each
    image rendered by a request costs ``price_per_image`` (the spec's ``price``; None: unpriced),
    added to ``stats.cost_usd``; cached ones cost nothing."""

    kind = "image"
    default_concurrency = 4

    def __init__(
        self,
        model: TextToImage,
        store: Store | None,
        *,
        price_per_image: float | None = None,
        **options: Any,
    ) -> None:
        """``options``: the :class:`CallClient` ones (concurrency, retry, ...)."""
        super().__init__(model, store, **options)
        self.price_per_image: float | None = (
            price_per_image
            if price_per_image is not None
            else getattr(model, "price_per_image", None)
        )

    def cache_key(self, request: ImageRequest) -> str:
        """The key this request is cached under."""
        return cache_key("image", self._identity, request.model_dump(mode="json"))

    def _decode(self, stored: str) -> ImageOutput | None:
        output = ImageOutput.model_validate_json(stored)
        sha = _sha_of(stored)
        if sha is not None and self.store is not None:
            path = self.store.image_path(sha)
            if not path.exists():
                return None  # the file was deleted by hand: render again
            output = output.model_copy(update={"png": path.read_bytes()})
        return output

    def _encode(self, output: ImageOutput) -> str:
        record = output.model_dump(mode="json", exclude={"png"})
        if output.png is not None and self.store is not None:
            record["sha256"] = self.store.put_image(output.png)
        return json.dumps(record)

    def _images(self, output: ImageOutput) -> int:
        return int(output.ok)  # a refused render draws nothing and is not billed

    def _account(self, output: ImageOutput) -> None:
        if self.price_per_image is not None and output.ok:
            self.stats.cost_usd += self.price_per_image

    def _failed(self, reason: str) -> ImageOutput:
        return ImageOutput(status=Status.ERROR, reason=reason)

    def _finished(self, output: ImageOutput, attempts: int) -> ImageOutput:
        # The same masking as chat outputs: a revised prompt or reason may echo the key.
        return output.model_copy(
            update={
                "attempts": attempts,
                "reason": None if output.reason is None else redact_text(output.reason),
                "revised_prompt": None
                if output.revised_prompt is None
                else redact_text(output.revised_prompt),
            }
        )

    def prompt_length(self, prompt: str) -> PromptLength | None:
        """``prompt`` measured by the model's own text encoder(s), None for a model that cuts
        no prompt or cannot say (not a model call: nothing cached, nothing paid)."""
        measure = getattr(self.model, "prompt_length", None)
        return None if measure is None else measure(prompt)

    async def generate(self, request: ImageRequest) -> ImageOutput:
        """Render one image through cache, limiter and retries; failures come back as values
        (RunAborted for failures that every later call would hit too)."""
        return await self._through(self.cache_key(request), lambda: self.model.generate(request))


def _sha_of(output_json: str) -> str | None:
    value = json.loads(output_json).get("sha256")
    return str(value) if value else None
