"""Several processes evaluating the same model on one store: does any answer get paid twice?

P processes of ``lvlmbench evaluate`` start together on one SQLite store against a local
OpenAI-compatible server that counts the requests per prompt. Every item's prompt is distinct,
so a prompt asked more than once is an answer paid for twice (target: 0 for P = 2 and 4). Also
printed: the wall time of the P processes against one process doing all the work alone.

Run: ``python bench/bench_leases.py [--items N] [--latency-ms L] [--concurrency C]``.
Each figure is also appended as a JSON line to ``$LVLMBENCH_BENCH_JSON`` when it is set (see
bench/figures.py).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import emit
from text_items import fill_text_items

from lvlmbench.store import Store
from lvlmbench.store import _schema as tables

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from fake_openai_server import FakeOpenAIServer  # noqa: E402

BENCHMARK = "bench-leases"
NAME = "leases"


def make_store(path: Path, n: int) -> None:
    """A store holding one benchmark of ``n`` text-only four-option items."""
    store = Store.open(str(path))
    fill_text_items(store, BENCHMARK, n)
    store.close()


def answered(path: Path) -> int:
    store = Store.open(str(path))
    try:
        return store.count(tables.responses)
    finally:
        store.close()


def run_processes(db: Path, url: str, processes: int, concurrency: int) -> float:
    """Wall seconds for ``processes`` evaluations of one model started together on ``db``."""
    cmd = [sys.executable, "-m", "lvlmbench", "evaluate", BENCHMARK, "--json"]
    cmd += ["-m", f"openai/fake?base_url={url}", "--concurrency", str(concurrency)]
    cmd += ["--store", str(db)]
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT / "src"))}
    started = time.perf_counter()
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        for _ in range(processes)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"evaluate failed ({proc.returncode}): {err.decode()[-2000:]}")
    return time.perf_counter() - started


def measure(n: int, processes: int, latency_s: float, concurrency: int) -> dict[str, float]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeOpenAIServer(latency_s=latency_s, concurrency=1024) as server,
    ):
        db = Path(tmp) / "store.db"
        make_store(db, n)
        wall = run_processes(db, server.base_url, processes, concurrency)
        twice = sum(count - 1 for count in server.stats.per_prompt.values() if count > 1)
        return {
            "wall": wall,
            "requests": server.stats.requests,
            "twice": twice,
            "answered": answered(db),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    alone = measure(args.items, 1, latency, args.concurrency)
    print(f"1 process: {alone['requests']} requests for {args.items} items, {alone['wall']:.2f} s")
    for processes in (2, 4):
        got = measure(args.items, processes, latency, args.concurrency)
        setting = f"{args.items} items, L={args.latency_ms:.0f} ms, C={args.concurrency} each"
        note = (
            f"{setting}; {got['requests']} requests, {got['answered']} answered; "
            f"{got['wall']:.2f} s vs {alone['wall']:.2f} s for one process"
        )
        print(
            f"{processes} processes: {got['requests']} requests for {args.items} items, "
            f"{got['twice']} paid twice, {got['answered']} answered, {got['wall']:.2f} s"
        )
        emit(
            NAME,
            f"answers paid twice, {processes} processes",
            got["twice"],
            "",
            "0",
            got["twice"] == 0 and got["answered"] == args.items,
            note,
        )
        emit(
            NAME,
            f"wall time, {processes} processes / 1",
            got["wall"] / alone["wall"],
            "×",
            "—",
            None,
            note,
        )


if __name__ == "__main__":
    main()
