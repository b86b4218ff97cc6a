"""A stored benchmark of text-only multiple-choice items spread over 2 aspects × 3 levels, for
the budgeted-evaluation tests (their stratified draws need facets to stratify over)."""

from __future__ import annotations

from pathlib import Path

from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

__all__ = ["write_quiz"]

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
