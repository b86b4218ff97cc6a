"""Stored benchmarks of text-only multiple-choice items: one spread over 2 aspects × 3 levels,
for the budgeted-evaluation tests (their stratified draws need facets to stratify over), and a
plain numbered one for the tests that run, kill and resume evaluations."""

from __future__ import annotations

from pathlib import Path

from lvlmbench.ids import content_id
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

__all__ = ["put_numbered_quiz", "write_quiz"]

LEVELS = ("easy", "medium", "hard")


def write_quiz(path: Path, benchmark: str, items: int) -> Path:
    """A store at ``path`` holding ``benchmark`` with ``items`` keyed items; returns ``path``."""
    store = Store.open(str(path))
    put_benchmark(store, benchmark, "autobench", {})
    put_items(
        store,
        [
            BenchmarkItem(
                id=f"q{i:04d}",
                benchmark=benchmark,
                question=f"Question {i}: which colour is meant?",
                kind="mc",
                options={"A": "red", "B": "green", "C": "blue", "D": "grey"},
                answer="ABCD"[i % 4],
                meta={
                    "capability": "colour",
                    "general_aspect": ("hue", "shade")[i % 2],
                    "difficulty": LEVELS[i % 3],
                },
            )
            for i in range(items)
        ],
    )
    store.close()
    return path


def put_numbered_quiz(store: Store, benchmark: str, items: int, answer: str) -> Store:
    """Put ``benchmark`` (kind ``test``) into ``store``: ``items`` questions "Question i?" with
    options one to four, ids ``content_id(benchmark, i)``, every one keyed ``answer``. Returns
    ``store``, still open."""
    put_benchmark(store, benchmark, "test", {})
    put_items(
        store,
        [
            BenchmarkItem(
                id=content_id(benchmark, i),
                benchmark=benchmark,
                kind="mc",
                question=f"Question {i}?",
                options={"A": "one", "B": "two", "C": "three", "D": "four"},
                answer=answer,
            )
            for i in range(items)
        ],
    )
    return store
