"""Stored answers per difficulty level for the per-level experiments (hand-made tables)."""

from __future__ import annotations

from pathlib import Path

from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response

BENCH = "levels"
LEVELS = ("easy", "medium", "hard")
# Items answered correctly per (model, level) out of 4, with the image ...
WITH_IMAGE = {
    "m1": {"easy": 4, "medium": 2, "hard": 1},
    "m2": {"easy": 3, "medium": 3, "hard": 0},
    "m3": {"easy": 3, "medium": 1, "hard": 1},
}
# ... and from the description only (no medium answers at all).
DESCRIPTION_ONLY = {
    "m1": {"easy": 2, "hard": 1},
    "m2": {"easy": 2, "hard": 2},
    "m3": {"easy": 2, "hard": 0},
}


def _responses(table: dict[str, dict[str, int]], variant: str) -> list[Response]:
    out = []
    for model, per_level in table.items():
        for level, correct in per_level.items():
            for i in range(4):
                answer = "A" if i < correct else "B"
                out.append(
                    Response(
                        item_id=f"{level}-{i}",
                        model=model,
                        text=answer,
                        extracted=answer,
                        variant=variant,
                    )
                )
    return out


def level_store(path: Path) -> Store:
    """A store with BENCH: 4 mc items per level, and the answers of the tables above."""
    opened = Store.open(str(path))
    put_benchmark(opened, BENCH, "autobench", {})
    options = {"A": "yes", "B": "no", "C": "maybe", "D": "never"}
    put_items(
        opened,
        [
            BenchmarkItem(
                id=f"{level}-{i}",
                benchmark=BENCH,
                question=f"q {level} {i}",
                kind="mc",
                options=options,
                answer="A",
                meta={"difficulty": level},
            )
            for level in LEVELS
            for i in range(4)
        ],
    )
    put_responses(opened, _responses(WITH_IMAGE, "default"))
    put_responses(opened, _responses(DESCRIPTION_ONLY, "no-image"))
    return opened
