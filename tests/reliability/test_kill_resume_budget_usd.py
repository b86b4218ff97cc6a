"""kill -9 a money-capped budgeted evaluation, resume it with the same cap: it pays for nothing
twice and ends where an uninterrupted run ends (same items, same cost, same decision), because
the cap counts the answers used, whether paid now or found stored."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_runs import count_rows
from fake_openai_server import FakeOpenAIServer

from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

BENCH = "killable"
ITEMS = 200
CAP = "2"  # $0.052 an item: rounds of 1, 1, 2, 4, 8, 16 items, then 6 more at most


def _store(path: Path) -> None:
    store = Store.open(str(path))
    put_benchmark(store, BENCH, "test", {})
    put_items(
        store,
        [
            BenchmarkItem(
                id=f"k{i:04d}",
                benchmark=BENCH,
                kind="mc",
                question=f"Question {i}?",
                options={"A": "one", "B": "two", "C": "three", "D": "four"},
                answer="B",
                meta={"difficulty": ("easy", "hard")[i % 2]},
            )
            for i in range(ITEMS)
        ],
    )
    store.close()


def _evaluate(db: Path, url: str) -> subprocess.Popen[bytes]:
    specs = [f"openai/{name}?base_url={url}&price=1000,2000" for name in ("a", "b")]
    cmd = [sys.executable, "-m", "lvlmbench", "evaluate", BENCH, "-m", specs[0], "-m", specs[1]]
    cmd += ["--until", "compare", "--budget-usd", CAP, "--concurrency", "2"]
    cmd += ["--store", str(db), "--json"]
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _finish(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    budget: dict[str, Any] = json.loads(out)["budget"]
    return budget


@pytest.mark.timeout(180)
def test_a_killed_money_capped_run_resumes_to_the_same_end(tmp_path: Path) -> None:
    clean, killed = tmp_path / "clean.db", tmp_path / "killed.db"
    _store(clean)
    _store(killed)
    with FakeOpenAIServer(latency_s=0.02, concurrency=2) as server:
        whole = _finish(_evaluate(clean, server.base_url))
        paid_whole = server.stats.requests
        used = whole["items_used"]
        assert 32 <= used <= 38 and paid_whole == 2 * used
        assert whole["money"]["used_usd"] <= float(CAP)

        proc = _evaluate(killed, server.base_url)
        deadline = time.monotonic() + 60
        while count_rows(killed, "cache") < 24 and proc.poll() is None:
            assert time.monotonic() < deadline, "the evaluation made no progress"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        cached = count_rows(killed, "cache")
        assert 24 <= cached < 2 * used  # the kill really interrupted it
        before = server.stats.requests
        resumed = _finish(_evaluate(killed, server.base_url))
        # Only what the killed run had not finished is asked (finished calls are cached).
        assert server.stats.requests - before == 2 * used - cached

    assert resumed["money"]["paid_usd"] < whole["money"]["paid_usd"]
    for key in ("items_used", "rounds", "decision", "order"):
        assert resumed[key] == whole[key]
    assert resumed["money"]["used_usd"] == pytest.approx(whole["money"]["used_usd"])
