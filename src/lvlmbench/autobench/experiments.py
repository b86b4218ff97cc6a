"""The paper's experiments on a generated benchmark: answer leakage and position bias (the
latter in :mod:`lvlmbench.autobench.position_bias`, re-exported here).

Both reuse the evaluation runner, so every answer is cached and a re-run pays nothing.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from lvlmbench.autobench.position_bias import (
    BiasFigure,
    Target,
    bias_rate,
    position_bias_figures,
    rekey_benchmark,
    rekey_name,
)
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.store import Store

__all__ = [
    "BiasFigure",
    "LeakageFigure",
    "Target",
    "bias_rate",
    "leakage_figures",
    "position_bias_figures",
    "rekey_benchmark",
    "rekey_name",
]


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
