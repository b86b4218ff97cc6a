"""Judging a submission after the upload returned: the benchmark's text metrics and, when the
server was given a judge model, the pairwise judge against the players it already judged.

Both steps are resumable (a metric score or a judged pair already stored is never computed
again), so only the new model's rows cost anything, and the leaderboard — computed from the
store on each request — shows the updated ratings as soon as they are stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from lvlmbench.judging import PAIRWISE_REF, metric_name, pairwise_protocols, run_pairwise
from lvlmbench.judging.metrics import available_metrics, judge_with_metrics
from lvlmbench.judging.reference import REFERENCE
from lvlmbench.models import ChatModel, ModelClient
from lvlmbench.store import Store, iter_items, iter_judgments, judged_item_ids, judgment_protocols
from lvlmbench.types import BenchmarkItem, Status
from lvlmbench.web.submissions import Submission

__all__ = ["judge_submission", "pairwise_plan"]

log = logging.getLogger("lvlmbench.web")


def _metrics_in_use(store: Store, items: set[str]) -> list[str]:
    # Columns only, no row parsed: the metric protocols, then which of them scored these items.
    protocols = judgment_protocols(store)
    metrics = {p: name for p in protocols if (name := metric_name(p)) is not None}
    used = {
        name
        for protocol, name in metrics.items()
        if not items.isdisjoint(judged_item_ids(store, protocol, Status.OK))
    }
    if used:
        return sorted(used)
    runnable, _ = available_metrics(("bleu4", "rougeL", "length"))
    return runnable


def pairwise_plan(
    store: Store, items: list[BenchmarkItem], judge: str, model: str
) -> tuple[list[str], bool, bool] | None:
    """(players, reference_backed, include_reference) continuing how ``judge`` judged this
    benchmark before, with ``model`` added; None when there is nobody to compare with.

    With no earlier judging, the new model plays the items' own reference (VisIT-Bench's win
    rate against the reference); without references there is no opponent.
    """
    ids = {item.id for item in items}
    players: set[str] = set()
    protocols: set[str] = set()
    for protocol in pairwise_protocols():
        for j in iter_judgments(store, judge=judge, protocol=protocol):
            if j.item_id in ids and j.model_b is not None:
                players.update((j.model_a, j.model_b))
                protocols.add(protocol)
    if PAIRWISE_REF in protocols:
        return sorted(players | {model}), True, False
    if protocols:
        include = REFERENCE in players
        return sorted((players - {REFERENCE}) | {model}), False, include
    if any(item.reference for item in items):
        return [model], False, True
    return None


def _judge_pairwise(
    store: Store, submission: Submission, items: list[BenchmarkItem], judge: ChatModel
) -> None:
    plan = pairwise_plan(store, items, judge.spec, submission.model)
    if plan is None:
        return
    players, reference_backed, include_reference = plan
    client = ModelClient(judge, store)

    async def run() -> None:
        try:
            await run_pairwise(
                store,
                submission.benchmark,
                players,
                client,
                reference_backed=reference_backed,
                include_reference=include_reference,
            )
        finally:
            await client.aclose()

    asyncio.run(run())
    submission.judge = judge.spec


def judge_submission(
    store: Store, submission_id: str, judge: Callable[[], ChatModel] | None = None
) -> None:
    """Background step: score open-ended answers with the benchmark's metrics and, given a
    judge factory, judge them pairwise (choice answers were scored when stored); then mark the
    submission done, or failed with the reason. The judge is built per job: a provider's HTTP
    pool belongs to the event loop it was opened in, and each job runs its own loop."""
    submission = Submission.load(store, submission_id)
    if submission is None:
        return
    try:
        items = [i for i in iter_items(store, submission.benchmark) if i.kind == "open"]
        if items:
            submission.metrics = _metrics_in_use(store, {i.id for i in items})
            judge_with_metrics(store, submission.benchmark, [submission.model], submission.metrics)
            if judge is not None:
                _judge_pairwise(store, submission, items, judge())
        submission.status = "done"
    except Exception as exc:  # a background task has no caller to report to: record it
        log.exception("judging submission %s failed", submission_id)
        submission.status, submission.reason = "failed", f"{type(exc).__name__}: {exc}"
    submission.save(store)
