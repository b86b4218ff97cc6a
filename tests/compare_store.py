"""Stores whose comparisons are worked by hand: multiple-choice items answered by a few models
(right, wrong, several epochs or not at all, as a test lays out), and TouchStone-style score
judgments, for the compare tests of the use case, the CLI, the API, the report and the web."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from lvlmbench.judging import PAIRWISE, REFERENCE, SCORE
from lvlmbench.store import Store, put_benchmark, put_items, put_judgments, put_responses
from lvlmbench.types import BenchmarkItem, Judgment, Response

__all__ = ["Answers", "write_choice_store", "write_pairwise_store", "write_score_store"]

Answers = Mapping[str, Sequence[int | Sequence[int] | None]]
"""model → per item: 1 right, 0 wrong, a list of those (one per epoch), None not answered."""


def _item(benchmark: str, i: int, n: int, cluster_size: int | None) -> BenchmarkItem:
    meta: dict[str, object] = {"difficulty": "easy" if i < n // 2 else "hard"}
    if cluster_size is not None:  # AutoBench-V items: clustered by their fine aspect
        meta |= {
            "capability": "colour",
            "general_aspect": "hue",
            "fine_aspect": f"fine-{i // cluster_size}",
            "unit": f"u{i}",
        }
    return BenchmarkItem(
        id=f"{benchmark}-{i:02d}",
        benchmark=benchmark,
        question=f"Question {i}?",
        kind="mc",
        options={"A": "red", "B": "green"},
        answer="A",
        meta=meta,
    )


def _responses(
    benchmark: str, model: str, answers: Sequence[int | Sequence[int] | None]
) -> list[Response]:
    out = []
    for i, given in enumerate(answers):
        if given is None:
            continue
        epochs = [given] if isinstance(given, int) else list(given)
        for epoch, right in enumerate(epochs):
            letter = "A" if right else "B"
            out.append(
                Response(
                    item_id=f"{benchmark}-{i:02d}",
                    model=model,
                    text=letter,
                    extracted=letter,
                    epoch=epoch,
                )
            )
    return out


def write_choice_store(
    path: Path, answers: Answers, *, benchmark: str = "quiz", cluster_size: int | None = None
) -> Path:
    """A SQLite store at ``path``: ``benchmark``'s keyed items (the first half easy, the rest
    hard; in fine aspects of ``cluster_size`` items when given) and each model's answers."""
    n = max(len(v) for v in answers.values())
    store = Store.open(str(path))
    put_benchmark(store, benchmark, "autobench", {})
    put_items(store, [_item(benchmark, i, n, cluster_size) for i in range(n)])
    for model, given in answers.items():
        put_responses(store, _responses(benchmark, model, given))
    store.close()
    return path


def _open_items(path: Path, bench: str, kind: str, n: int) -> Store:
    """A store at ``path`` holding benchmark ``bench`` of ``n`` open-ended items ``bench-NN``."""
    store = Store.open(str(path))
    put_benchmark(store, bench, kind, {})
    items = [
        BenchmarkItem(id=f"{bench}-{i:02d}", benchmark=bench, question=f"Item {i}?", kind="open")
        for i in range(n)
    ]
    put_items(store, items)
    return store


def write_score_store(
    path: Path,
    scores: Mapping[str, Sequence[tuple[float, float] | None]],
    *,
    judge: str = "j/judge",
) -> Path:
    """A store with open-ended items ``ts-NN`` and ``judge``'s TouchStone-style score rows:
    model → per item the model's score in order ab and in order ba (None: not judged); the
    reference always scores 5."""
    store = _open_items(path, "ts", "touchstone", max(len(v) for v in scores.values()))
    rows = []
    for model, given in scores.items():
        for i, pair in enumerate(given):
            if pair is None:
                continue
            ab, ba = pair
            common = {"item_id": f"ts-{i:02d}", "judge": judge, "protocol": SCORE}
            rows.append(
                Judgment(**common, model_a=model, model_b=REFERENCE, score_a=ab, score_b=5.0)
            )
            rows.append(
                Judgment(
                    **common, model_a=REFERENCE, model_b=model, score_a=5.0, score_b=ba, order="ba"
                )
            )
    put_judgments(store, rows)
    store.close()
    return path


def _verdict(shown_first: str, winner: str | None) -> str:
    return "tie" if winner is None else "a" if winner == shown_first else "b"


def write_pairwise_store(
    path: Path, outcomes: Mapping[str, Sequence[float | None]], *, judge: str = "j/judge"
) -> Path:
    """A store with open-ended items ``vb-NN`` and ``judge``'s pairwise rows of each model
    against the reference player: model → per item 1 (the model wins both orders), 0 (the
    reference does), 0.5 (a tie in both) or None (not judged)."""
    store = _open_items(path, "vb", "visit", max(len(v) for v in outcomes.values()))
    rows = []
    for model, given in outcomes.items():
        for i, outcome in enumerate(given):
            if outcome is None:
                continue
            winner = None if outcome == 0.5 else model if outcome == 1 else REFERENCE
            first, second = sorted((model, REFERENCE))
            for order, shown in (("ab", (first, second)), ("ba", (second, first))):
                rows.append(
                    Judgment(
                        item_id=f"vb-{i:02d}",
                        judge=judge,
                        protocol=PAIRWISE,
                        model_a=shown[0],
                        model_b=shown[1],
                        verdict=_verdict(shown[0], winner),
                        order=order,
                    )
                )
    put_judgments(store, rows)
    store.close()
    return path
