"""How lvlmbench stops (or does not) when the endpoint fails.

1. Dead endpoint: `lvlmbench evaluate` against a closed port and against a host name that does
   not resolve, as a user runs it (a fresh process, imports included): seconds until it exits
   with code 2 and one line (target < 5 s; before the preflight: ~70 s of silent retries).
2. All-5xx endpoint: the same command against a server answering 503 to every call, with the
   default retry policy: the circuit breaker stops it after 20 calls in a row failed (target
   < 5 min; without it every item spent its ~63 s of retries: 360 items / 16 = ~24 min).
3. 50 % faults: 360 items against a server where half the requests fail (429, 500, malformed,
   truncated, dropped), 3 attempts per call: items ok, failed with a reason, paid twice, and
   whether the run aborted (targets: every item ok or failed with its reason, 0, no).

Run: ``python bench/bench_failures.py [--items N]``. Figures also go to
``$LVLMBENCH_BENCH_JSON`` (see bench/figures.py) for bench/summary.py's table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_orchestration import BENCHMARK, make_store
from figures import emit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fake_openai_server import FakeOpenAIServer, Faults

from lvlmbench.models import ModelClient, RetryPolicy, RunAborted, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, iter_responses
from lvlmbench.types import Status

NAME = "failures"


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(*args: str) -> tuple[float, int, str]:
    """(wall seconds, exit status, stderr) of ``lvlmbench ARGS`` in a fresh process."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lvlmbench", *args], capture_output=True, text=True, check=False
    )
    return time.perf_counter() - started, done.returncode, done.stderr.strip()


def dead_endpoints(db: Path) -> None:
    startup, _, _ = cli("--version")
    print(f"  process start-up and imports alone: {startup:.2f} s")
    for label, url in (
        ("closed port", f"http://127.0.0.1:{_closed_port()}/v1"),
        ("unknown host name", "http://no-such-host.invalid/v1"),
    ):
        wall, code, stderr = cli(
            "evaluate", BENCHMARK, "-m", f"openai/m?base_url={url}", "--store", str(db)
        )
        lines = len(stderr.splitlines())
        ok = code == 2 and wall < 5
        print(f"  {label}: exit {code} after {wall:.2f} s, {lines} line(s): {stderr[:150]}")
        note = f"exit {code}, start-up {startup:.2f} s of it; {_load()}"
        emit(NAME, f"dead endpoint ({label}): time to stop", wall, "s", "< 5 s", ok, note)


def all_503(db: Path) -> None:
    faults = Faults(server_error=1.0, max_faults_per_prompt=10**9)
    with FakeOpenAIServer(faults=faults, server_error_status=503) as server:
        spec = f"openai/m?base_url={server.base_url}"
        # C=16 as a remote API gets by default (a server on 127.0.0.1 would get 128).
        wall, code, stderr = cli(
            "evaluate", BENCHMARK, "-m", spec, "--store", str(db), "--concurrency", "16"
        )
        requests = server.stats.requests
    tripped = "calls in a row" in stderr
    last = stderr.splitlines()[-1] if stderr else ""
    print(f"  all-503: exit {code} after {wall:.1f} s, {requests} requests: {last[:240]}")
    note = f"default retries, C=16, {requests} requests, exit {code}; {_load()}"
    ok = tripped and code == 2 and wall < 300
    emit(NAME, "all-503 endpoint: time to stop (breaker)", wall, "s", "< 5 min", ok, note)


async def half_faults(db: Path, items: int) -> None:
    faults = Faults(
        rate_limit=0.1,
        server_error=0.1,
        malformed=0.05,
        truncated=0.125,
        dropped=0.125,
        retry_after_s=0.01,
        max_faults_per_prompt=10**9,
    )
    store = Store.open(str(db))
    aborted = False
    retry = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05)
    with FakeOpenAIServer(concurrency=16, faults=faults, seed=5) as server:
        model = load_chat_model(f"openai/m?base_url={server.base_url}")
        client = ModelClient(model, store, concurrency=16)
        client.retry = retry
        try:
            await run_examinee(store, BENCHMARK, client)
        except RunAborted:
            aborted = True
        await client.aclose()
        stats = server.stats
    responses = list(iter_responses(store, model=client.spec))
    ok = sum(r.status is Status.OK for r in responses)
    with_reason = sum(r.status is Status.ERROR and bool(r.reason) for r in responses)
    paid_twice = sum(n > 1 for n in stats.answered.values())
    share = sum(stats.faults.values()) / max(1, stats.requests)
    print(
        f"  50 % faults ({share:.0%} of {stats.requests} requests): {ok} ok, {with_reason} failed "
        f"with a reason, {paid_twice} paid twice, aborted: {aborted}"
    )
    note = f"{items} items, {share:.0%} faults, 3 attempts a call"
    every = ok + with_reason == items
    emit(NAME, "50 % faults: items ok", ok, "items", "—", None, note)
    emit(NAME, "50 % faults: failed with a reason", with_reason, "items", "ok+failed=all", every)
    emit(NAME, "50 % faults: paid twice", paid_twice, "items", "0", paid_twice == 0, note)
    emit(NAME, "50 % faults: run aborted", int(aborted), "bool", "0", not aborted, note)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=360)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print("dead endpoint")
        db = Path(tmp) / "dead.db"
        make_store(db, args.items)
        dead_endpoints(db)
        print("all-503 endpoint, default retry policy (this takes a few minutes)")
        db = Path(tmp) / "503.db"
        make_store(db, args.items)
        all_503(db)
        print("50 % faults")
        db = Path(tmp) / "half.db"
        make_store(db, args.items)
        asyncio.run(half_faults(db, args.items))


if __name__ == "__main__":
    main()
