"""A stored choice benchmark whose leaderboard can mislead: two examinees with the same long
spec but for their system prompt, one that answered only part of the benchmark, and one
evaluated with ``--epochs 2``. The report, leaderboard and web tests read the same store.

``board`` has 12 keyed items (capabilities ``colour``/``shape`` in turn, levels easy/medium/hard
in turn, fine aspects ``aspect 0..2``). Accuracies, worked by hand from the answers below:

- LONG_A: wrong on items 0, 4, 8: 9 of 12, 75.0 %;
- LONG_B: wrong on items 0, 3, 6, 9: 8 of 12, 66.7 %;
- PARTIAL: answered items 0..5 only, all right: 100.0 % over 6 of 12 items (not ranked);
- EPOCHS: two answers per item; epoch 0 right everywhere, epoch 1 wrong on even items:
  each even item scores 0.5, each odd item 1.0, (6 x 0.5 + 6 x 1.0) / 12 = 75.0 %.
"""

from __future__ import annotations

from pathlib import Path

from pngs import solid_png

from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response

__all__ = ["BOARD", "EPOCHS", "LONG_A", "LONG_B", "PARTIAL", "write_board"]

BOARD = "board"
_SPEC = "openai/qwen2-vl-7b-instruct?base_url=http://127.0.0.1:8080/v1&max_tokens=8"
LONG_A = f"{_SPEC}&system=sha256:1a2b3c4d5e6f7081&temperature=0.5"
LONG_B = f"{_SPEC}&system=sha256:9f8e7d6c5b4a3021&temperature=0.5"
PARTIAL = "openai/partial-model"
EPOCHS = "openai/sampled-model?temperature=1"
_CAPABILITIES = ("colour", "shape")
_LEVELS = ("easy", "medium", "hard")


def _items(store: Store) -> list[BenchmarkItem]:
    image = store.put_image(solid_png((40, 120, 200), size=(32, 32)))
    return [
        BenchmarkItem(
            id=f"b{i:02d}",
            benchmark=BOARD,
            kind="mc",
            question=f"Which shape is number {i}?",
            options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
            answer="ABCD"[i % 4],
            images=[image],
            meta={
                "capability": _CAPABILITIES[i % 2],
                "fine_aspect": f"aspect {i % 3}",
                "difficulty": _LEVELS[i % 3],
            },
        )
        for i in range(12)
    ]


def _said(item: BenchmarkItem, model: str, epoch: int, right: bool) -> Response:
    assert item.answer is not None
    letter = item.answer if right else "ABCD"["ABCD".index(item.answer) - 1]
    return Response(item_id=item.id, model=model, text=letter, extracted=letter, epoch=epoch)


def _responses(items: list[BenchmarkItem]) -> list[Response]:
    out = []
    for i, item in enumerate(items):
        out.append(_said(item, LONG_A, 0, i % 4 != 0))
        out.append(_said(item, LONG_B, 0, i % 3 != 0))
        out.append(_said(item, EPOCHS, 0, True))
        second = _said(item, EPOCHS, 1, i % 2 == 1)
        # A sampled reply in words (the letter read from it), as chat models give them.
        words = f"I would say {second.extracted}: the outline has the most corners of the four."
        out.append(second.model_copy(update={"text": words}))
        if i < 6:
            out.append(_said(item, PARTIAL, 0, True))
    return out


def write_board(path: Path) -> Store:
    """A store at ``path`` (a file that does not exist yet) holding ``board``; left open."""
    store = Store.open(str(path))
    items = _items(store)
    put_benchmark(store, BOARD, "autobench", {})
    put_items(store, items)
    put_responses(store, _responses(items))
    return store
