"""``hf/…?ray=true`` on a real local Ray cluster (2 CPUs, no dashboard) with the tiny random LLaVA.

The cluster is started once for the module and shut down after. The same code path with
``num_gpus=1`` is what a GPU cluster runs; here the actors run on CPU.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.conftest import require_module

require_module("ray", "runs hf/... models on a Ray cluster")
torch = pytest.importorskip("torch")

from models.test_hf import _build_tiny_llava, _question, _varied_prompts  # noqa: E402
from ray_cluster import local_ray_cluster  # noqa: E402
from runner.test_runner import BENCH, _items  # noqa: E402

from lvlmbench.models import ModelClient, ProviderError, load_chat_model  # noqa: E402
from lvlmbench.models._hf_ray import RayHFChatModel  # noqa: E402
from lvlmbench.models.hf import HFChatModel  # noqa: E402
from lvlmbench.runner import run_examinee  # noqa: E402
from lvlmbench.store import Store, iter_responses  # noqa: E402
from lvlmbench.types import GenerationConfig, ImagePart, Message, ModelOutput  # noqa: E402

pytestmark = pytest.mark.integration

GREEDY = GenerationConfig(max_tokens=12)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    with local_ray_cluster():
        yield


@pytest.fixture(scope="module")
def llava_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny-llava-ray")
    _build_tiny_llava(path)
    return path


def _ray_model(directory: Path, **options: object) -> RayHFChatModel:
    model = load_chat_model(f"hf/{directory}?ray=true", device="cpu", **options)
    assert isinstance(model, RayHFChatModel)
    return model


async def _answers(model: HFChatModel, prompts: list[list[Message]]) -> list[ModelOutput]:
    try:
        return list(await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts)))
    finally:
        await model.aclose()


@pytest.mark.usefixtures("ray_cluster")
async def test_ray_answers_equal_local_answers(llava_dir: Path) -> None:
    prompts = _varied_prompts() * 2
    local = load_chat_model(f"hf/{llava_dir}", device="cpu", batch_size=2)
    assert type(local) is HFChatModel
    expected = await _answers(local, prompts)
    on_ray = await _answers(_ray_model(llava_dir, actors=2, batch_size=2), prompts)
    assert [o.text for o in on_ray] == [o.text for o in expected]
    assert [o.usage for o in on_ray] == [o.usage for o in expected]
    assert [o.finish_reason for o in on_ray] == [o.finish_reason for o in expected]
    # The actors were handed batch_size rows at a time, not the whole chunk.
    assert {o.raw["batch_size"] for o in on_ray} <= {1, 2}
    assert all(o.ok and o.latency_s > 0 for o in on_ray)


@pytest.mark.usefixtures("ray_cluster")
async def test_actors_load_the_weights_once_per_run_not_per_chunk(llava_dir: Path) -> None:
    import ray

    model = _ray_model(llava_dir, actors=2, batch_size=2)
    prompts = _varied_prompts()
    try:
        first = await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts))
        handles = list(model._pool._handles)
        for _ in range(2):  # later chunks, one after the other: the same two actors answer
            again = await asyncio.gather(*(model.generate(p, GREEDY) for p in prompts))
            assert [o.text for o in again] == [o.text for o in first]
        assert model._pool.actors_started == 2
        assert model._pool._handles == handles
    finally:
        await model.aclose()
    assert model._pool._handles == []
    with pytest.raises(ray.exceptions.RayActorError):  # closing the model ended its actors
        ray.get(handles[0].answer_blobs.remote([]))


@pytest.mark.usefixtures("ray_cluster")
async def test_a_bad_row_fails_alone_with_its_status(llava_dir: Path) -> None:
    broken = [Message.user(ImagePart.from_bytes(b"not an image"), "what colour")]
    model = _ray_model(llava_dir, batch_size=4)
    try:
        error, good = await asyncio.gather(
            model.generate(broken, GREEDY),
            model.generate(_question(), GREEDY),
            return_exceptions=True,
        )
    finally:
        await model.aclose()
    assert isinstance(error, ProviderError) and error.status_code == 400
    assert "cannot read image" in str(error)
    assert isinstance(good, ModelOutput) and good.ok


@pytest.mark.usefixtures("ray_cluster")
async def test_ray_and_local_share_the_cache(llava_dir: Path, tmp_path: Path) -> None:
    """Answers paid on the cluster replay locally (and back): where it ran is not identity."""
    store = Store.open(str(tmp_path / "cache.db"))
    on_ray = ModelClient(_ray_model(llava_dir, actors=2), store)
    local = ModelClient(load_chat_model(f"hf/{llava_dir}", device="cpu"), store)
    try:
        assert on_ray.model.spec == local.model.spec
        first = await on_ray.generate(_question(), GREEDY)
        replayed = await local.generate(_question(), GREEDY)
    finally:
        await on_ray.aclose()
        await local.aclose()
        store.close()
    assert first.ok and not first.cached
    assert replayed.cached and replayed.text == first.text and replayed.attempts == 0
    assert local.stats.requests == 0


@pytest.mark.usefixtures("ray_cluster")
async def test_a_missing_model_is_fatal_and_not_retried(tmp_path: Path) -> None:
    model = _ray_model(tmp_path / "no-such-model")
    with pytest.raises(ProviderError) as caught:
        await model.generate(_question(), GREEDY)
    # Found before any actor started (the pool checks the path first), said as such.
    assert "no such directory" in str(caught.value)
    with pytest.raises(ProviderError) as again:
        await model.generate(_question(), GREEDY)
    assert again.value is caught.value


def test_ray_options_are_checked(llava_dir: Path) -> None:
    with pytest.raises(ValueError, match="only used with ray=true"):
        load_chat_model(f"hf/{llava_dir}?actors=2", device="cpu")
    with pytest.raises(ValueError, match="actors"):
        load_chat_model(f"hf/{llava_dir}?ray=true&actors=0", device="cpu")
    gpu = load_chat_model(f"hf/{llava_dir}?ray=true&num_gpus=1")
    # The driver needs no GPU: the actors' device and dtype decide the identity.
    assert isinstance(gpu, RayHFChatModel) and gpu.device == "cuda" and gpu.dtype == "bfloat16"
    assert gpu.ray.num_gpus == 1.0


@pytest.mark.usefixtures("ray_cluster")
async def test_an_evaluation_run_through_ray_stores_what_a_local_run_stores(
    llava_dir: Path, tmp_path: Path
) -> None:
    """The runner, unchanged, streams the cluster's answers into the store; a second run asks
    nothing."""
    stored: dict[str, dict[str, str]] = {}
    for where, spec in (
        ("ray", f"hf/{llava_dir}?ray=true&actors=2&batch_size=2"),
        ("local", f"hf/{llava_dir}"),
    ):
        store = Store.open(str(tmp_path / f"{where}.db"))
        try:
            _items(store, 6)
            client = ModelClient(load_chat_model(spec, device="cpu"), store)
            try:
                summary = await run_examinee(store, BENCH, client, config=GREEDY)
                again = await run_examinee(store, BENCH, client, config=GREEDY)
            finally:
                await client.aclose()
            assert (summary.total, summary.failed, summary.requests) == (6, 0, 6)
            assert again.skipped == 6 and again.requests == 6  # the same client: no new call
            stored[where] = {r.item_id: r.text for r in iter_responses(store)}
        finally:
            store.close()
    assert len(stored["ray"]) == 6 and stored["ray"] == stored["local"]


def test_without_ray_installed_the_option_says_which_extra(
    llava_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an install without the extra sees
    monkeypatch.delitem(sys.modules, "lvlmbench.models._hf_ray", raising=False)
    monkeypatch.delitem(sys.modules, "lvlmbench.models._ray", raising=False)
    with pytest.raises(ValueError, match=r"pip install 'lvlmbench\[ray\]'"):
        load_chat_model(f"hf/{llava_dir}?ray=true", device="cpu")
    # Without ray=true nothing imports Ray.
    assert type(load_chat_model(f"hf/{llava_dir}", device="cpu")) is HFChatModel
