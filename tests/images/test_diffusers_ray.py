"""``diffusers/…?ray=true`` on a real local Ray cluster (2 CPUs) with the tiny random pipeline:
the same pictures as without Ray, per-row errors kept to their row, one shared cache."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.conftest import require_module

require_module("ray", "runs diffusers/... models on a Ray cluster")
torch = pytest.importorskip("torch")
diffusers = pytest.importorskip("diffusers")

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from ray_cluster import local_ray_cluster  # noqa: E402
from tiny_diffusers import build_tiny_stable_diffusion  # noqa: E402

from lvlmbench.images import ImageClient, ImageOutput, ImageRequest, load_image_model  # noqa: E402
from lvlmbench.images._diffusers_ray import RayDiffusersTextToImage  # noqa: E402
from lvlmbench.images.diffusers import DiffusersTextToImage  # noqa: E402
from lvlmbench.models import ProviderError  # noqa: E402
from lvlmbench.store import Store  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("ray_cluster")]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    with local_ray_cluster():
        yield


@pytest.fixture(scope="module")
def sd_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny-sd-ray")
    build_tiny_stable_diffusion(path)
    return path


def _pixels(output: ImageOutput) -> np.ndarray:
    assert output.png is not None
    with Image.open(io.BytesIO(output.png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.int16)


def _request(seed: int, **fields: object) -> ImageRequest:
    return ImageRequest(prompt="a red circle", width=32, height=32, seed=seed, steps=2, **fields)


async def _render(model: DiffusersTextToImage, requests: list[ImageRequest]) -> list[object]:
    try:
        return list(
            await asyncio.gather(*(model.generate(r) for r in requests), return_exceptions=True)
        )
    finally:
        await model.aclose()


async def test_ray_pictures_equal_local_pictures_and_bad_rows_fail_alone(sd_dir: Path) -> None:
    requests = [_request(seed) for seed in range(4)]
    requests.append(ImageRequest(prompt="a cat", width=30, height=30, steps=2))
    local = load_image_model(f"diffusers/{sd_dir}", device="cpu")
    on_ray = load_image_model(f"diffusers/{sd_dir}?ray=true&actors=2", device="cpu")
    assert isinstance(on_ray, RayDiffusersTextToImage) and isinstance(local, DiffusersTextToImage)
    assert on_ray.cache_identity() == local.cache_identity()
    expected = await _render(local, requests)
    got = await _render(on_ray, requests)
    for want, have in zip(expected[:4], got[:4], strict=True):
        assert isinstance(want, ImageOutput) and isinstance(have, ImageOutput)
        assert have.ok and have.latency_s > 0
        # Same seed, same weights, same code: the same picture up to CPU float-summation order
        # in another process (measured: at most one channel of one pixel off by one level).
        difference = np.abs(_pixels(have) - _pixels(want))
        assert difference.max() <= 2 and (difference > 0).mean() < 0.01
    assert len({o.png for o in got[:4] if isinstance(o, ImageOutput)}) == 4
    error = got[4]
    assert isinstance(error, ProviderError) and error.status_code == 400
    assert "divisible" in str(error)


async def test_cluster_renders_replay_locally_from_the_cache(sd_dir: Path, tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "cache.db"))
    on_ray = ImageClient(load_image_model(f"diffusers/{sd_dir}?ray=true", device="cpu"), store)
    local = ImageClient(load_image_model(f"diffusers/{sd_dir}", device="cpu"), store)
    try:
        assert on_ray.spec == local.spec
        first = await on_ray.generate(_request(seed=7))
        replayed = await local.generate(_request(seed=7))
    finally:
        await on_ray.aclose()
        await local.aclose()
        store.close()
    assert first.ok and not first.cached
    assert replayed.cached and replayed.png == first.png and replayed.attempts == 0


async def test_a_missing_pipeline_is_fatal_and_not_retried(tmp_path: Path) -> None:
    model = load_image_model(f"diffusers/{tmp_path / 'none'}?ray=true", device="cpu")
    with pytest.raises(ProviderError, match="no such directory") as caught:
        await model.generate(_request(seed=1))
    with pytest.raises(ProviderError) as again:
        await model.generate(_request(seed=1))
    assert again.value is caught.value
