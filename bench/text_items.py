"""The text-only four-option items the lease, replica and scale-out benchmarks ask: every
prompt distinct, so a prompt the server answers twice is an answer paid for twice."""

from __future__ import annotations

from lvlmbench.ids import content_id
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem


def fill_text_items(store: Store, benchmark: str, n: int) -> None:
    """Store benchmark ``benchmark`` with ``n`` distinct text-only four-option items."""
    put_benchmark(store, benchmark, "bench", {"items": n})
    put_items(
        store,
        [
            BenchmarkItem(
                id=content_id("text-bench", benchmark, i),
                benchmark=benchmark,
                kind="mc",
                question=f"Question {i} of {benchmark}: which one?",
                options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
                answer="ABCD"[i % 4],
            )
            for i in range(n)
        ],
    )
