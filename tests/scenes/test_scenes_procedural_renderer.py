"""The `procedural` text-to-image back-end."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from lvlmbench.images import ImageRequest, TextToImage, load_image_model
from lvlmbench.images.procedural import ProceduralRenderer, create
from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.scenes import RENDERER_VERSION, ProceduralExaminer, render_png

SCENE = (
    ProceduralExaminer()
    .sample("basic understanding", "counting", "counting all shapes", "medium", 5)
    .program
)


async def test_renders_scene_at_requested_size() -> None:
    model = create("", {})
    assert isinstance(model, TextToImage)
    request = ImageRequest(
        prompt="shapes", scene=SCENE.model_dump(mode="json"), width=200, height=120
    )
    output = await model.generate(request)
    assert output.ok and output.png is not None
    assert Image.open(io.BytesIO(output.png)).size == (200, 120)
    assert output.png == render_png(SCENE, 200, 120)
    await model.aclose()


async def test_prompt_without_scene_is_fatal() -> None:
    with pytest.raises(ProviderError) as err:
        await ProceduralRenderer().generate(ImageRequest(prompt="a red car on a street"))
    assert err.value.kind is ErrorKind.FATAL
    assert "draws scene programs; got a free-text prompt only" in str(err.value)


async def test_invalid_scene_is_fatal_with_path() -> None:
    bad = {"objects": [{"category": "dragon", "color": "red", "position": {"x": 0.5, "y": 0.5}}]}
    with pytest.raises(ProviderError, match=r"objects\[0\]\.category: 'dragon'") as err:
        await ProceduralRenderer().generate(ImageRequest(prompt="x", scene=bad))
    assert not err.value.transient


def test_identity_and_registry() -> None:
    model = load_image_model("procedural")
    assert isinstance(model, ProceduralRenderer)
    assert model.spec == "procedural" and model.endpoint == "local:procedural"
    assert model.cache_identity() == {"provider": "procedural", "version": RENDERER_VERSION}
    with pytest.raises(ProviderError, match="unknown options"):
        create("", {"steps": "20"})
