"""`--workers N`: N local processes of one command split the work through leases in the store,
on SQLite and on PostgreSQL. The fake server counts requests per prompt (every item's prompt is
distinct), so a unit paid twice shows as a prompt asked twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer

from lvlmbench.ids import content_id
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem

BENCH = "workers"


def _fill(url: str, items: int) -> None:
    store = Store.open(url)
    put_benchmark(store, BENCH, "test", {})
    questions = [
        BenchmarkItem(
            id=content_id(BENCH, i),
            benchmark=BENCH,
            kind="mc",
            question=f"Question {i}?",
            options={"A": "one", "B": "two", "C": "three", "D": "four"},
            answer="B",
        )
        for i in range(items)
    ]
    put_items(store, questions)
    store.close()


def _evaluate(url: str, server: FakeOpenAIServer, *extra: str) -> list[str]:
    cmd = [sys.executable, "-m", "lvlmbench", "evaluate", BENCH, "--store", url]
    return [*cmd, "-m", f"openai/fake?base_url={server.base_url}", *extra]


def _env(tmp_path: Path, lease_s: float = 60.0) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LVLMBENCH_STORE"}
    return env | {"LVLMBENCH_IMAGES": str(tmp_path / "images"), "LVLMBENCH_LEASE_S": str(lease_s)}


def _counts(url: str) -> tuple[int, int]:
    store = Store.open(url)
    try:
        return store.count(tables.responses, status="ok"), store.count(tables.leases)
    finally:
        store.close()


@pytest.mark.timeout(180)
def test_two_workers_answer_every_item_once(store_url: str, tmp_path: Path) -> None:
    _fill(store_url, 80)
    with FakeOpenAIServer(latency_s=0.02, concurrency=64) as server:
        cmd = _evaluate(store_url, server, "--workers", "2", "--concurrency", "4", "--json")
        done = subprocess.run(cmd, capture_output=True, env=_env(tmp_path), timeout=150)
        assert done.returncode == 0, done.stderr.decode()
        assert {p: n for p, n in server.stats.per_prompt.items() if n > 1} == {}
        assert server.stats.requests == 80
    run = json.loads(done.stdout)["runs"][0]
    assert (run["ok"], run["total"], run["skipped"], run["requests"]) == (80, 80, 0, 80)
    assert _counts(store_url) == (80, 0)


@pytest.mark.timeout(180)
def test_a_killed_worker_s_items_are_taken_over_after_its_lease(
    store_url: str, tmp_path: Path
) -> None:
    _fill(store_url, 30)
    env = _env(tmp_path, lease_s=2.0)
    with FakeOpenAIServer(latency_s=0.5, concurrency=2) as server:
        doomed = subprocess.Popen(
            _evaluate(store_url, server, "--concurrency", "2", "--json"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        deadline = time.monotonic() + 60
        while _counts(store_url)[1] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        held = _counts(store_url)[1]
        assert held > 0  # it died holding leases, which nobody releases
        server.latency_s = 0.01
        cmd = _evaluate(store_url, server, "--workers", "2", "--concurrency", "4", "--json")
        done = subprocess.run(cmd, capture_output=True, env=env, timeout=150)
        assert done.returncode == 0, done.stderr.decode()
        repeats = sum(n - 1 for n in server.stats.per_prompt.values() if n > 1)
    # Only what the dead worker had in flight (at most its concurrency) was asked again.
    assert repeats <= 2
    assert _counts(store_url) == (30, 0)
