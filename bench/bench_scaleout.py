"""Scale-out: throughput with 1, 2 and 4 worker processes on one store, 1 and 2 endpoint replicas.

W separate ``lvlmbench evaluate`` processes (each with ``--concurrency`` K) start together on
one store; store leases make them split the items. The endpoint is the local fake server
serving C requests at a time per replica with latency L, so one replica saturates at C/L
answers a second. Throughput is counted at the server: answers between its first and last
answer (process start-up and imports are left out; the whole wall time is in the note).
A prompt answered more than once is an answer paid twice (target: 0).

Replicas: two fake servers behind one model spec (``base_url=A,B&deployment=...``: requests
go to the replica with the fewest in flight), so two replicas saturate at 2·C/L. Stores: SQLite
always; PostgreSQL on the database ``LVLMBENCH_BENCH_PG_URL`` names (``postgresql+psycopg://...``),
else on a throwaway server started as the tests start theirs (Debian's ``initdb``/``pg_ctl`` in a
temp dir) when PostgreSQL and psycopg are installed, else its rows print "skipped".

Run: ``python bench/bench_scaleout.py [--items N] [--latency-ms L] [--server-concurrency C]
[--worker-concurrency K]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_leases import ROOT
from fake_openai_server import FakeOpenAIServer, _answer  # on sys.path via bench_leases
from figures import emit
from pg_server import postgres_missing, start_postgres
from text_items import fill_text_items

from lvlmbench.store import Store, iter_benchmark_responses

NAME = "scaleout"
PG_ENV = "LVLMBENCH_BENCH_PG_URL"
WORKERS = (1, 2, 4)


class AnswerClock:
    """The fake server's answer function, noting when each answer went out."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self._lock:
            self.times.append(time.perf_counter())
        return _answer(prompt)

    def rate(self) -> float:
        """Answers a second between the first and the last answer."""
        if len(self.times) < 2:
            return 0.0
        return (len(self.times) - 1) / (self.times[-1] - self.times[0])


def fill(url: str, n: int, benchmark: str) -> None:
    """A benchmark of ``n`` distinct text-only four-option items (one per run, so runs can
    share one PostgreSQL database)."""
    store = Store.open(url)
    fill_text_items(store, benchmark, n)
    store.close()


def count_responses(url: str, benchmark: str) -> int:
    store = Store.open(url)
    try:
        return sum(1 for _ in iter_benchmark_responses(store, benchmark))
    finally:
        store.close()


def run_workers(url: str, benchmark: str, base_url: str, workers: int, concurrency: int) -> float:
    """Wall seconds for ``workers`` evaluate processes of one model started together
    (``base_url``: one URL or a comma-separated replica list; ``concurrency`` is per replica)."""
    cmd = [sys.executable, "-m", "lvlmbench", "evaluate", benchmark, "--json", "--store", url]
    spec = f"openai/fake?base_url={base_url}&deployment=scaleout"
    cmd += ["-m", spec, "--concurrency", str(concurrency)]
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT / "src"))}
    started = time.perf_counter()
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        for _ in range(workers)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"evaluate failed ({proc.returncode}): {err.decode()[-2000:]}")
    return time.perf_counter() - started


def measure(
    url: str, workers: int, args: argparse.Namespace, replicas: int = 1
) -> dict[str, float]:
    benchmark = f"scaleout-{replicas}r{workers}w-{os.getpid()}"
    fill(url, args.items, benchmark)
    clock = AnswerClock()
    servers = [
        FakeOpenAIServer(
            latency_s=args.latency_ms / 1000, concurrency=args.server_concurrency, answer=clock
        )
        for _ in range(replicas)
    ]
    with contextlib.ExitStack() as stack:
        for server in servers:
            stack.enter_context(server)
        base_url = ",".join(server.base_url for server in servers)
        wall = run_workers(url, benchmark, base_url, workers, args.worker_concurrency)
        answered: dict[str, int] = {}
        for server in servers:  # a prompt answered by either replica, or by both, is counted
            for prompt, count in server.stats.per_prompt.items():
                answered[prompt] = answered.get(prompt, 0) + count
        return {
            "rate": clock.rate(),
            "wall": wall,
            "requests": sum(server.stats.requests for server in servers),
            "twice": sum(count - 1 for count in answered.values() if count > 1),
            "answered": count_responses(url, benchmark),
        }


def report(
    store_kind: str,
    workers: int,
    got: dict[str, float],
    args: argparse.Namespace,
    replicas: int = 1,
) -> None:
    ceiling = replicas * args.server_concurrency / (args.latency_ms / 1000)
    # --concurrency is per replica: each worker keeps up to K calls in flight on every replica.
    demand = replicas * workers * args.worker_concurrency / (args.latency_ms / 1000)
    label = f"{replicas} replica{'s' * (replicas > 1)}"
    setting = (
        f"{store_kind}, {workers} worker(s) × K={args.worker_concurrency}, {label} C="
        f"{args.server_concurrency}, L={args.latency_ms:.0f} ms, {args.items:,} items"
    )
    ok = got["twice"] == 0 and got["answered"] == args.items
    note = (
        f"{setting}; {got['requests']:,} requests, {got['answered']:,} answered, "
        f"{got['twice']} paid twice; wall {got['wall']:.2f} s with start-up; ideal "
        f"min(W·K, C)/L = {min(demand, ceiling):.0f}/s; load average "
        + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    print(
        f"{store_kind:<10} replicas={replicas} workers={workers}: {got['rate']:7.1f} answers/s "
        f"(ideal {min(demand, ceiling):.0f}/s, ceiling {ceiling:.0f}/s), {got['twice']} paid "
        f"twice, {got['answered']:,}/{args.items:,} answered, wall {got['wall']:.2f} s"
    )
    emit(
        NAME,
        f"{store_kind}, {label}, {workers} workers: throughput",
        got["rate"],
        "/s",
        "rises until C/L",
        None,
        note,
    )
    emit(
        NAME,
        f"{store_kind}, {label}, {workers} workers: paid twice",
        got["twice"],
        "",
        "0",
        ok,
        note,
    )


def missing(store_kind: str, replicas: int, reason: str) -> None:
    for workers in WORKERS:
        print(f"{store_kind:<10} replicas={replicas} workers={workers}: {reason}")
        emit(
            NAME,
            f"{store_kind}, {replicas} replica{'s' * (replicas > 1)}, {workers} workers: "
            "throughput",
            None,
            "/s",
            "rises until saturated",
            None,
            reason,
        )


def curve(store_kind: str, url: str, args: argparse.Namespace) -> None:
    for replicas in (1, 2):
        rates = []
        for workers in WORKERS:
            got = measure(url, workers, args, replicas)
            report(store_kind, workers, got, args, replicas)
            rates.append(got["rate"])
        label = f"{replicas} replica{'s' * (replicas > 1)}"
        emit(
            NAME,
            f"{store_kind}, {label}: throughput 2 workers / 1",
            rates[1] / rates[0],
            "×",
            "> 1 (below saturation)",
            rates[1] > rates[0] * 1.3,
            ", ".join(f"{r:.0f}/s" for r in rates),
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--server-concurrency", type=int, default=24)
    parser.add_argument("--worker-concurrency", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        curve("SQLite", str(Path(tmp) / "store.db"), args)
    pg = os.environ.get(PG_ENV)
    if pg:  # each run on its own benchmark name, so one database holds them all
        curve("PostgreSQL", pg, args)
        return
    reason = postgres_missing()
    if reason is None:  # a throwaway server, as the tests start one
        with contextlib.closing(start_postgres()) as servers:
            curve("PostgreSQL", next(servers).new_database(), args)
        return
    reason = f"skipped: {reason}, or set {PG_ENV} to a PostgreSQL store URL"
    missing("PostgreSQL", 1, reason)
    missing("PostgreSQL", 2, reason)


if __name__ == "__main__":
    main()
