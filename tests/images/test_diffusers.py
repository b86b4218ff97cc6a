"""The diffusers back-end against a tiny random Stable Diffusion pipeline built here
(:mod:`tiny_diffusers`), saved with ``save_pretrained`` and loaded back through the real
registry and provider, as ``diffusers/<directory>`` would load a real one.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
diffusers = pytest.importorskip("diffusers")
transformers = pytest.importorskip("transformers")

from PIL import Image  # noqa: E402
from tiny_diffusers import build_tiny_stable_diffusion  # noqa: E402

from lvlmbench.images import ImageClient, ImageRequest, load_image_model  # noqa: E402
from lvlmbench.images.diffusers import DiffusersTextToImage  # noqa: E402
from lvlmbench.models import ErrorKind, ProviderError  # noqa: E402
from lvlmbench.store import Store  # noqa: E402
from lvlmbench.types import Status  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def tiny_sd_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved tiny random Stable Diffusion pipeline (built once per test session)."""
    path = tmp_path_factory.mktemp("tiny-sd")
    build_tiny_stable_diffusion(path)
    return path


def _load(directory: Path, **options: object) -> DiffusersTextToImage:
    model = load_image_model(f"diffusers/{directory}", device="cpu", **options)
    assert isinstance(model, DiffusersTextToImage)
    return model


def _request(seed: int, **fields: object) -> ImageRequest:
    return ImageRequest(prompt="a red circle", width=32, height=32, seed=seed, steps=2, **fields)


def _size(png: bytes | None) -> tuple[int, int]:
    assert png is not None and png.startswith(b"\x89PNG")
    with Image.open(io.BytesIO(png)) as image:
        return image.size


async def test_renders_the_requested_size_reproducibly(tiny_sd_dir: Path) -> None:
    model = _load(tiny_sd_dir)
    try:
        first = await model.generate(_request(seed=1))
        again = await model.generate(_request(seed=1))
        other = await model.generate(_request(seed=2))
        wide = await model.generate(
            ImageRequest(prompt="a photo of a cat", width=64, height=32, seed=1, steps=2)
        )
    finally:
        await model.aclose()
    assert first.ok and first.latency_s > 0
    assert _size(first.png) == (32, 32) and _size(wide.png) == (64, 32)
    assert first.png == again.png
    assert first.png != other.png


async def test_request_options_change_the_picture(tiny_sd_dir: Path) -> None:
    model = _load(tiny_sd_dir)
    try:
        plain = await model.generate(_request(seed=3))
        negative = await model.generate(_request(seed=3, negative_prompt="a blue square"))
        guided = await model.generate(_request(seed=3, guidance=1.5))
    finally:
        await model.aclose()
    assert len({plain.png, negative.png, guided.png}) == 3


async def test_a_size_the_vae_cannot_take_fails_only_that_request(tiny_sd_dir: Path) -> None:
    model = _load(tiny_sd_dir)
    try:
        with pytest.raises(ProviderError) as caught:
            await model.generate(ImageRequest(prompt="a cat", width=30, height=30, steps=2))
        fine = await model.generate(_request(seed=1))
    finally:
        await model.aclose()
    assert caught.value.status_code == 400 and "divisible" in str(caught.value)
    assert fine.ok


async def test_safety_checker_flags_become_refusals(
    tiny_sd_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tiny pipeline has no safety checker; stand one in that flags everything.
    def flag_everything(self: object, image: object, device: object, dtype: object) -> object:
        return image, [True]

    monkeypatch.setattr(diffusers.StableDiffusionPipeline, "run_safety_checker", flag_everything)
    model = _load(tiny_sd_dir)
    try:
        out = await model.generate(_request(seed=1))
    finally:
        await model.aclose()
    assert out.status is Status.REFUSED and out.png is None
    assert out.reason is not None and "safety checker" in out.reason


async def test_missing_directory_is_a_fatal_error_that_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-pipeline"
    model = _load(missing)
    with pytest.raises(ProviderError) as caught:
        await model.generate(_request(seed=0))
    assert caught.value.kind is ErrorKind.FATAL and caught.value.status_code is None
    assert str(missing) in str(caught.value) and "no such directory" in str(caught.value)


def test_identity_holds_what_changes_pictures(tiny_sd_dir: Path) -> None:
    default = _load(tiny_sd_dir).cache_identity()
    # On the CPU "auto" means float32, so naming it changes nothing.
    assert default == _load(tiny_sd_dir, dtype="float32").cache_identity()
    assert default["steps"] == 30 and default["guidance"] == 7.5
    assert _load(tiny_sd_dir, steps=4).cache_identity() != default
    with pytest.raises(ValueError, match="guidance"):
        _load(tiny_sd_dir, guidance="strong")


async def test_client_stores_and_reuses_images(tiny_sd_dir: Path, tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "cache.db"))
    client = ImageClient(_load(tiny_sd_dir), store)
    try:
        first = await client.generate(_request(seed=5))
        second = await client.generate(_request(seed=5))
    finally:
        await client.aclose()
        store.close()
    assert first.ok and not first.cached
    assert second.cached and second.png == first.png
