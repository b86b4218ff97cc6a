"""kill -9 a running evaluation at seeded random moments, resume, and compare with a clean run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_runs import count_rows
from fake_openai_server import FakeOpenAIServer
from quiz_store import put_numbered_quiz

from lvlmbench.store import Store, iter_responses

ITEMS = 150
BENCH = "killable"


def _store(path: Path) -> None:
    put_numbered_quiz(Store.open(str(path)), BENCH, ITEMS, "B").close()


def _evaluate(db: Path, url: str) -> subprocess.Popen[bytes]:
    spec = f"openai/fake?base_url={url}"
    cmd = [sys.executable, "-m", "lvlmbench", "evaluate", BENCH, "-m", spec]
    cmd += ["--concurrency", "4", "--store", str(db)]
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)


def _final(db: Path) -> dict[str, Any]:
    store = Store.open(str(db))
    try:
        return {
            r.item_id: (r.text, r.extracted, r.status)
            for r in iter_responses(store, variant="default")
        }
    finally:
        store.close()


@pytest.mark.timeout(180)
def test_killed_evaluations_resume_to_the_same_store(tmp_path: Path) -> None:
    clean, killed = tmp_path / "clean.db", tmp_path / "killed.db"
    _store(clean)
    _store(killed)
    moments = sorted(random.Random(7).sample(range(10, ITEMS - 20), 3))
    with FakeOpenAIServer(latency_s=0.02, concurrency=4) as server:
        assert _evaluate(clean, server.base_url).wait(timeout=120) == 0
        first_requests = server.stats.requests
        assert first_requests == ITEMS

        for moment in moments:
            proc = _evaluate(killed, server.base_url)
            deadline = time.monotonic() + 60
            while count_rows(killed, "cache") < moment and proc.poll() is None:
                assert time.monotonic() < deadline, "the evaluation made no progress"
                time.sleep(0.02)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        before_last = server.stats.requests
        cached = count_rows(killed, "cache")
        assert cached < ITEMS  # the last kill really interrupted it
        proc = _evaluate(killed, server.base_url)
        assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
        # The final run asked only for what no earlier run had finished: finished calls are in
        # the cache and never paid for twice (responses not yet flushed are rebuilt from it).
        assert server.stats.requests - before_last == ITEMS - cached

    assert _final(killed) == _final(clean)
    assert len(_final(killed)) == ITEMS
