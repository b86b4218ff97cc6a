"""A pairwise judge against the ideal: N items × 2 orders through lvlmbench's judge runner.

The judge is the local fake server in its own process (latency L, C answers at a time, the
benchmarks' microsecond timers); the two examinees' answers are in the store already. The
ideal wall time is (judge calls)·L/C; the ratio to it is what the judge runner adds, as
bench_orchestration.py measures for the examinee runner. The fake server's answers carry no
verdict, so every judgment is stored as unparseable: the calls, prompts, cache rows and
judgments are those of a real run, only the verdicts are missing.

Run: ``python bench/bench_judges.py [--items N] [--latency-ms L] [--concurrency C]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from bench_orchestration import server_process
from figures import emit

from lvlmbench.judging import run_pairwise
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response

BENCHMARK = "bench-judges"
NAME = "judges"
MODELS = ("bench/model-a", "bench/model-b")


def make_store(path: Path, n: int) -> Store:
    """``n`` open-ended items, each answered by both models."""
    store = Store.open(str(path))
    put_benchmark(store, BENCHMARK, "bench", {"items": n})
    items = [
        BenchmarkItem(
            id=f"judged-{i}",
            benchmark=BENCHMARK,
            kind="open",
            question=f"Question {i}: describe the picture in one sentence.",
            reference=f"A red square (picture {i}).",
        )
        for i in range(n)
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=item.id, model=model, text=f"{model} says: a red square, {i}.")
            for i, item in enumerate(items)
            for model in MODELS
        ],
    )
    return store


async def judge(store: Store, url: str, concurrency: int) -> tuple[float, float, int]:
    """(wall seconds, client CPU seconds, requests) of one pairwise judge run."""
    client = ModelClient(
        load_chat_model(f"openai/fake?base_url={url}"), store, concurrency=concurrency
    )
    started, cpu = time.perf_counter(), time.process_time()
    summary = await run_pairwise(store, BENCHMARK, list(MODELS), client)
    await client.aclose()
    return time.perf_counter() - started, time.process_time() - cpu, summary.requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5_000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    with tempfile.TemporaryDirectory() as tmp, server_process(latency, args.concurrency) as url:
        store = make_store(Path(tmp) / "s.db", args.items)
        wall, cpu, requests = asyncio.run(judge(store, url, args.concurrency))
        store.close()
    ideal = requests * latency / args.concurrency
    ratio, cpu_ms = wall / ideal, 1000 * cpu / max(1, requests)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    setting = f"{requests:,} judge calls, L={args.latency_ms:.0f} ms, C={args.concurrency}"
    print(
        f"pairwise judge, {setting}: {wall:.2f} s, ideal {ideal:.2f} s, ratio {ratio:.3f} "
        f"(the examinee runner's target is 1.05); client CPU {cpu_ms:.2f} ms a call; "
        f"load average {load}"
    )
    note = f"{setting}; {wall:.2f} s, ideal {ideal:.2f} s; load average {load}"
    emit(NAME, "judge run wall time / ideal", ratio, "×", "—", None, note)
    emit(NAME, "judge client CPU per call", cpu_ms, "ms", "—", None, setting)


if __name__ == "__main__":
    main()
