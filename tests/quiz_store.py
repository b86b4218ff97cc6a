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


def write_quiz(path: Path, benchmark: str, items: int, fine_aspects: int = 0) -> Path:
    """A store at ``path`` holding ``benchmark`` with ``items`` keyed items; returns ``path``.
    ``fine_aspects``: item i also belongs to AutoBench-V fine aspect ``i % fine_aspects`` of
    its general aspect (``fine_aspect`` and ``unit`` meta, so its items form one cluster, as
    :func:`lvlmbench.stats.cluster_key` reads them); 0: no fine aspects, every item alone."""
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
                meta=_meta(i, fine_aspects),
            )
            for i in range(items)
        ],
    )
    store.close()
    return path


def _meta(i: int, fine_aspects: int) -> dict[str, str]:
    general, level = ("hue", "shade")[i % 2], LEVELS[i % 3]
    meta = {"capability": "colour", "general_aspect": general, "difficulty": level}
    if fine_aspects:
        # Fine aspects within a general aspect: an even i is "hue", so fine = (i // 2) mod k.
        fine = f"{general}-{(i // 2) % fine_aspects}"
        meta |= {"fine_aspect": fine, "unit": f"{general}|{fine}|{level}|{i}"}
    return meta


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
