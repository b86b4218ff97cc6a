"""TouchStone's hallucination judge: a model's answer against the human caption.

The judge reads the caption (the truth about the image) and one answer — typically to a "describe
the image" prompt — and rates how much is invented, 0 (nothing) to 10 (almost everything).
Stored as protocol ``"hallucination"`` with ``model_a`` the model and ``score_a`` the rating.
Items without a caption cannot be checked and count as missing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lvlmbench.judging._pool import JudgeRunSummary, ProgressHook
from lvlmbench.judging._rated import run_rated
from lvlmbench.judging.scale import ParsedRating, RatingScale
from lvlmbench.judging.verdict import judged
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, GenerationConfig, Judgment, Message, ModelOutput, Status

__all__ = [
    "HALLUCINATION",
    "HALLUCINATION_SCALE",
    "HallucinationScore",
    "hallucination_judgment",
    "hallucination_messages",
    "hallucination_report",
    "run_hallucination",
]

HALLUCINATION = "hallucination"
"""Protocol name of the hallucination judge."""
HALLUCINATION_SCALE = RatingScale(0, 10, "0 none - 10 all")
"""What its prompt asks for: 0 (nothing invented) to 10 (almost everything)."""


def hallucination_messages(item: BenchmarkItem, answer: str) -> list[Message]:
    """The judge's prompt: caption, question, the model's answer."""
    text = render_prompt(
        "judge/hallucination.md", caption=item.caption or "", question=item.question, answer=answer
    )
    return [Message.user(text)]


def hallucination_judgment(
    output: ModelOutput, *, item_id: str, judge: str, model: str
) -> Judgment:
    """The stored row for one reply: the rating, or the status that says why there is none."""
    row = Judgment(
        item_id=item_id,
        judge=judge,
        protocol=HALLUCINATION,
        model_a=model,
    )
    return judged(row, output, HALLUCINATION_SCALE.parse)


@dataclass(frozen=True)
class HallucinationScore:
    """One model's mean hallucination rating (0 best, 10 worst) over its rated answers."""

    model: str
    rated: int
    unscored: int
    mean: float | None

    def row(self) -> dict[str, Any]:
        """The flat form ``judge hallucination --json`` prints and its table shows."""
        return vars(self).copy()


def hallucination_report(
    judgments: Iterable[Judgment], item_ids: set[str]
) -> dict[str, HallucinationScore]:
    """Mean rating per model over ``hallucination`` rows of the given items. The item is the
    unit: with ``judge --epochs K`` an item's rated epochs average first, so ``rated`` counts
    items and each weighs alike; ``unscored`` counts the rows that gave no rating."""
    ratings: dict[str, dict[str, list[float]]] = {}
    unscored: dict[str, int] = {}
    for j in judgments:
        if j.protocol != HALLUCINATION or j.item_id not in item_ids:
            continue
        per_item = ratings.setdefault(j.model_a, {})
        rating = ParsedRating.of(j)
        if rating.status is Status.OK and rating.value is not None:
            per_item.setdefault(j.item_id, []).append(rating.value)
        else:
            unscored[j.model_a] = unscored.get(j.model_a, 0) + 1
    report = {}
    for model, per_item in sorted(ratings.items()):
        means = [sum(values) / len(values) for values in per_item.values()]
        mean = sum(means) / len(means) if means else None
        report[model] = HallucinationScore(model, len(means), unscored.get(model, 0), mean)
    return report


async def run_hallucination(
    store: Store,
    benchmark: str,
    models: Sequence[str],
    judge: ModelClient,
    *,
    config: GenerationConfig | None = None,
    on_progress: ProgressHook | None = None,
    only: Collection[str] | None = None,
    epochs: int = 1,
) -> JudgeRunSummary:
    """Rate every model's answer on every captioned item of ``benchmark`` (of ``only``,
    when given; each of its ``epochs`` answers; resumable)."""
    return await run_rated(
        store,
        benchmark,
        models,
        judge,
        protocol=HALLUCINATION,
        messages=hallucination_messages,
        ready=_captioned,
        config=config,
        on_progress=on_progress,
        only=only,
        epochs=epochs,
    )


def _captioned(item: BenchmarkItem) -> bool:
    """Only a caption tells what the image holds: items without one count as missing."""
    return bool(item.caption)
