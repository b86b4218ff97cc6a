"""Orchestration overhead, resume and memory of the evaluation runner, against the ideal.

1. Overhead: N items through lvlmbench's runner and openai provider against a local
   OpenAI-compatible server with a fixed latency L and a concurrency cap C. The ideal wall time
   is N·L/C; the ratio to it is what lvlmbench adds (target ≤ 1.05 at N=10,000, C=64, L=50 ms;
   bench_peer.py measures a bare aiohttp client against the same server as the floor).
2. Resume: the same evaluation again: it must make zero requests (target < 5 s).
3. Memory: peak RSS of a whole evaluation at 10,000 and 100,000 items, each in a fresh process
   (target growth < 1.5×: items and responses are streamed, never held).

Run: ``python bench/bench_orchestration.py [--items N] [--latency-ms L] [--concurrency C]``.
Each figure is also appended as a JSON line to ``$LVLMBENCH_BENCH_JSON`` when it is set (see
bench/figures.py), with the load average beside it: the machine is shared, timings are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from figures import emit
from PIL import Image

from lvlmbench.ids import content_id
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

BENCHMARK = "bench-orchestration"
NAME = "orchestration"


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _image(store: Store) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 40, 40)).save(buffer, format="PNG")
    return store.put_image(buffer.getvalue())


def make_store(path: Path, n: int) -> Store:
    """A store holding one benchmark of ``n`` four-option items sharing one small image."""
    store = Store.open(str(path))
    image = _image(store)
    put_benchmark(store, BENCHMARK, "bench", {"items": n})

    def items() -> object:
        for i in range(n):
            yield BenchmarkItem(
                id=content_id("bench", i),
                benchmark=BENCHMARK,
                kind="mc",
                question=f"Question {i}: which shape is red?",
                options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
                answer="ABCD"[i % 4],
                images=[image],
            )

    put_items(store, items())  # type: ignore[arg-type]
    return store


async def evaluate(store: Store, spec: str, concurrency: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of this process, requests made) for one evaluation."""
    client = ModelClient(load_chat_model(spec), store, concurrency=concurrency)
    started, cpu = time.perf_counter(), time.process_time()
    summary = await run_examinee(store, BENCHMARK, client)
    await client.aclose()
    return time.perf_counter() - started, time.process_time() - cpu, summary.requests


@contextlib.contextmanager
def server_process(latency_s: float, concurrency: int, sigma: float = 0.0) -> Iterator[str]:
    """The fake server in its own process (its own core and GIL), yielding its base URL;
    ``sigma`` > 0 makes its latencies lognormal with median ``latency_s`` (seed 0).

    Its timers are precise to microseconds (``--precise-timers``): on epoll's millisecond
    timeouts each answer left up to 1 ms late, and the bare client's floor was 1.05× the ideal
    at L = 50 ms, C = 64 instead of 1.03× (same machine, same run)."""
    script = Path(__file__).resolve().parents[1] / "tests" / "fake_openai_server.py"
    args = [sys.executable, str(script), "--latency-ms", str(latency_s * 1000)]
    args += ["--latency-sigma", str(sigma), "--precise-timers"]
    proc = subprocess.Popen(
        [*args, "--concurrency", str(concurrency)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


def _overhead(
    n: int, latency_s: float, concurrency: int, wall: float, cpu: float, requests: int
) -> tuple[str, str, str]:
    ideal = n * latency_s / concurrency
    ratio, cpu_ms = wall / ideal, 1000 * cpu / max(1, requests)
    setting = f"{n:,} items, L={latency_s * 1000:.0f} ms, C={concurrency}"
    note = f"{setting}; {wall:.2f} s, ideal {ideal:.2f} s; {requests:,} requests; {_load()}"
    emit(NAME, "evaluation wall time / ideal", ratio, "×", "≤ 1.05", ratio <= 1.05, note)
    emit(NAME, "client CPU per request", cpu_ms, "ms", "—", None, f"{setting}; {_load()}")
    return (
        f"evaluate {setting}",
        f"{wall:.2f} s (ideal {ideal:.2f} s, ratio {ratio:.3f}; {requests:,} "
        f"requests, client CPU {cpu_ms:.2f} ms/request)",
        "ratio ≤ 1.05",
    )


def _resume(n: int, wall: float, requests: int) -> tuple[str, str, str]:
    ok = requests == 0 and wall < 5
    note = f"{n:,} items, {requests} requests; {_load()}"
    emit(NAME, "resume of a finished evaluation", wall, "s", "< 5 s, 0 requests", ok, note)
    return (
        f"re-run the finished {n:,}-item evaluation",
        f"{wall:.2f} s, {requests} requests",
        "0 requests, < 5 s",
    )


def overhead_and_resume(n: int, latency_s: float, concurrency: int) -> list[tuple[str, str, str]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp, server_process(latency_s, concurrency) as url:
        store = make_store(Path(tmp) / "s.db", n)
        spec = f"openai/fake?base_url={url}"
        wall, cpu, requests = asyncio.run(evaluate(store, spec, concurrency))
        rows.append(_overhead(n, latency_s, concurrency, wall, cpu, requests))
        wall, _, requests = asyncio.run(evaluate(store, spec, concurrency))
        rows.append(_resume(n, wall, requests))
        store.close()
    return rows


def _peak_rss_child(n: int) -> None:
    """Child mode: build an n-item store, evaluate baseline/random, print peak RSS in MiB."""
    with tempfile.TemporaryDirectory() as tmp:
        store = make_store(Path(tmp) / "s.db", n)
        wall, _, _ = asyncio.run(evaluate(store, "baseline/random", 16))
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"items": n, "peak_mib": peak_kib / 1024, "wall_s": wall}))


def memory(sizes: tuple[int, ...]) -> list[tuple[str, str, str]]:
    peaks = []
    for n in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--rss-child", str(n)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "LVLMBENCH_WORKERS": "0"},
        )
        peaks.append(json.loads(out.stdout.strip().splitlines()[-1]))
    growth = peaks[-1]["peak_mib"] / peaks[0]["peak_mib"]
    shown = ", ".join(f"{p['items']:,}: {p['peak_mib']:.0f} MiB" for p in peaks)
    note = f"peak RSS {shown}; {_load()}"
    figure = f"peak RSS growth, {sizes[0]:,} → {sizes[-1]:,} items"
    emit(NAME, figure, growth, "×", "< 1.5×", growth < 1.5, note)
    return [
        (f"peak RSS, {sizes[0]:,} vs {sizes[-1]:,} items", f"{shown} (×{growth:.2f})", "< 1.5×")
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--memory-items", type=int, nargs=2, default=(10_000, 100_000))
    parser.add_argument("--rss-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        _peak_rss_child(args.rss_child)
        return
    rows = overhead_and_resume(args.items, args.latency_ms / 1000, args.concurrency)
    rows += memory(tuple(args.memory_items))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'result':<70}  target")
    for name, result, target in rows:
        print(f"{name:<{width}}  {result:<70}  {target}")


if __name__ == "__main__":
    main()
