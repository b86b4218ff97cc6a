"""Two `lvlmbench evaluate` processes on one store, started together: every answer is paid
for once (the fake server counts the requests per prompt; every item's prompt is distinct)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from quiz_store import put_numbered_quiz

from lvlmbench.store import Store
from lvlmbench.store import _schema as tables

ITEMS = 120
BENCH = "shared"


def _store(path: Path | str) -> None:
    put_numbered_quiz(Store.open(str(path)), BENCH, ITEMS, "B").close()


@pytest.mark.timeout(180)
def test_two_processes_on_one_store_pay_for_no_answer_twice(store_url: str) -> None:
    db = store_url
    _store(db)
    with FakeOpenAIServer(latency_s=0.02, concurrency=64) as server:
        cmd = [sys.executable, "-m", "lvlmbench", "evaluate", BENCH, "--json"]
        cmd += ["-m", f"openai/fake?base_url={server.base_url}", "--concurrency", "4"]
        cmd += ["--store", str(db)]
        procs = [
            subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ)
            for _ in range(2)
        ]
        for proc in procs:
            _, err = proc.communicate(timeout=150)
            assert proc.returncode == 0, err.decode()
        paid_twice = {p: n for p, n in server.stats.per_prompt.items() if n > 1}
        assert paid_twice == {}
        assert server.stats.requests == ITEMS
    store = Store.open(str(db))
    try:
        assert store.count(tables.responses) == ITEMS
        assert store.count(tables.leases) == 0
    finally:
        store.close()
