"""Running a judge that rates one answer at a time: the hallucination judge, and any protocol
of that shape (a toy one in the tests). Each (item, model) is one unit, stored as one row with
``model_a`` the model and the rating, parsed on the registered protocol's scale, in its fields;
resumable like every judge run."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from lvlmbench.judging._pool import (
    JudgeRunSummary,
    ProgressHook,
    done_judgments,
    epoch_config,
    run_jobs,
    unit_id,
)
from lvlmbench.judging.pairwise import self_preference_warnings
from lvlmbench.judging.protocol import protocol_for
from lvlmbench.judging.reference import answer_texts, items_in
from lvlmbench.judging.scale import RatingScale
from lvlmbench.judging.verdict import judged
from lvlmbench.models import ModelClient
from lvlmbench.store import Store
from lvlmbench.types import BenchmarkItem, GenerationConfig, Judgment, Message

__all__ = ["MessagesFor", "run_rated"]

MessagesFor = Callable[[BenchmarkItem, str], list[Message]]
"""(item, the model's answer) -> the judge's prompt."""


@dataclass(frozen=True)
class _Job:
    item: BenchmarkItem
    model: str
    text: str
    unit: str
    """The judgment's store id: runs of this judge sharing a store lease it."""
    epoch: int = 0
    """Whose answer: the model's epoch-``epoch`` sample."""


def _unit(job: _Job) -> str:
    return job.unit


def _always(_item: BenchmarkItem) -> bool:
    return True


def _scale(protocol: str) -> RatingScale:
    registered = protocol_for(protocol)
    if registered.kind != "rating" or registered.scale is None:
        raise ValueError(f"judge protocol {protocol!r} is no rating protocol with a scale")
    return registered.scale


async def run_rated(
    store: Store,
    benchmark: str,
    models: Sequence[str],
    judge: ModelClient,
    *,
    protocol: str,
    messages: MessagesFor,
    ready: Callable[[BenchmarkItem], bool] = _always,
    config: GenerationConfig | None = None,
    on_progress: ProgressHook | None = None,
    only: Collection[str] | None = None,
    epochs: int = 1,
) -> JudgeRunSummary:
    """Rate every model's answer on every item of ``benchmark`` that is ``ready`` (the others
    count as missing, as do absent answers; ``only``: a ``--limit`` subset's ids), storing
    rows under ``protocol``: a registered rating protocol, whose scale every reply is parsed
    on. With ``epochs`` K, each of a model's K answers (``evaluate --epochs`` samples) is
    rated as its own unit, epoch k asked with ``config.epoch = k``."""
    scale = _scale(protocol)
    summary = JudgeRunSummary(judge=judge.spec, protocol=protocol, benchmark=benchmark)
    summary.warnings = self_preference_warnings(judge.spec, models)
    items = items_in(store, benchmark, only)
    done = done_judgments(store, judge.spec, protocol)
    jobs: list[_Job] = []
    for epoch in range(epochs):
        texts = answer_texts(store, items, models, epoch)
        for item in items:
            for model in dict.fromkeys(models):
                summary.total += 1
                probe = Judgment(
                    item_id=item.id, judge=judge.spec, protocol=protocol, model_a=model, epoch=epoch
                )
                unit = unit_id(probe)
                if unit in done:
                    summary.skipped += 1
                elif not ready(item) or model not in texts[item.id]:
                    summary.missing += 1
                else:
                    jobs.append(_Job(item, model, texts[item.id][model], unit, epoch))
    config = config or GenerationConfig(max_tokens=512)

    async def judge_one(job: _Job) -> Judgment:
        output = await judge.generate(messages(job.item, job.text), epoch_config(config, job.epoch))
        row = Judgment(
            item_id=job.item.id,
            judge=judge.spec,
            protocol=protocol,
            model_a=job.model,
            epoch=job.epoch,
        )
        return judged(row, output, scale.parse)

    return await run_jobs(store, judge, jobs, judge_one, summary, on_progress, _unit)
