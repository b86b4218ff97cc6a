"""How fast the transcript view and the JSON API answer on a benchmark of realistic size.

A store with N four-option items and M models' responses (each with a cache row, as the runner
writes them); median milliseconds over a few requests of: the item page (every model's
transcript: messages rebuilt, raw output read), its JSON twin, the item browser with a text
search and the "A right, B wrong" filter, and the leaderboard as JSON (targets: an item page
under 100 ms, a filtered page under 1 s at 2,000 items × 5 models).

Run: ``python bench/bench_transcript.py [--items N] [--models M]``. Figures also go to
``$LVLMBENCH_BENCH_JSON`` (see bench/figures.py).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench_orchestration import BENCHMARK, make_store
from fastapi.testclient import TestClient
from figures import emit

from lvlmbench.store import Store, iter_items, put_cached_calls, put_responses
from lvlmbench.types import ModelOutput, Response, Usage
from lvlmbench.web import create_app

NAME = "transcript"
REPEATS = 5


def _answers(store: Store, models: int) -> None:
    """Every model answers every item; model k is right on items whose index mod (k+2) is 0."""
    items = list(iter_items(store, BENCHMARK))
    rows, responses = [], []
    for k in range(models):
        for i, item in enumerate(items):
            letter = item.answer if i % (k + 2) == 0 else "A" if item.answer != "A" else "B"
            key = f"{k:02d}{i:062d}"
            output = ModelOutput(text=f"Answer: {letter}", usage=Usage(input_tokens=90))
            rows.append(
                {"key": key, "kind": "chat", "spec": f"bench/m{k}", "created_at": 0.0}
                | {"output": output.model_dump_json(), "input_tokens": 90, "output_tokens": 3}
            )
            responses.append(
                Response(
                    item_id=item.id, model=f"bench/m{k}", text=output.text, extracted=letter,
                    cache_key=key, cached=False, usage=output.usage, latency_s=0.4,
                )
            )  # fmt: skip
    put_cached_calls(store, rows)
    put_responses(store, responses)


def _median_ms(client: TestClient, url: str, params: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        answer = client.get(url, params=params)
        times.append(1000 * (time.perf_counter() - started))
        assert answer.status_code == 200, (url, answer.status_code)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--models", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = make_store(Path(folder) / "t.db", args.items)
        _answers(store, args.models)
        item_id = next(iter_items(store, BENCHMARK)).id
        base = f"/b/{BENCHMARK}"
        filtered = {"q": "question red", "right": "bench/m0", "wrong": "bench/m1"}
        with TestClient(create_app(store), base_url="http://127.0.0.1:8000") as client:
            figures = [
                ("item page", _median_ms(client, f"{base}/items/{item_id}"), 100.0),
                ("item JSON", _median_ms(client, f"/api{base}/items/{item_id}"), 100.0),
                ("filtered items page", _median_ms(client, f"{base}/items", filtered), 1000.0),
                ("filtered items JSON", _median_ms(client, f"/api{base}/items", filtered), 1000.0),
                ("leaderboard JSON", _median_ms(client, f"/api{base}/leaderboard"), None),
            ]
        store.close()
    print(f"{args.items} items × {args.models} models, median of {REPEATS} requests:")
    for figure, ms, target in figures:
        ok = None if target is None else ms < target
        goal = f"< {target:.0f} ms" if target is not None else "-"
        print(f"  {figure:<22} {ms:8.1f} ms   target {goal}")
        emit(NAME, figure, round(ms, 1), "ms", goal, ok, f"{args.items}x{args.models}")


if __name__ == "__main__":
    main()
