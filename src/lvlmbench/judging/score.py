"""TouchStone's score judge: each answer is scored 1-10 against the caption-assisted reference.

The judge sees the caption, the question and two answers — the model's and the reference's —
and scores both for helpfulness, relevance and accuracy. Both presentation orders are asked
(protocol ``"score"``; in a row ``model_a`` is the answer shown first, ``score_a`` its score;
order "ab" shows the model first, "ba" the reference);
the two scores of each answer are averaged. A model's score is the mean over items, reported
×100 as the paper does (a mean of 6.452 is 645.2), next to the reference's mean on the same
items and the ratio of the two (``relative``, % of the reference). Per ability
(``item.category``) and per sub-task (``item.meta['task_name']``) likewise. An item whose two
orders are not both ok is unscored and counted, never half-scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from lvlmbench.judging._pool import JudgeRunSummary, ProgressHook, done_judgments, run_jobs, unit_id
from lvlmbench.judging.pairwise import self_preference_warnings
from lvlmbench.judging.reference import answer_texts
from lvlmbench.judging.verdict import judged, parse_scores
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store, iter_items
from lvlmbench.types import BenchmarkItem, GenerationConfig, Judgment, Message, ModelOutput, Status

__all__ = [
    "SCORE",
    "ModelScore",
    "ScoreGroup",
    "run_score",
    "score_judgment",
    "score_messages",
    "score_report",
]

SCORE = "score"
"""Protocol name of the TouchStone score judge."""


def score_messages(item: BenchmarkItem, answer_1: str, answer_2: str) -> list[Message]:
    """The judge's prompt for one presentation (TouchStone/Vicuna style: two scores first)."""
    user = render_prompt(
        "judge/score_user.md",
        caption=item.caption or "(no description)",
        question=item.question,
        answer_1=answer_1,
        answer_2=answer_2,
    )
    return [Message.system(render_prompt("judge/score_system.md")), Message.user(user)]


def score_judgment(
    output: ModelOutput, *, item_id: str, judge: str, shown: tuple[str, str], order: str
) -> Judgment:
    """The stored row for one reply: both scores, or the status that says why there are none."""
    row = Judgment(
        item_id=item_id,
        judge=judge,
        protocol=SCORE,
        model_a=shown[0],
        model_b=shown[1],
        order=order,
    )
    return judged(row, output, parse_scores)


@dataclass
class ScoreGroup:
    """Mean scores over a set of items (the whole benchmark, one ability or one sub-task)."""

    items: int = 0
    model_total: float = 0.0
    reference_total: float = 0.0

    @property
    def mean(self) -> float | None:
        """The model's mean 1-10 score."""
        return self.model_total / self.items if self.items else None

    @property
    def x100(self) -> float | None:
        """The mean ×100, as TouchStone reports it."""
        return None if self.mean is None else 100.0 * self.mean

    @property
    def reference_x100(self) -> float | None:
        """The reference's mean ×100 on the same items."""
        return 100.0 * self.reference_total / self.items if self.items else None

    @property
    def relative(self) -> float | None:
        """The model's mean as % of the reference's."""
        if not self.items or self.reference_total == 0:
            return None
        return 100.0 * self.model_total / self.reference_total


@dataclass
class ModelScore:
    """One model's TouchStone score overall, per ability and per sub-task."""

    model: str
    overall: ScoreGroup = field(default_factory=ScoreGroup)
    abilities: dict[str, ScoreGroup] = field(default_factory=dict)
    tasks: dict[str, ScoreGroup] = field(default_factory=dict)
    unscored: int = 0
    """Items judged but not ok in both orders (unparseable, refused, failed, or one missing)."""


def score_report(
    judgments: Iterable[Judgment], reference: str, items: Mapping[str, BenchmarkItem]
) -> dict[str, ModelScore]:
    """Per-model scores from ``score`` rows against ``reference`` over ``items`` (by id)."""
    rows: dict[tuple[str, str], dict[str, Judgment]] = {}
    for j in judgments:
        if j.protocol != SCORE or j.item_id not in items or reference not in (j.model_a, j.model_b):
            continue
        model = j.model_b if j.model_a == reference else j.model_a
        if model is None:
            continue
        rows.setdefault((model, j.item_id), {})[j.order] = j
    report: dict[str, ModelScore] = {}
    for (model, item_id), orders in sorted(rows.items()):
        entry = report.setdefault(model, ModelScore(model))
        pair = [orders.get("ab"), orders.get("ba")]
        if any(j is None or j.status is not Status.OK for j in pair):
            entry.unscored += 1
            continue
        model_scores, ref_scores = [], []
        for row in pair:
            assert row is not None
            j = row
            assert j.score_a is not None and j.score_b is not None
            first_is_model = j.model_a == model
            model_scores.append(j.score_a if first_is_model else j.score_b)
            ref_scores.append(j.score_b if first_is_model else j.score_a)
        model_mean, ref_mean = sum(model_scores) / 2, sum(ref_scores) / 2
        item = items[item_id]
        groups = [entry.overall]
        if item.category:
            groups.append(entry.abilities.setdefault(item.category, ScoreGroup()))
        task = item.meta.get("task_name")
        if task:
            groups.append(entry.tasks.setdefault(str(task), ScoreGroup()))
        for group in groups:
            group.items += 1
            group.model_total += model_mean
            group.reference_total += ref_mean
    return report


@dataclass(frozen=True)
class _Job:
    item: BenchmarkItem
    shown: tuple[str, str]
    order: str
    texts: tuple[str, str]


async def run_score(
    store: Store,
    benchmark: str,
    models: Sequence[str],
    judge: ModelClient,
    *,
    reference: str,
    config: GenerationConfig | None = None,
    on_progress: ProgressHook | None = None,
) -> JudgeRunSummary:
    """Score every model against ``reference`` (a player name, usually ``reference:<spec>``
    from :func:`make_references`) on every item, in both orders (resumable)."""
    summary = JudgeRunSummary(judge=judge.spec, protocol=SCORE, benchmark=benchmark)
    summary.warnings = self_preference_warnings(judge.spec, models)
    items = list(iter_items(store, benchmark))
    texts = answer_texts(store, items, [*models, reference])
    done = done_judgments(store, judge.spec, SCORE)
    jobs: list[_Job] = []
    for item in items:
        answers = texts[item.id]
        for model in dict.fromkeys(models):
            if model == reference:
                continue
            for shown, order in (((model, reference), "ab"), ((reference, model), "ba")):
                summary.total += 1
                probe = Judgment(
                    item_id=item.id,
                    judge=judge.spec,
                    protocol=SCORE,
                    model_a=shown[0],
                    model_b=shown[1],
                    order=order,
                )
                if unit_id(probe) in done:
                    summary.skipped += 1
                elif model not in answers or reference not in answers:
                    summary.missing += 1
                else:
                    jobs.append(_Job(item, shown, order, (answers[shown[0]], answers[shown[1]])))
    config = config or GenerationConfig(max_tokens=512)

    async def judge_one(job: _Job) -> Judgment:
        output = await judge.generate(score_messages(job.item, *job.texts), config)
        return score_judgment(
            output, item_id=job.item.id, judge=judge.spec, shown=job.shown, order=job.order
        )

    def unit(job: _Job) -> str:  # the judgment's id: other runs of this judge skip it
        shown = job.shown
        return unit_id(
            Judgment(
                item_id=job.item.id,
                judge=judge.spec,
                protocol=SCORE,
                model_a=shown[0],
                model_b=shown[1],
                order=job.order,
            )
        )

    return await run_jobs(store, judge, _iter(jobs), judge_one, summary, on_progress, unit)


def _iter(jobs: list[_Job]) -> Iterator[_Job]:
    yield from jobs
