"""Several replicas of one deployment against real local servers: calls spread by in-flight
count, a replica dead from the start or dying mid-run is worked around, nothing paid twice."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import Counter
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, Faults
from quiz_store import put_numbered_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.models import ModelClient, RetryPolicy, RunAborted, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, iter_responses
from lvlmbench.types import Status

runner = CliRunner()
FAST_RETRY = RetryPolicy(max_retries=3, base_delay=0.01, max_delay=0.05)


def _store(path: Path, items: int) -> Store:
    return put_numbered_quiz(Store.open(str(path)), "bench", items, "A")


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def _all_ok(store: Store, spec: str, items: int) -> None:
    stored = list(iter_responses(store, model=spec))
    assert len(stored) == items and all(r.status is Status.OK for r in stored)


@pytest.mark.timeout(60)
async def test_calls_spread_over_replicas_by_in_flight_count(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db", items=80)
    with (
        FakeOpenAIServer(latency_s=0.02, concurrency=4) as a,
        FakeOpenAIServer(latency_s=0.02, concurrency=4) as b,
    ):
        client = ModelClient(
            load_chat_model(f"openai/m?base_url={a.base_url},{b.base_url}"), store, concurrency=4
        )
        await client.check()
        await run_examinee(store, "bench", client)
        await client.aclose()
    assert a.stats.requests + b.stats.requests == 80
    # Balanced: neither takes much more than half, neither ever exceeds its per-replica share.
    assert 28 <= a.stats.requests <= 52, (a.stats.requests, b.stats.requests)
    assert a.stats.max_in_flight == b.stats.max_in_flight == 4
    _all_ok(store, client.spec, 80)
    assert client.spec == f"openai/m?base_url={a.base_url}"  # one model, named by its first URL


@pytest.mark.timeout(60)
async def test_a_replica_dead_from_the_start_is_named_and_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = _store(tmp_path / "s.db", items=30)
    dead = _closed_port_url()
    with FakeOpenAIServer(concurrency=8) as alive:
        model = load_chat_model(f"openai/m?base_url={dead},{alive.base_url}&deployment=d")
        client = ModelClient(model, store, concurrency=4, retry=FAST_RETRY)
        with caplog.at_level(logging.WARNING, logger="lvlmbench"):
            await client.check()
        summary = await run_examinee(store, "bench", client)
        await client.aclose()
        assert alive.stats.requests == 30  # the dead one was out: no call wasted on it
    assert [r.getMessage() for r in caplog.records] == [
        f"openai/m?deployment=d: 1 of 2 replicas unreachable, running on the others: {dead}"
    ]
    assert client.stats.retries == 0 and summary.failed == 0
    _all_ok(store, "openai/m?deployment=d", 30)


async def test_all_replicas_dead_stops_the_run_naming_them() -> None:
    urls = [_closed_port_url(), _closed_port_url()]
    client = ModelClient(load_chat_model(f"openai/m?base_url={','.join(urls)}"), None)
    with pytest.raises(RunAborted, match="cannot reach any of its 2 replicas") as caught:
        await client.check()
    await client.aclose()
    assert all(url in str(caught.value) for url in urls)


@pytest.mark.timeout(60)
async def test_a_replica_dying_mid_run_is_taken_out_and_nothing_is_paid_twice(
    tmp_path: Path,
) -> None:
    items = 120
    store = _store(tmp_path / "s.db", items=items)
    # Entered by hand: the killer stops it, and a stopped server must not be exited twice.
    doomed = FakeOpenAIServer(latency_s=0.02, concurrency=4).__enter__()
    killed = asyncio.Event()
    answered_before_death: Counter[str] = Counter()

    async def kill_when_busy() -> None:
        while doomed.stats.requests < 20:  # noqa: ASYNC110 (counted on the server thread)
            await asyncio.sleep(0.005)
        answered_before_death.update(doomed.stats.answered)
        await asyncio.to_thread(doomed.__exit__, None, None, None)
        killed.set()

    try:
        with FakeOpenAIServer(latency_s=0.02, concurrency=4) as survivor:
            spec = f"openai/m?base_url={doomed.base_url},{survivor.base_url}"
            client = ModelClient(load_chat_model(spec), store, concurrency=4, retry=FAST_RETRY)
            killer = asyncio.create_task(kill_when_busy())
            summary = await run_examinee(store, "bench", client)
            await killer
            await client.aclose()
            survivor_answers = survivor.stats.answered
    finally:
        if not killed.is_set():
            doomed.__exit__(None, None, None)
    replicas = client.model.replicas  # type: ignore[attr-defined]
    assert [r.url for r in replicas.out()] == [doomed.base_url]
    assert summary.failed == 0
    _all_ok(store, client.spec, items)
    # Paid once: the survivor answered each prompt at most once and none the dead one had sent.
    assert max(survivor_answers.values()) == 1
    assert not set(answered_before_death) & set(survivor_answers)
    assert 20 <= sum(answered_before_death.values()) + sum(survivor_answers.values()) <= items + 4


def test_evaluate_refuses_a_bad_replica_url_naming_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _store(db, items=2)
    spec = "openai/m?base_url=http://127.0.0.1:9/v1,127.0.0.1:10/v1"
    result = runner.invoke(app, ["evaluate", "bench", "-m", spec, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert "replica 2 ('127.0.0.1:10/v1')" in " ".join(result.output.split())


def test_evaluate_runs_one_model_on_two_replicas(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _store(db, items=12)
    with FakeOpenAIServer(latency_s=0.05) as a, FakeOpenAIServer(latency_s=0.05) as b:
        spec = f"openai/m?base_url={a.base_url},{b.base_url}&deployment=pair"
        result = runner.invoke(
            app, ["evaluate", "bench", "-m", spec, "--store", str(db), "--concurrency", "2"]
        )
        assert result.exit_code == 0, result.output
        assert a.stats.probes == b.stats.probes == 1  # both probed by the preflight
        assert a.stats.requests > 0 and b.stats.requests > 0
    _all_ok(Store.open(str(db)), "openai/m?deployment=pair", 12)


@pytest.mark.timeout(60)
async def test_a_replica_taken_out_is_tried_again_after_its_cool_down() -> None:
    from lvlmbench.models._replicas import ReplicaSet
    from lvlmbench.types import Message

    always_503 = Faults(server_error=1.0, max_faults_per_prompt=10**9)
    with (
        FakeOpenAIServer(faults=always_503, server_error_status=503) as sick,
        FakeOpenAIServer() as well,
    ):
        model = load_chat_model(f"openai/m?base_url={sick.base_url},{well.base_url}")
        model.replicas = ReplicaSet([sick.base_url, well.base_url], cooldown_s=0.2)  # type: ignore[attr-defined]
        client = ModelClient(model, None, retry=FAST_RETRY)
        first = [await client.generate([Message.user(f"q{i}")]) for i in range(5)]
        assert all(o.ok for o in first) and client.stats.retries == 0  # moved over at once
        assert sick.stats.requests == 1 and well.stats.requests == 5  # out after one 503
        sick.faults = Faults()  # it recovers
        await asyncio.sleep(0.25)
        later = await client.generate([Message.user("after the cool-down")])
        await client.aclose()
    assert later.ok and sick.stats.requests == 2  # back on trial, and it answered
    assert sum(sick.stats.answered.values()) == 1
