"""``bench/bench_local.py --tiny``, the GPU bench run on the CPU as CI runs it: every part
reports, every answer is exactly max_tokens long (the special tokens' output rows are zeroed),
and lvlmbench answers exactly as the bare transformers loop does (greedy, float32), whole
batches and continuous batching alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

pytestmark = pytest.mark.integration

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_local.py"


def test_bench_local_tiny_answers_as_the_bare_loop(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("LVLMBENCH_BENCH_JSON", None)
    done = subprocess.run(
        [sys.executable, str(BENCH), "--tiny", "--variants", "continuous=true", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "failed" not in done.stdout, done.stdout[-3000:]
    rows = json.loads(out.read_text(encoding="utf-8"))
    parts = [row["part"] for row in rows]
    assert parts == ["model", "fixed", "fixed", "uneven", "auto"]
    assert rows[0]["card"] == "CPU" and rows[0]["dtype"] == "float32"
    for row in rows[1:3]:
        assert row["exact_lengths"] is True
        assert row["answers_equal_bare"] == f"{row['items']}/{row['items']}"
        assert row["continuous=true"]["answers_equal_bare"] == row["answers_equal_bare"]
        # Whole batches: one generate call per batch of items, none cut short.
        assert row["calls"] == -(-row["items"] // row["batch"])
    uneven, auto = rows[3], rows[4]
    assert auto["batch_chosen"] == [8] and auto["exact_lengths"] is True  # auto on a CPU: 8
    assert uneven["shortest"] < uneven["mean_tokens"] < 12  # the rows did stop unevenly
    assert (
        uneven["continuous=true"]["answers_equal_default"] == f"{uneven['items']}/{uneven['items']}"
    )
