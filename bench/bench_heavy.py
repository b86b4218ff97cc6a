"""A harder workload: a 512×512 image in every request and heavy-tailed latency, C=256.

N four-option items, each with its own 512×512 JPEG (a handful of distinct pictures, so the
store stays small but no two neighbouring requests share bytes), through lvlmbench's runner
and openai provider against the local fake server in its own process. The server draws each
answer's latency from a lognormal with median 50 ms and p99 1 s (sigma = ln(20)/2.326 ≈ 1.29)
from a seeded generator, in the order answers start, and serves C at a time.

Ideal: the makespan of the same latency sequence scheduled with zero overhead on C slots, each
request starting the moment a slot frees (what a perfect client keeping C in flight gets);
also printed: the bound sum(latency)/C, which ignores the tail the last requests leave.
Target: wall / ideal ≤ 1.10. Also measured, against a fresh server with the same latencies: a
bare aiohttp client (:mod:`bare_client`), the floor any client reaches against this server.

Run: ``python bench/bench_heavy.py [--items N] [--concurrency C] [--side PIXELS]``.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import io
import math
import os
import random
import sys
import tempfile
from pathlib import Path

from bare_client import bare_floor, chat_bodies
from bench_orchestration import BENCHMARK, evaluate, server_process
from figures import emit
from PIL import Image

from lvlmbench.ids import content_id
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fake_openai_server import latency_draws

NAME = "heavy"
MEDIAN_S = 0.05
P99_S = 1.0
SIGMA = math.log(P99_S / MEDIAN_S) / 2.3263  # z of the 99th percentile
PICTURES = 16


def _picture(rng: random.Random, side: int) -> bytes:
    """A 512² JPEG with some structure (blocks of colour plus noise), ~photo-sized."""
    small = Image.new("RGB", (32, 32))
    small.putdata([tuple(rng.randrange(256) for _ in range(3)) for _ in range(32 * 32)])
    picture = small.resize((side, side), Image.Resampling.BICUBIC)
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=85)
    return buffer.getvalue()


def pictures(side: int) -> list[bytes]:
    """The PICTURES distinct JPEGs the items cycle over (seeded: the same in every run)."""
    rng = random.Random(7)
    return [_picture(rng, side) for _ in range(PICTURES)]


def make_store(path: Path, n: int, side: int) -> tuple[Store, int]:
    """A store of ``n`` items cycling over PICTURES distinct images; (store, bytes per image)."""
    store = Store.open(str(path))
    jpegs = pictures(side)
    images = [store.put_image(p) for p in jpegs]
    put_benchmark(store, BENCHMARK, "bench", {"items": n})
    put_items(
        store,
        (
            BenchmarkItem(
                id=content_id("heavy", i),
                benchmark=BENCHMARK,
                kind="mc",
                question=f"Question {i}: which shape is red?",
                options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
                answer="ABCD"[i % 4],
                images=[images[i % PICTURES]],
            )
            for i in range(n)
        ),
    )
    return store, sum(len(p) for p in jpegs) // PICTURES


def ideal_makespan(latencies: list[float], concurrency: int) -> float:
    """Makespan of ``latencies`` started in order on ``concurrency`` slots, no overhead."""
    slots = [0.0] * concurrency
    for latency in latencies:
        heapq.heappush(slots, heapq.heappop(slots) + latency)
    return max(slots)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--side", type=int, default=512)
    args = parser.parse_args()
    n, concurrency = args.items, args.concurrency
    latencies = latency_draws(MEDIAN_S, SIGMA, 0, n)
    ideal = ideal_makespan(latencies, concurrency)
    bound = sum(latencies) / concurrency
    ranked = sorted(latencies)
    with tempfile.TemporaryDirectory() as tmp, server_process(MEDIAN_S, concurrency, SIGMA) as url:
        store, size = make_store(Path(tmp) / "s.db", n, args.side)
        wall, cpu, requests = asyncio.run(
            evaluate(store, f"openai/fake?base_url={url}", concurrency)
        )
        store.close()
    bodies = chat_bodies(n, pictures(args.side))
    with server_process(MEDIAN_S, concurrency, SIGMA) as url:  # fresh: the same latencies
        floor = asyncio.run(bare_floor(url, bodies, concurrency))
    ratio = wall / ideal
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    setting = (
        f"{n:,} items, {args.side}² JPEG (~{size // 1024} KiB) each, lognormal latency median "
        f"{MEDIAN_S * 1000:.0f} ms / p99 {P99_S:.0f} s (drawn: p50 {ranked[n // 2]:.3f} s, "
        f"p99 {ranked[int(n * 0.99)]:.3f} s, max {ranked[-1]:.2f} s), C={concurrency}"
    )
    print(setting)
    print(f"ideal (C-slot schedule of the same latencies): {ideal:.2f} s; sum/C: {bound:.2f} s")
    print(f"lvlmbench: {wall:.2f} s, {requests:,} requests, client CPU {cpu:.1f} s")
    print(f"bare aiohttp client (floor): {floor:.2f} s, {floor / ideal:.3f}× ideal")
    print(f"wall / ideal: {ratio:.3f} (target ≤ 1.10); wall / (sum/C): {wall / bound:.3f}")
    print(f"lvlmbench / floor: {wall / floor:.3f} (what lvlmbench adds over a bare client)")
    note = (
        f"{setting}; wall {wall:.2f} s, ideal {ideal:.2f} s (sum/C {bound:.2f} s), "
        f"{requests:,} requests, client CPU {1000 * cpu / max(1, requests):.2f} ms/request; "
        f"load average {load}"
    )
    emit(NAME, "heavy workload wall time / ideal", ratio, "×", "≤ 1.10", ratio <= 1.10, note)
    emit(NAME, "heavy workload wall time / (sum latency / C)", wall / bound, "×", "—", None, note)
    floor_note = f"{setting}; bare aiohttp client {floor:.2f} s ({floor / ideal:.3f}× ideal)"
    floor_ratio = wall / floor
    emit(NAME, "heavy workload wall time / floor", floor_ratio, "×", "—", None, floor_note)


if __name__ == "__main__":
    main()
