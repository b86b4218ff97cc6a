"""``price=USD_PER_IMAGE`` on a text-to-image spec (what ``generate --budget-usd`` prices renders
at): checked like any option, read by the client, never seen by the provider and never part of
the identity or the cache key; only images rendered by a request cost it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import pytest
from pngs import solid_png

from lvlmbench.images import (
    IMAGE_PROVIDERS,
    ImageClient,
    ImageOutput,
    ImageRequest,
    image_identity,
    image_price,
    load_image_model,
)
from lvlmbench.models import Provider, RegistryError, metered
from lvlmbench.models.providers import OPENAI_IMAGE_OPTIONS
from lvlmbench.store import Store
from lvlmbench.types import Status

LOCAL = "openai/dall-e-3?base_url=http://127.0.0.1:9/v1"


@dataclass
class Painter:
    """Paints every request, except prompts starting with 'refuse' (a content-policy refusal)."""

    options: Mapping[str, str] = field(default_factory=dict)
    spec: str = "painter/p"
    endpoint: str = "fake://painter"
    calls: int = 0

    def cache_identity(self) -> dict[str, object]:
        return {"provider": "painter", **self.options}

    async def generate(self, request: ImageRequest) -> ImageOutput:
        self.calls += 1
        if request.prompt.startswith("refuse"):
            return ImageOutput(status=Status.REFUSED, reason="content policy")
        return ImageOutput(png=solid_png((10, 200, 10), size=(4, 4)))

    async def aclose(self) -> None:
        pass


@pytest.fixture
def painter_provider() -> Iterator[list[Mapping[str, str]]]:
    """A ``painter/`` image provider taking the OpenAI image options; the options it was built
    with, one entry per model."""
    seen: list[Mapping[str, str]] = []

    def factory(name: str, options: Mapping[str, str]) -> Painter:
        seen.append(dict(options))
        return Painter(dict(options))

    providers = cast(dict[str, Provider], IMAGE_PROVIDERS)
    providers["painter"] = Provider(None, None, OPENAI_IMAGE_OPTIONS, factory=factory)
    yield seen
    del providers["painter"]


@pytest.mark.parametrize("spec", [LOCAL, "diffusers/some/model?device=cpu"])
def test_a_price_per_image_is_outside_the_identity(spec: str) -> None:
    priced = f"{spec}&price=$0.04"
    assert image_price(priced) == 0.04 and image_price(spec) is None
    assert image_identity(priced) == image_identity(spec)
    assert "price" not in image_identity(priced)


@pytest.mark.parametrize("value", ["", "abc", "1,2", "-0.5", "nan", "inf"])
def test_a_malformed_image_price_names_the_spec_and_the_form(value: str) -> None:
    spec = f"{LOCAL}&price={value}"
    with pytest.raises(RegistryError) as caught:
        image_price(spec)
    message = str(caught.value)
    assert spec in message and "USD_PER_IMAGE" in message and "at least 0" in message


def test_the_provider_never_sees_the_price_and_the_cache_key_ignores_it(
    painter_provider: list[Mapping[str, str]],
) -> None:
    priced = ImageClient(load_image_model("painter/p?quality=hd&price=0.04"), None)
    plain = ImageClient(load_image_model("painter/p?quality=hd"), None)
    assert painter_provider == [{"quality": "hd"}, {"quality": "hd"}]
    request = ImageRequest(prompt="a green square")
    assert priced.cache_key(request) == plain.cache_key(request)
    assert priced.spec == plain.spec == "painter/p?quality=hd"
    assert (priced.price_per_image, plain.price_per_image) == (0.04, None)
    given = ImageClient(load_image_model("painter/p?price=0.04"), None, price_per_image=0.1)
    assert given.price_per_image == 0.1  # a price handed to the client wins over the spec's


async def test_only_images_rendered_by_a_request_cost(
    painter_provider: list[Mapping[str, str]], tmp_path: Path
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    client = ImageClient(load_image_model("painter/p?price=0.04"), store)
    try:
        with metered() as meter:
            await client.generate(ImageRequest(prompt="a green square"))
            await client.generate(ImageRequest(prompt="a green square"))  # cached: free
            await client.generate(ImageRequest(prompt="refuse this"))  # refused: no image
        assert client.stats.requests == 2 and client.stats.cache_hits == 1
        assert client.stats.cost_usd == pytest.approx(0.04)
        assert (meter.requests, meter.images, meter.input_tokens) == (2, 1, 0)
    finally:
        await client.aclose()
        store.close()
