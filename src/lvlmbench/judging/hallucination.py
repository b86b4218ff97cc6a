"""TouchStone's hallucination judge: a model's answer against the human caption.

The judge reads the caption (the truth about the image) and one answer — typically to a "describe
the image" prompt — and rates how much is invented, 0 (nothing) to 10 (almost everything).
Stored as protocol ``"hallucination"`` with ``model_a`` the model and ``score_a`` the rating.
Items without a caption cannot be checked and count as missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lvlmbench.judging._pool import JudgeRunSummary, ProgressHook, done_judgments, run_jobs, unit_id
from lvlmbench.judging.pairwise import self_preference_warnings
from lvlmbench.judging.reference import answer_texts
from lvlmbench.judging.verdict import ParsedRating, judged, parse_rating
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store, iter_items
from lvlmbench.types import BenchmarkItem, GenerationConfig, Judgment, Message, ModelOutput, Status

__all__ = [
    "HALLUCINATION",
    "HallucinationScore",
    "hallucination_judgment",
    "hallucination_messages",
    "hallucination_report",
    "run_hallucination",
]

HALLUCINATION = "hallucination"
"""Protocol name of the hallucination judge."""


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
    return judged(row, output, parse_rating)


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
    """Mean rating per model over ``hallucination`` rows of the given items."""
    ratings: dict[str, list[float]] = {}
    unscored: dict[str, int] = {}
    for j in judgments:
        if j.protocol != HALLUCINATION or j.item_id not in item_ids:
            continue
        ratings.setdefault(j.model_a, [])
        rating = ParsedRating.of(j)
        if rating.status is Status.OK and rating.value is not None:
            ratings[j.model_a].append(rating.value)
        else:
            unscored[j.model_a] = unscored.get(j.model_a, 0) + 1
    return {
        m: HallucinationScore(m, len(v), unscored.get(m, 0), sum(v) / len(v) if v else None)
        for m, v in sorted(ratings.items())
    }


@dataclass(frozen=True)
class _Job:
    item: BenchmarkItem
    model: str
    text: str
    unit: str
    """The judgment's store id: runs of this judge sharing a store lease it."""


def _unit(job: _Job) -> str:
    return job.unit


async def run_hallucination(
    store: Store,
    benchmark: str,
    models: Sequence[str],
    judge: ModelClient,
    *,
    config: GenerationConfig | None = None,
    on_progress: ProgressHook | None = None,
) -> JudgeRunSummary:
    """Rate every model's answer on every captioned item of ``benchmark`` (resumable)."""
    summary = JudgeRunSummary(judge=judge.spec, protocol=HALLUCINATION, benchmark=benchmark)
    summary.warnings = self_preference_warnings(judge.spec, models)
    items = list(iter_items(store, benchmark))
    texts = answer_texts(store, items, models)
    done = done_judgments(store, judge.spec, HALLUCINATION)
    jobs: list[_Job] = []
    for item in items:
        for model in dict.fromkeys(models):
            summary.total += 1
            probe = Judgment(
                item_id=item.id, judge=judge.spec, protocol=HALLUCINATION, model_a=model
            )
            unit = unit_id(probe)
            if unit in done:
                summary.skipped += 1
            elif not item.caption or model not in texts[item.id]:
                summary.missing += 1
            else:
                jobs.append(_Job(item, model, texts[item.id][model], unit))
    config = config or GenerationConfig(max_tokens=512)

    async def judge_one(job: _Job) -> Judgment:
        output = await judge.generate(hallucination_messages(job.item, job.text), config)
        return hallucination_judgment(
            output, item_id=job.item.id, judge=judge.spec, model=job.model
        )

    return await run_jobs(store, judge, jobs, judge_one, summary, on_progress, _unit)
