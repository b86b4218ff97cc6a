"""A run resumed right after ``kill -9`` takes the dead run's leases over at once, on SQLite and
PostgreSQL, for evaluate and for judges; a lease from another host is waited for, and the run
says for whom. The lease period is set to an hour: a resume that waited for the dead run's
leases to expire would not finish within the test's timeout."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from reliability.test_workers import _answers, _counts, _env, _evaluate, _fill, _visit_csv

from lvlmbench.models import model_identity
from lvlmbench.store import Store, iter_items, response_id
from lvlmbench.store import _schema as tables

HOUR = 3600.0
OTHER_HOST = "elsewhere.invalid:4242:0123456789ab"
"""The owner id of a run on another host."""


def _kill_once_leased(cmd: list[str], url: str, env: dict[str, str]) -> int:
    """Start ``cmd``, SIGKILL it once it holds leases; the leases it left behind."""
    doomed = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 60
    while _leases(url) == 0 and doomed.poll() is None:
        assert time.monotonic() < deadline, "the run took no lease"
        time.sleep(0.05)
    doomed.send_signal(signal.SIGKILL)
    doomed.wait()
    return _leases(url)


def _leases(url: str) -> int:
    store = Store.open(url)
    try:
        return store.count(tables.leases)
    finally:
        store.close()


def _owned_by(url: str, owner: str) -> int:
    store = Store.open(url)
    try:
        return store.count(tables.leases, owner=owner)
    finally:
        store.close()


@pytest.mark.timeout(180)
def test_an_evaluation_resumed_after_kill_9_does_not_wait(store_url: str, tmp_path: Path) -> None:
    _fill(store_url, 30)
    env = _env(tmp_path, lease_s=HOUR)
    with FakeOpenAIServer(latency_s=0.5, concurrency=4) as server:
        cmd = _evaluate(store_url, server, "--concurrency", "4", "--json")
        assert _kill_once_leased(cmd, store_url, env) > 0  # an hour's leases nobody releases
        server.latency_s = 0.01
        done = subprocess.run(cmd, capture_output=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        repeats = sum(n - 1 for n in server.stats.per_prompt.values() if n > 1)
    assert "waiting for" not in done.stderr.decode()
    assert repeats <= 4  # only what the dead run had in flight was asked again
    assert _counts(store_url) == (30, 0)


@pytest.mark.timeout(180)
def test_a_judge_resumed_after_kill_9_does_not_wait(store_url: str, tmp_path: Path) -> None:
    env = _env(tmp_path, lease_s=HOUR)
    lvlmbench = _evaluate(store_url, FakeOpenAIServer())[:3]  # python -m lvlmbench
    csv_path = _visit_csv(tmp_path, 12)
    command = [*lvlmbench, "import", str(csv_path), "-f", "visit", "--name", "visit"]
    imported = subprocess.run(
        [*command, "--store", store_url],
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert imported.returncode == 0, imported.stderr.decode()
    _answers(store_url, ["team/a", "team/b"])
    with FakeOpenAIServer(latency_s=0.5, concurrency=4) as server:
        cmd = [*lvlmbench, "judge", "pairwise", "visit", "-m", "team/a", "-m", "team/b"]
        cmd += ["-j", f"openai/judge?base_url={server.base_url}", "--store", store_url]
        cmd += ["--concurrency", "4", "--json"]
        assert _kill_once_leased(cmd, store_url, env) > 0
        server.latency_s = 0.01
        done = subprocess.run(cmd, capture_output=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
    assert "waiting for" not in done.stderr.decode()
    store = Store.open(store_url)
    try:  # 12 items x 1 pair x 2 orders, all judged; no lease left
        assert store.count(tables.judgments) == 24
        assert store.count(tables.judgments, status="error") == 0
        assert store.count(tables.leases) == 0
    finally:
        store.close()


def _foreign_leases(url: str, units: list[str], expires_at: float) -> None:
    """Leases of ``units`` held by a run on another host (whose pid means nothing here)."""
    store = Store.open(url)
    try:
        store.put_rows(
            tables.leases,
            [
                {
                    "unit": unit,
                    "owner": OTHER_HOST,
                    "expires_at": expires_at,
                    "host": "elsewhere.invalid",
                    "pid": 4242,
                    "started": "boot:ns:1",
                }
                for unit in units
            ],
            replace=True,
        )
    finally:
        store.close()


@pytest.mark.timeout(180)
def test_another_host_s_leases_are_waited_for_and_named(store_url: str, tmp_path: Path) -> None:
    _fill(store_url, 6)
    with FakeOpenAIServer(latency_s=0.01, concurrency=4) as server:
        cmd = _evaluate(store_url, server, "--json")
        spec = model_identity(f"openai/fake?base_url={server.base_url}")
        store = Store.open(store_url)
        try:
            held = [
                response_id(item.id, spec, "default", 0) for item in iter_items(store, "workers")
            ]
        finally:
            store.close()
        _foreign_leases(store_url, held[:2], time.time() + HOUR)
        run = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path), text=True
        )
        assert run.stderr is not None
        said = run.stderr.readline()  # blocks until the run says why it waits
        assert said.startswith("WARNING lvlmbench.runner: waiting for 2 items leased by ")
        assert "elsewhere.invalid:4242 (they expire in 3" in said  # 3599 or 3600 s
        # Not taken early: the two units are still the other host's while the run waits.
        assert _owned_by(store_url, OTHER_HOST) == 2
        _foreign_leases(store_url, held[:2], time.time() - 1)  # now they have expired
        out, rest = run.communicate(timeout=120)
    assert run.returncode == 0, rest
    assert "waiting for" not in rest
    # Once they expired the run took them: every item answered, by this run.
    summary = json.loads(out)["runs"][0]
    assert (summary["ok"], summary["skipped"]) == (6, 0)
    assert _counts(store_url) == (6, 0)


@pytest.mark.timeout(180)
def test_a_terminated_run_releases_its_leases(store_url: str, tmp_path: Path) -> None:
    """SIGTERM (kill, timeout, a scheduler's stop) ends the run through its clean-up: what it
    finished is stored and no lease is left for others to wait on."""
    _fill(store_url, 30)
    env = _env(tmp_path, lease_s=HOUR)
    with FakeOpenAIServer(latency_s=0.5, concurrency=4) as server:
        cmd = _evaluate(store_url, server, "--concurrency", "4", "--json")
        run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 60
        while (server.stats.requests < 4 or _leases(store_url) == 0) and run.poll() is None:
            assert time.monotonic() < deadline, "the run answered nothing"
            time.sleep(0.05)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
        answered = server.stats.requests
    assert _leases(store_url) == 0
    assert run.returncode == 128 + signal.SIGTERM, err.decode()
    assert 4 <= answered < 30
    # What came back before the end was stored, not lost with the process.
    assert _counts(store_url)[0] >= answered - 4


@pytest.mark.timeout(180)
def test_terminating_a_workers_run_stops_its_copies_and_their_leases(
    store_url: str, tmp_path: Path
) -> None:
    _fill(store_url, 40)
    env = _env(tmp_path, lease_s=HOUR)
    with FakeOpenAIServer(latency_s=0.5, concurrency=8) as server:
        cmd = _evaluate(store_url, server, "--workers", "2", "--concurrency", "2")
        run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 60
        while (server.stats.requests < 4 or _leases(store_url) == 0) and run.poll() is None:
            assert time.monotonic() < deadline, "the copies answered nothing"
            time.sleep(0.05)
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=60)
        # The copies ended with it (they used to run on): no lease is left held.
        assert _leases(store_url) == 0, err.decode()
    assert run.returncode == 128 + signal.SIGTERM
