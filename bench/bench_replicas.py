"""Throughput with 1 and 2 replicas of one deployment, each serving C requests at a time.

One ``openai/…`` model whose ``base_url`` lists 1 or 2 local OpenAI-compatible servers (latency
L, at most C requests served at once each; more wait in the server's queue, like vLLM's
``--max-num-seqs``) evaluates N items with ``--concurrency C`` (per replica). Target: 2 replicas
give ~2× the throughput of one (≥ 1.8×), each takes about half the calls, none paid twice.

Run: ``python bench/bench_replicas.py [--items N] [--latency-ms L] [--concurrency C]``.
Each figure is also appended as a JSON line to ``$LVLMBENCH_BENCH_JSON`` when it is set (see
bench/figures.py).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from figures import emit
from text_items import fill_text_items

from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from fake_openai_server import FakeOpenAIServer  # noqa: E402

BENCHMARK = "bench-replicas"
NAME = "replicas"


def make_store(path: Path, n: int) -> Store:
    """A store holding one benchmark of ``n`` text-only four-option items."""
    store = Store.open(str(path))
    fill_text_items(store, BENCHMARK, n)
    return store


async def evaluate(store: Store, urls: list[str], concurrency: int) -> float:
    """Wall seconds to answer every item through one model on ``urls``."""
    model = load_chat_model(f"openai/fake?base_url={','.join(urls)}&deployment=bench")
    client = ModelClient(model, store, concurrency=concurrency)
    started = time.perf_counter()
    await client.check()
    await run_examinee(store, BENCHMARK, client)
    wall = time.perf_counter() - started
    await client.aclose()
    return wall


def measure(n: int, replicas: int, latency_s: float, concurrency: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        servers = [
            stack.enter_context(FakeOpenAIServer(latency_s=latency_s, concurrency=concurrency))
            for _ in range(replicas)
        ]
        store = make_store(Path(tmp) / "store.db", n)
        wall = asyncio.run(evaluate(store, [s.base_url for s in servers], concurrency))
        store.close()
        per_prompt = sum(
            (s.stats.per_prompt for s in servers), start=type(servers[0].stats.per_prompt)()
        )
        return {
            "wall": wall,
            "requests": [s.stats.requests for s in servers],
            "max_in_flight": [s.stats.max_in_flight for s in servers],
            "twice": sum(count - 1 for count in per_prompt.values() if count > 1),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=800)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    latency, c = args.latency_ms / 1000, args.concurrency
    setting = f"{args.items} items, L={args.latency_ms:.0f} ms, C={c} per replica"
    ideal = c / latency  # one replica's throughput when always full
    results = {}
    for replicas in (1, 2):
        got = measure(args.items, replicas, latency, c)
        results[replicas] = got
        rate = args.items / float(got["wall"])  # type: ignore[arg-type]
        print(
            f"{replicas} replica(s): {rate:.0f} items/s ({replicas * ideal:.0f} ideal), "
            f"requests {got['requests']}, max in flight {got['max_in_flight']}, "
            f"{got['twice']} paid twice"
        )
        emit(
            NAME,
            f"throughput, {replicas} replica(s)",
            rate,
            "items/s",
            f"~{replicas * ideal:.0f}",
            None,
            setting,
        )
    speedup = float(results[1]["wall"]) / float(results[2]["wall"])  # type: ignore[arg-type]
    two = results[2]
    print(f"speed-up 2 replicas / 1: {speedup:.2f}× (target ~2×)")
    emit(NAME, "throughput, 2 replicas / 1", speedup, "×", "≥ 1.8", speedup >= 1.8, setting)
    share = min(two["requests"]) / max(1, sum(two["requests"]))  # type: ignore[arg-type]
    emit(NAME, "smaller replica's share of calls", share, "", "≥ 0.45", share >= 0.45, setting)
    emit(NAME, "answers paid twice, 2 replicas", two["twice"], "", "0", two["twice"] == 0, setting)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
