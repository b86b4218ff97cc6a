"""Endpoints that are down, broken or leaky: the preflight stops a dead one at once, the circuit
breaker stops one that fails every call, retries are visible, and a key echoed by a server is
masked everywhere it could land."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, Faults
from http_fixture import RecordingServer
from quiz_store import put_numbered_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.ids import content_id
from lvlmbench.models import (
    CircuitBreaker,
    ErrorKind,
    ModelClient,
    ProviderError,
    RetryEvent,
    RetryPolicy,
    RunAborted,
    install_log_redaction,
    load_chat_model,
    register_secret,
)
from lvlmbench.models._policy import breaker_threshold
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem, Message, Status

runner = CliRunner()
ITEMS = 60


def _store(path: Path, items: int = ITEMS) -> Store:
    return put_numbered_quiz(Store.open(str(path)), "bench", items, "A")


def _open_store(path: Path, items: int) -> Store:
    """Open-ended items with a reference: what a judge judges (it refuses keyed ones)."""
    store = Store.open(str(path))
    put_benchmark(store, "bench", "test", {})
    put_items(
        store,
        [
            BenchmarkItem(
                id=content_id("bench", i),
                benchmark="bench",
                question=f"Question {i}?",
                reference="One.",
            )
            for i in range(items)
        ],
    )
    return store


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- preflight ---------------------------------------------------------------------------------


@pytest.mark.timeout(30)  # without the preflight the default retries alone take over a minute
def test_evaluate_on_a_closed_port_stops_at_once_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _store(db)
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    result = runner.invoke(
        app, ["evaluate", "bench", "-m", f"openai/m?base_url={url}", "--store", str(db)]
    )
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "Traceback" not in line and len(line.splitlines()) <= 3  # one (soft-wrapped) line
    assert f"{url}/models" in " ".join(line.split()) and "refused" in line.lower()
    assert Store.open(str(db)).count(tables.responses) == 0  # nothing half-written


@pytest.mark.parametrize("url", ["http://[::1/v1", "http://host name/v1"])
async def test_preflight_rejects_an_invalid_url(url: str) -> None:
    client = ModelClient(load_chat_model(f"openai/m?base_url={url}"), None)
    with pytest.raises(RunAborted, match="cannot reach"):
        await client.check()
    await client.aclose()


@pytest.mark.parametrize("status", [200, 404, 405, 500])
async def test_preflight_passes_any_server_that_answers(status: int) -> None:
    with RecordingServer() as server:
        server.reply({"error": {"message": "no such route"}}, status=status)
        client = ModelClient(load_chat_model(f"openai/m?base_url={server.url}/v1"), None)
        await client.check()
        await client.aclose()
        assert [(r.method, r.path) for r in server.requests] == [("GET", "/v1/models")]


async def test_a_late_refused_connection_fails_its_item_not_the_run() -> None:
    client = ModelClient(
        load_chat_model(f"openai/m?base_url=http://127.0.0.1:{_closed_port()}/v1"),
        None,
        retry=RetryPolicy(max_retries=1, base_delay=0.001),
    )
    output = await client.generate([Message.user("hi")])
    await client.aclose()
    assert output.status is Status.ERROR and "cannot reach" in (output.reason or "")


# -- circuit breaker ---------------------------------------------------------------------------


def _error(status: int | None, kind: ErrorKind = ErrorKind.TRANSIENT) -> ProviderError:
    return ProviderError("m: boom", kind, status_code=status)


def test_breaker_trips_only_on_an_unbroken_run_of_server_failures() -> None:
    breaker = CircuitBreaker(threshold=5)
    for _ in range(4):
        assert not breaker.record_failure(_error(503))
    breaker.record_success()  # one answer in between: the count starts over
    for _ in range(4):
        assert not breaker.record_failure(_error(None))  # refused or dropped
    assert not breaker.record_failure(_error(400, ErrorKind.FATAL))  # answered: resets too
    assert breaker.failures_in_a_row == 0
    for _ in range(10):
        assert not breaker.record_failure(_error(429))  # rate limits are not "down"
    for _ in range(4):
        assert not breaker.record_failure(_error(502))
    assert breaker.record_failure(_error(503)) and breaker.tripped_by == "m: boom"
    assert "5 calls in a row" in breaker.message("openai/m")


@pytest.mark.parametrize(("concurrency", "threshold"), [(1, 5), (4, 8), (16, 20), (64, 68)])
def test_breaker_waits_for_more_than_one_wave_of_calls(concurrency: int, threshold: int) -> None:
    assert breaker_threshold(concurrency) == threshold


@pytest.mark.timeout(60)
async def test_an_endpoint_failing_every_call_is_stopped_by_the_breaker(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db", items=200)
    always_503 = Faults(server_error=1.0, max_faults_per_prompt=10**9)
    retry = RetryPolicy(max_retries=2, base_delay=0.001, max_delay=0.002)
    with FakeOpenAIServer(faults=always_503, server_error_status=503) as server:
        model = load_chat_model(f"openai/m?base_url={server.base_url}")
        client = ModelClient(model, store, concurrency=4, retry=retry)
        assert client.breaker.threshold == 8  # one wave of 4 calls in flight, and 4 more
        with pytest.raises(RunAborted, match=r"stopped after 8 calls in a row.*HTTP 503"):
            await run_examinee(store, "bench", client)
        await client.aclose()
        requests = server.stats.requests
    # Stopped after the 8th failed call (+ the few in flight), not after 200 items x 3 tries.
    assert 8 * 3 <= requests <= (8 + 4) * 3
    stored = list(iter_responses(store, model=client.spec))
    assert stored and all(r.status is Status.ERROR for r in stored)  # asked again next run


# -- retries made visible ----------------------------------------------------------------------


async def test_each_retry_is_reported_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    events: list[RetryEvent] = []
    with FakeOpenAIServer(faults=Faults(server_error=1.0, max_faults_per_prompt=2)) as server:
        client = ModelClient(
            load_chat_model(f"openai/m?base_url={server.base_url}"),
            None,
            retry=RetryPolicy(max_retries=3, base_delay=0.001),
            on_retry=events.append,
        )
        with caplog.at_level(logging.INFO, logger="lvlmbench"):
            output = await client.generate([Message.user("hi")])
        await client.aclose()
    assert output.ok and output.attempts == 3
    assert [(e.attempt, e.max_retries, e.reason) for e in events] == [
        (1, 3, "HTTP 500"),
        (2, 3, "HTTP 500"),
    ]
    # Logged under the model's identity: which endpoint is retrying is part of the news.
    assert [r.getMessage().split(" in ")[0] for r in caplog.records] == [
        f"openai/m?base_url={server.base_url}: retry 1/3",
        f"openai/m?base_url={server.base_url}: retry 2/3",
    ]


def test_evaluate_prints_failures_grouped_by_reason(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _store(db, items=3)
    with RecordingServer() as server:
        server.reply({"object": "list", "data": []})  # the preflight
        for _ in range(3):
            server.reply({"error": {"message": "image too large"}}, status=400)
        spec = f"openai/m?base_url={server.url}/v1"
        result = runner.invoke(app, ["evaluate", "bench", "-m", spec, "--store", str(db)])
    assert result.exit_code == 1, result.output
    identity = f"openai/m?base_url={server.url}/v1"  # failures are told under the identity
    assert f"{identity}: not ok: 3 by reason" in result.output
    assert f"3  {identity}: HTTP 400: image too large" in result.output


# -- secrets -----------------------------------------------------------------------------------

KEY = "sk-test-echoed-0123456789abcdef"


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


@pytest.mark.timeout(60)
def test_a_key_echoed_by_the_server_is_nowhere_on_disk_or_in_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAKY_KEY", KEY)
    db = tmp_path / "s.db"
    _store(db, items=8)
    with FakeOpenAIServer(echo_key=True) as server:
        spec = f"openai/m?base_url={server.base_url}&api_key_env=LEAKY_KEY"
        verbose = runner.invoke(
            app, ["-v", "evaluate", "bench", "-m", spec, "--store", str(db), "--by", "difficulty"]
        )
        as_json = runner.invoke(
            app, ["evaluate", "bench", "-m", spec, "--store", str(db), "--json"]
        )
        check = runner.invoke(app, ["models", "check", spec, "--json"])
        assert server.stats.answered and server.stats.probes >= 2
    report = runner.invoke(
        app, ["report", "--out", str(tmp_path / "out" / "report.html"), "--store", str(db)]
    )
    for result in (verbose, as_json, check, report):
        assert result.exit_code == 0, result.output
        assert KEY not in result.output
    # The server really echoed it, and what was stored kept the answer around the mask.
    assert "(you sent Bearer ***)" in json.loads(check.output)["reply"]
    responses = list(iter_responses(Store.open(str(db))))
    assert len(responses) == 8 and all("Bearer ***" in r.text for r in responses)
    written = _files_under(tmp_path)
    assert any(p.suffix == ".html" for p in written) and any(p.name == "s.db" for p in written)
    for path in written:  # the SQLite file and its journals, images, report, summary, CSVs
        assert KEY.encode() not in path.read_bytes(), path


def test_log_records_are_masked_whatever_the_handler(caplog: pytest.LogCaptureFixture) -> None:
    register_secret("tok-logged-abcdef123456")
    install_log_redaction()
    install_log_redaction()  # idempotent: one wrapper, not two
    with caplog.at_level(logging.INFO, logger="lvlmbench.test"):
        logging.getLogger("lvlmbench.test").info("sent %s", "tok-logged-abcdef123456")
        try:
            raise ValueError("bad key tok-logged-abcdef123456")
        except ValueError:
            logging.getLogger("lvlmbench.test").exception("failed")
    assert "tok-logged-abcdef123456" not in caplog.text
    assert "sent ***" in caplog.text and "bad key ***" in caplog.text


@pytest.mark.timeout(30)
def test_judging_with_a_dead_judge_stops_at_once(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _open_store(db, items=4)
    judge = f"openai/j?base_url=http://127.0.0.1:{_closed_port()}/v1"
    args = ["judge", "pairwise", "bench", "-m", "baseline/prior", "-m", "baseline/random"]
    result = runner.invoke(app, [*args, "-j", judge, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert f"{judge}: cannot reach" in result.output and "Connection refused" in result.output
    assert Store.open(str(db)).count(tables.judgments) == 0
