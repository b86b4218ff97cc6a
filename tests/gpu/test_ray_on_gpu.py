"""``num_gpus=1``: the Ray actor pools on a real GPU (skipped where there is none, as in CI).

The CPU tests (``tests/models/test_hf_ray.py``, ``tests/images/test_diffusers_ray.py``) run the
same code with ``num_gpus=0``; these check what only a GPU shows: each actor is granted a GPU
by Ray and holds the model there, ``auto`` device and dtype resolve on the actor (the driver
need not have a GPU), fractional GPUs pack several actors on one card, and the answers equal
the local model's on the same card.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.conftest import require_module

require_module("ray", "runs local models on a Ray cluster")
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import numpy as np  # noqa: E402
import ray  # noqa: E402
from models.test_hf import _build_tiny_llava, _varied_prompts  # noqa: E402
from PIL import Image  # noqa: E402
from ray_cluster import local_ray_cluster  # noqa: E402
from tiny_diffusers import build_tiny_stable_diffusion  # noqa: E402

from lvlmbench.images import ImageOutput, ImageRequest, load_image_model  # noqa: E402
from lvlmbench.models import ModelClient, load_chat_model  # noqa: E402
from lvlmbench.store import Store  # noqa: E402
from lvlmbench.types import GenerationConfig, Message, ModelOutput  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.gpu]

GREEDY = GenerationConfig(max_tokens=12)


@pytest.fixture(scope="module", autouse=True)
def gpu_cluster() -> Iterator[None]:
    with local_ray_cluster(num_cpus=4):  # Ray finds the GPUs itself
        yield


@pytest.fixture(scope="module")
def llava_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny-llava-gpu")
    _build_tiny_llava(path)
    return path


def _free_gpus() -> float:
    return float(ray.available_resources().get("GPU", 0.0))


async def _answers(spec: str, prompts: list[list[Message]], **options: object) -> list[ModelOutput]:
    model = load_chat_model(spec, **options)
    try:
        return list(await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts)))
    finally:
        await model.aclose()


async def test_a_gpu_actor_answers_as_the_local_model_on_the_same_card(llava_dir: Path) -> None:
    assert ray.cluster_resources().get("GPU", 0.0) >= 1.0
    prompts = _varied_prompts() * 2
    local = await _answers(f"hf/{llava_dir}", prompts, device="cuda", dtype="float32")
    model = load_chat_model(f"hf/{llava_dir}?ray=true&num_gpus=1&dtype=float32")
    try:
        on_ray = list(await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts)))
        held = ray.cluster_resources()["GPU"] - _free_gpus()  # the live actor holds its GPU
    finally:
        await model.aclose()
    assert held == 1.0
    assert [o.text for o in on_ray] == [o.text for o in local]
    assert [o.usage for o in on_ray] == [o.usage for o in local]
    assert all(o.ok for o in on_ray)


async def test_auto_resolves_to_cuda_bfloat16_on_the_actor_and_fractions_share_a_card(
    llava_dir: Path,
) -> None:
    prompts = _varied_prompts()
    model = load_chat_model(f"hf/{llava_dir}?ray=true&num_gpus=0.5&actors=2")
    try:
        outputs = list(await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts * 4)))
        free = _free_gpus()
    finally:
        await model.aclose()
    assert free == ray.cluster_resources()["GPU"] - 1.0  # two half-GPU actors on one card
    assert all(o.ok and o.usage.output_tokens > 0 for o in outputs)
    local = await _answers(f"hf/{llava_dir}", prompts, device="cuda", dtype="bfloat16")
    assert [o.text for o in outputs[: len(prompts)]] == [o.text for o in local]


async def test_a_run_through_the_client_caches_gpu_answers(llava_dir: Path, tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "gpu.db"))
    spec = f"hf/{llava_dir}?ray=true&num_gpus=1"
    client = ModelClient(load_chat_model(spec), store)
    try:
        first = await client.generate(_varied_prompts()[0], GREEDY)
        again = await client.generate(_varied_prompts()[0], GREEDY)
    finally:
        await client.aclose()
        store.close()
    assert first.ok and not first.cached
    assert again.cached and again.text == first.text


async def test_a_gpu_diffusers_actor_paints_the_local_picture(tmp_path: Path) -> None:
    pytest.importorskip("diffusers")
    build_tiny_stable_diffusion(tmp_path / "sd")
    requests = [
        ImageRequest(prompt="a red circle", width=32, height=32, seed=s, steps=2) for s in range(3)
    ]
    local = load_image_model(f"diffusers/{tmp_path / 'sd'}", device="cuda", dtype="float32")
    on_ray = load_image_model(f"diffusers/{tmp_path / 'sd'}?ray=true&num_gpus=1&dtype=float32")
    try:
        want = await asyncio.gather(*(local.generate(r) for r in requests))
        have = await asyncio.gather(*(on_ray.generate(r) for r in requests))
    finally:
        await local.aclose()
        await on_ray.aclose()
    for a, b in zip(want, have, strict=True):
        assert isinstance(a, ImageOutput) and isinstance(b, ImageOutput) and b.ok
        difference = np.abs(_pixels(a) - _pixels(b))
        assert difference.max() <= 2 and (difference > 0).mean() < 0.01


def _pixels(output: ImageOutput) -> np.ndarray:
    assert output.png is not None
    with Image.open(io.BytesIO(output.png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.int16)
