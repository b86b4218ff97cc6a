"""The paper's experiments on a generated benchmark: answer leakage and position bias.

Both reuse the evaluation runner, so every answer is cached and a re-run pays nothing.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from lvlmbench.autobench.balance import ChoiceDraft, balance_positions
from lvlmbench.autobench.scoring import accuracy_table
from lvlmbench.ids import check_benchmark_name, content_id
from lvlmbench.store import Store, get_benchmark, iter_items, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

__all__ = [
    "BiasFigure",
    "LeakageFigure",
    "bias_rate",
    "leakage_figures",
    "position_bias_figures",
    "rekey_benchmark",
    "rekey_name",
]

Target = Literal["A", "B", "C", "D", "even"]


@dataclass(frozen=True)
class LeakageFigure:
    """One examinee with and without the image."""

    model: str
    with_image: float
    description_only: float
    question_only: float | None

    @property
    def drop(self) -> float:
        """How much the image adds over the description (accuracy points, 0–1 scale)."""
        return self.with_image - self.description_only


def _overall(store: Store, benchmark: str, variant: str, models: Sequence[str]) -> dict[str, float]:
    return {
        row.model: row.accuracy
        for row in accuracy_table(store, benchmark, (), variant=variant, models=models)
    }


def leakage_figures(
    store: Store, benchmark: str, models: Sequence[str]
) -> tuple[list[LeakageFigure], float]:
    """Accuracy per model with the image, from the description only, and from the question
    only (if run); plus the standard deviation across models of description-only accuracy
    (near zero: the description carries no examiner-specific advantage)."""
    image = _overall(store, benchmark, "default", models)
    described = _overall(store, benchmark, "no-image", models)
    bare = _overall(store, benchmark, "question-only", models)
    figures = [
        LeakageFigure(m, image.get(m, 0.0), described.get(m, 0.0), bare.get(m)) for m in models
    ]
    spread = statistics.pstdev([f.description_only for f in figures]) if figures else 0.0
    return figures, spread


def rekey_name(benchmark: str, target: Target) -> str:
    """The re-keyed copy's name; ValueError when that is no valid benchmark name."""
    return check_benchmark_name(f"{benchmark}@keys-{target}")


def rekey_benchmark(store: Store, benchmark: str, target: Target, seed: int = 0) -> str:
    """A copy of ``benchmark`` whose multiple-choice keys all sit at ``target`` (or are spread
    evenly again); true/false items are copied unchanged. Returns the copy's name."""
    name = rekey_name(benchmark, target)
    if get_benchmark(store, name) is not None:
        return name
    source = list(iter_items(store, benchmark))
    choice = [item for item in source if item.kind == "mc" and item.answer in item.options]
    drafts = [
        ChoiceDraft(
            item.options[item.answer or ""],
            [text for letter, text in sorted(item.options.items()) if letter != item.answer],
        )
        for item in choice
    ]
    arranged = dict(
        zip(
            (item.id for item in choice),
            balance_positions(drafts, seed, "even" if target == "even" else target),
            strict=True,
        )
    )
    copies: list[BenchmarkItem] = []
    for item in source:
        options, answer = arranged.get(item.id, (item.options, item.answer or ""))
        copies.append(
            item.model_copy(
                update={
                    "id": content_id("rekey", item.id, target),
                    "benchmark": name,
                    "options": options,
                    "answer": answer,
                    "meta": {**item.meta, "rekeyed_from": item.id},
                }
            )
        )
    put_items(store, copies)
    put_benchmark(
        store, name, "autobench-rekeyed", {"source": benchmark, "target": target, "seed": seed}
    )
    return name


def bias_rate(condition: float, even: float) -> float:
    """(score_condition − score_even) / score_even, the paper's position-bias rate."""
    return (condition - even) / even if even else 0.0


@dataclass(frozen=True)
class BiasFigure:
    """One examinee's accuracy with every key at one letter, against evenly spread keys."""

    model: str
    target: str
    accuracy: float
    even: float

    @property
    def rate(self) -> float:
        """The bias rate."""
        return bias_rate(self.accuracy, self.even)


def position_bias_figures(
    store: Store, benchmark: str, targets: Sequence[Target], models: Sequence[str]
) -> list[BiasFigure]:
    """Bias figures from evaluations already run on the re-keyed copies."""
    even = _overall(store, f"{benchmark}@keys-even", "default", models)
    figures = []
    for target in targets:
        if target == "even":
            continue
        scores = _overall(store, f"{benchmark}@keys-{target}", "default", models)
        figures += [BiasFigure(m, target, scores.get(m, 0.0), even.get(m, 0.0)) for m in models]
    return figures
