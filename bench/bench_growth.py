"""How cost grows with the store: report and leaderboard page time at 3,600 → 360,000 responses.

For each size, a fresh SQLite store holds one benchmark of four-option items answered by ten
models (so 360 → 36,000 items), written straight through the store API (bulk put_items and
put_responses, no model calls; a seeded mix of right, wrong and unparseable answers). Timed:
``write_report`` for the whole store (HTML, summary.json, leaderboard.csv/.md), and the web
app's leaderboard page ``GET /b/<benchmark>`` through Starlette's TestClient, cold (first
request) and warm (median of three more: the app keeps the page's figures per store revision,
so these cost one query), and once more after another Store object on the same file wrote one
response (the revision moved: the page is computed again, as a write by another process
makes it). Targets: at most linear growth (time ratio ≤ size
ratio, 10× per step) and the page < 1 s at 100k responses (the 36,000 → 360,000 step brackets
it; the 360,000 figure is held to it).

Run: ``python bench/bench_growth.py [--sizes 3600 36000 360000] [--models 10]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient
from figures import emit

from lvlmbench.ids import content_id
from lvlmbench.report import write_report
from lvlmbench.store import Store, iter_items, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response, Status, Usage
from lvlmbench.web import create_app

NAME = "growth"
BENCHMARK = "bench-growth"
CHUNK = 5000


def _items(n: int) -> list[BenchmarkItem]:
    return [
        BenchmarkItem(
            id=content_id("growth", i),
            benchmark=BENCHMARK,
            kind="mc",
            question=f"Question {i}: which shape is red?",
            options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
            answer="ABCD"[i % 4],
            category=f"skill-{i % 8}",
        )
        for i in range(n)
    ]


def _response(item: BenchmarkItem, model: str, skill: float, rng: random.Random) -> Response:
    draw = rng.random()
    if draw < 0.02:
        return Response(
            item_id=item.id,
            model=model,
            text="I cannot tell.",
            extracted=None,
            status=Status.UNPARSEABLE,
            reason="no option letter",
        )
    letter = item.answer if draw < skill else "ABCD"[(item.id.__hash__() + 1) % 4]
    return Response(
        item_id=item.id,
        model=model,
        text=f"Answer: {letter}",
        extracted=letter,
        usage=Usage(input_tokens=40, output_tokens=3),
        latency_s=rng.random(),
    )


def build(path: Path, responses: int, models: int) -> tuple[Store, float]:
    """A store with ``responses`` answers (``models`` models × items); (store, seconds)."""
    started = time.perf_counter()
    store = Store.open(str(path))
    items = _items(responses // models)
    put_benchmark(store, BENCHMARK, "bench", {"items": len(items)})
    put_items(store, items)
    rng = random.Random(3)
    for m in range(models):
        model = f"openai/model-{m:02d}"
        skill = 0.35 + 0.6 * m / max(1, models - 1)
        for start in range(0, len(items), CHUNK):
            chunk = items[start : start + CHUNK]
            put_responses(store, (_response(item, model, skill, rng) for item in chunk))
    return store, time.perf_counter() - started


def timed_page(store: Store) -> tuple[float, float, float, int]:
    """(cold seconds, warm median seconds, seconds after a write, page bytes) of the
    leaderboard page."""
    client = TestClient(create_app(store), base_url="http://127.0.0.1")
    started = time.perf_counter()
    page = client.get(f"/b/{BENCHMARK}")
    cold = time.perf_counter() - started
    if page.status_code != 200:
        raise SystemExit(f"leaderboard page answered {page.status_code}: {page.text[:500]}")
    warm = []
    for _ in range(3):
        started = time.perf_counter()
        client.get(f"/b/{BENCHMARK}")
        warm.append(time.perf_counter() - started)
    other = Store.open(store.url)  # another process's view of the same file
    item = next(iter_items(other, BENCHMARK))
    put_responses(other, [_response(item, "openai/model-00", 0.5, random.Random(1))])
    other.close()
    started = time.perf_counter()
    client.get(f"/b/{BENCHMARK}")
    written = time.perf_counter() - started
    return cold, statistics.median(warm), written, len(page.content)


def measure(responses: int, models: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        store, built = build(Path(tmp) / "s.db", responses, models)
        started = time.perf_counter()
        write_report(store, Path(tmp) / "report" / "report.html")
        report = time.perf_counter() - started
        cold, warm, written, size = timed_page(store)
        store.close()
    return {
        "built": built,
        "report": report,
        "cold": cold,
        "warm": warm,
        "written": written,
        "bytes": size,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3_600, 36_000, 360_000])
    parser.add_argument("--models", type=int, default=10)
    args = parser.parse_args()
    rows = []
    print(
        f"{'responses':>10} {'build s':>8} {'report s':>9} {'page cold s':>12} "
        f"{'page warm s':>12} {'after write s':>14} {'page KiB':>9}"
    )
    for size in args.sizes:
        got = measure(size, args.models)
        rows.append((size, got))
        print(
            f"{size:>10,} {got['built']:>8.2f} {got['report']:>9.2f} {got['cold']:>12.3f} "
            f"{got['warm']:>12.3f} {got['written']:>14.3f} {got['bytes'] / 1024:>9.0f}"
        )
    load = "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    for size, got in rows:
        note = f"{size:,} responses ({args.models} models); build {got['built']:.1f} s; {load}"
        emit(NAME, f"report time, {size:,} responses", got["report"], "s", "≤ linear", None, note)
        page_ok = got["cold"] < 1.0 if size >= 100_000 else None
        target = "< 1 s" if size >= 100_000 else "—"
        emit(
            NAME,
            f"leaderboard page (cold), {size:,} responses",
            got["cold"],
            "s",
            target,
            page_ok,
            note
            + f"; warm {got['warm']:.3f} s, after a write {got['written']:.3f} s, "
            + f"{got['bytes'] / 1024:.0f} KiB",
        )
    for (small, a), (large, b) in itertools.pairwise(rows):
        scale = large / small
        for key, label in (("report", "report time"), ("cold", "leaderboard page time")):
            growth = b[key] / a[key]
            emit(
                NAME,
                f"{label} growth, {small:,} → {large:,}",
                growth,
                "×",
                f"≤ {scale:.0f}× (linear)",
                growth <= scale,
                load,
            )
            print(f"{label} growth {small:,} → {large:,}: {growth:.2f}× (linear: {scale:.0f}×)")


if __name__ == "__main__":
    main()
