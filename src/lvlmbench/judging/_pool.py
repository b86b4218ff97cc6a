"""Shared machinery of the judge runners: run jobs concurrently, write rows in batches, resume.

Every judge call goes through the judge's :class:`ModelClient` (cache, endpoint limit, retries);
this module only decides *what* to ask. A unit already stored with status ok, unparseable or
refused is final and skipped on the next run; an error is asked again.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from lvlmbench._concurrency import BatchWriter, drain
from lvlmbench.models import OUTCOME, ModelClient, RunSummary
from lvlmbench.runner import LOOKAHEAD, drain_leased
from lvlmbench.store import Leases, Store, final_judgment_ids, judgment_id, put_judgments
from lvlmbench.types import GenerationConfig, Judgment

__all__ = ["JudgeRunSummary", "ProgressHook", "done_judgments", "epoch_config", "run_jobs"]

ProgressHook = Callable[[int, int], None]
"""Called with (units finished so far, units in this run) after each judge call."""

J = TypeVar("J")


@dataclass(kw_only=True)
class JudgeRunSummary(RunSummary):
    """What one judge run did. A unit is one judge call (one presentation order)."""

    judge: str
    protocol: str
    benchmark: str
    missing: int = field(default=0, metadata=OUTCOME)
    """Units that could not be built: an answer (or caption/reference) is missing."""
    warnings: list[str] = field(default_factory=list)

    def tally_judgment(self, judgment: Judgment) -> None:
        """Count one finished unit."""
        self.tally(judgment.status, judgment.reason)


def done_judgments(store: Store, judge: str, protocol: str) -> set[str]:
    """Ids of this judge's final judgments under ``protocol`` (errors are not final)."""
    return final_judgment_ids(store, judge, protocol)


async def run_jobs(
    store: Store,
    client: ModelClient,
    jobs: Iterable[J],
    judge_one: Callable[[J], Awaitable[Judgment]],
    summary: JudgeRunSummary,
    on_progress: ProgressHook | None = None,
    unit: Callable[[J], str] | None = None,
) -> JudgeRunSummary:
    """Judge every job, ``client.concurrency`` calls in flight, storing each judgment as it comes.

    ``summary.total`` and ``summary.skipped`` must already count the planned and finished units.
    Raises RunAborted (after saving what finished) when the judge cannot serve any call.
    With ``unit`` (a job's judgment id), jobs are leased in the store so that runs of the same
    judge sharing a store pay for no judgment twice; a job another run finished is skipped.
    """
    started = time.perf_counter()
    leases = Leases.for_judgments(store)

    def write(batch: list[Judgment]) -> None:
        put_judgments(store, batch)
        if unit is not None:  # released only once stored, as the examinee runner does
            leases.release([judgment_id(j) for j in batch])

    writer: BatchWriter[Judgment] = BatchWriter(write, every=128)
    finished = 0
    before = replace(client.stats)  # the client may have served other runs: count this one's

    async def judge(job: J) -> None:
        nonlocal finished
        judgment = await judge_one(job)
        summary.tally_judgment(judgment)
        writer.add(judgment)
        finished += 1
        if on_progress is not None:
            on_progress(summary.skipped + finished, summary.total)

    def done_elsewhere(_job: J) -> None:
        summary.skipped += 1
        if on_progress is not None:
            on_progress(summary.skipped + finished, summary.total)

    # Two workers per slot, as the examinee runner has: with one, a freed slot waited for its
    # worker to store the judgment and build the next prompt before its next request went out.
    workers = LOOKAHEAD * client.concurrency
    try:
        if unit is None:
            await drain(jobs, judge, workers)
        else:
            await drain_leased(leases, jobs, unit, judge, workers, done_elsewhere, writer.flush)
    finally:
        try:
            writer.flush()
        finally:  # however the run ends (a failed write included): no lease outlives it
            if unit is not None:
                leases.release()
        summary.wall_s = time.perf_counter() - started
        summary.count_calls(client.stats, before, client.price_per_mtok is not None)
    return summary


def epoch_config(config: GenerationConfig, epoch: int) -> GenerationConfig:
    """The judge's settings for a unit of epoch ``epoch``: any epoch but 0 is its own cache
    entry (as an examinee's samples are), epoch 0 the call a single run always made."""
    return config.model_copy(update={"epoch": epoch}) if epoch else config


def unit_id(judgment: Judgment) -> str:
    """The store id a planned judgment will have (for the resume check)."""
    return judgment_id(judgment)
