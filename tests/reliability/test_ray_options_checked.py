"""``…?ray=true`` options are checked before Ray starts: a missing model path or pipeline, a
repo id not in the cache, an address where no cluster answers. Each is one FATAL error in
seconds, and Ray is never initialised (it used to start a local cluster, or retry an address
for minutes, before the actors found out). No cluster is needed: that is the point."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.conftest import free_port, require_module

require_module("ray", "runs hf/... models on a Ray cluster")
torch = pytest.importorskip("torch")
pytest.importorskip("diffusers")

import ray  # noqa: E402
from models.test_hf import _question  # noqa: E402
from ray_cluster import local_ray_cluster  # noqa: E402
from runner.test_runner import BENCH, _items  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from lvlmbench.cli import app  # noqa: E402
from lvlmbench.images import ImageRequest, load_image_model  # noqa: E402
from lvlmbench.models import ErrorKind, ProviderError, load_chat_model  # noqa: E402
from lvlmbench.models import _ray as ray_pool  # noqa: E402
from lvlmbench.store import Store  # noqa: E402
from lvlmbench.store import _schema as tables  # noqa: E402
from lvlmbench.types import GenerationConfig  # noqa: E402

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def no_cluster() -> Iterator[None]:
    """Ray not initialised before the test, and (what each test shows) not after it either."""
    if ray.is_initialized():
        ray.shutdown()
    yield
    assert not ray.is_initialized(), "Ray was started"


async def test_a_missing_model_path_fails_before_ray_starts(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    model = load_chat_model(f"hf/{missing}?ray=true", device="cpu")
    try:
        with pytest.raises(ProviderError) as checked:
            await model.check()  # the preflight every command makes
        assert checked.value.kind is ErrorKind.FATAL
        assert f"no such directory: {missing}" in str(checked.value)
        # Without the preflight, the pool makes the same check before Ray starts.
        with pytest.raises(ProviderError, match="no such directory"):
            await model.generate(_question(), GenerationConfig(max_tokens=4))
    finally:
        await model.aclose()


async def test_a_repo_id_not_in_the_cache_fails_before_ray_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    model = load_chat_model("hf/lvlmbench-tests/no-such-repo?ray=true", device="cpu")
    with pytest.raises(ProviderError, match="not in the Hugging Face cache"):
        await model.check()
    await model.aclose()


async def test_a_missing_pipeline_fails_before_ray_starts(tmp_path: Path) -> None:
    model = load_image_model(f"diffusers/{tmp_path / 'none'}?ray=true", device="cpu")
    with pytest.raises(ProviderError, match="no such directory"):
        await model.check()
    with pytest.raises(ProviderError, match="no such directory"):
        await model.generate(ImageRequest(prompt="a red square", seed=1))
    await model.aclose()


async def test_an_address_nothing_listens_on_is_refused_at_once(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    model = load_chat_model(f"hf/{tmp_path}?ray=true&ray_address={address}", device="cpu")
    with pytest.raises(ProviderError) as checked:
        await model.check()
    assert f"ray_address {address}: cannot connect to {address}" in str(checked.value)
    assert "ray://HOST:10001" in str(checked.value)  # the hint says what the option takes
    await model.aclose()


async def test_an_address_where_no_ray_gcs_answers_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ray_pool, "GCS_PROBE_S", 2.0)
    with socket.socket() as listener:  # accepts connections, never speaks Ray's protocol
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        model = load_chat_model(f"hf/{tmp_path}?ray=true&ray_address={address}", device="cpu")
        with pytest.raises(ProviderError, match=f"ray_address {address}: no Ray GCS answered"):
            await model.check()
    await model.aclose()


def _threads() -> list[str]:
    """This process's threads by name, native ones (Ray's gRPC client's) included."""
    names = []
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):
            names.append((task / "comm").read_text().strip())
    return sorted(names)


def test_a_silent_gcs_leaves_nothing_of_ray_running_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The GCS check asks from a process of its own: Ray's client retries in native code for
    a minute, and asked from a thread here it was still running when the program ended, which
    crashed the interpreter's shutdown (exit status 139 after the command had exited 2)."""
    monkeypatch.setattr(ray_pool, "GCS_PROBE_S", 3.0)
    before = _threads()
    with socket.socket() as listener:  # accepts connections, never speaks Ray's protocol
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        started = time.perf_counter()
        problem = ray_pool._gcs_problem(address)
    assert problem == f"ray_address {address}: no Ray GCS answered within 3 s"
    assert time.perf_counter() - started < 10
    assert _threads() == before


def test_a_running_clusters_gcs_passes_the_check() -> None:
    with local_ray_cluster():
        address = ray.get_runtime_context().gcs_address
        assert ray_pool._gcs_problem(address) is None


def test_the_ray_address_environment_variable_is_checked_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ray.init joins RAY_ADDRESS when no address is given: it is probed the same way.
    address = f"127.0.0.1:{free_port()}"
    monkeypatch.setenv("RAY_ADDRESS", address)
    assert ray_pool.ray_target(None) == address
    problem = ray_pool.ray_address_problem(None)
    assert problem is not None and f"cannot connect to {address}" in problem
    monkeypatch.delenv("RAY_ADDRESS")
    assert ray_pool.ray_address_problem(None) is None  # a local cluster: nothing to probe


@pytest.mark.timeout(120)
def test_evaluate_with_an_unreachable_cluster_stops_in_seconds_and_leases_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "store.db"
    store = Store.open(str(db))
    _items(store, 6)
    store.close()
    spec = f"hf/{tmp_path}?ray=true&ray_address=127.0.0.1:{free_port()}&device=cpu"
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["evaluate", BENCH, "-m", spec, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert "cannot connect to 127.0.0.1:" in result.output
    store = Store.open(str(db))
    try:
        assert store.count(tables.leases) == 0
        assert store.count(tables.responses) == 0
    finally:
        store.close()
    print(f"refused in {time.perf_counter() - started:.1f} s")
