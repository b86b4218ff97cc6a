"""The evaluation runner: examinee × items through the model client, streamed and resumable.

Shared by every method: AutoBench-V scores choice items, the judge protocols take open answers.
Items are streamed from the store and responses written in small batches, so memory stays flat
for any benchmark size; every model call is cached as it finishes, so a killed run loses no paid
work (an unflushed response is rebuilt from the cache on the next run without a request).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field

from lvlmbench._concurrency import BatchWriter
from lvlmbench.choice import extract_choice
from lvlmbench.models import (
    SAME_RUN,
    CallStats,
    ModelClient,
    PreparedCall,
    RunSummary,
    is_truncated,
)
from lvlmbench.runner._leased import drain_leased
from lvlmbench.runner._messages import ItemUnavailable, MessageBuilder, item_messages
from lvlmbench.store import (
    DEFAULT_LEASE_S,
    Leases,
    Store,
    count_items,
    final_response_ids,
    iter_items,
    put_responses,
    response_id,
)
from lvlmbench.types import BenchmarkItem, GenerationConfig, ModelOutput, Response, Status

__all__ = ["LOOKAHEAD", "EvalSummary", "ProgressHook", "run_examinee", "score_output"]

LOOKAHEAD = 2
"""Workers per call the endpoint allows in flight, in the runner and the judges: while a call
holds an endpoint slot, another worker has its next call built and looked up, ready to take the
slot the moment it frees (see :func:`run_examinee`)."""

ProgressHook = Callable[[int, int], None]
"""Called with (items finished so far, items in this run) after each item."""


@dataclass(kw_only=True)
class EvalSummary(RunSummary):
    """What one examinee run did (a unit is one item's sample)."""

    model: str
    variant: str
    benchmark: str
    truncated: int = 0
    """Replies cut by the token limit (whether or not an answer could be read from them)."""
    epochs: int = field(default=1, metadata=SAME_RUN)
    """Samples asked per item (``total`` counts every sample)."""


def score_output(
    item: BenchmarkItem,
    model: str,
    output: ModelOutput,
    variant: str = "default",
    epoch: int = 0,
    *,
    cache_key: str | None = None,
    cost_usd: float | None = None,
) -> Response:
    """A stored Response for an output: choice items get their answer extracted; a failed call
    or an unextractable answer keeps its status and reason, never a guessed answer. A reply cut
    by the token limit is flagged ``truncated``; when no answer can be read from it its status
    is ``truncated``, not ``unparseable`` (the limit, not the model, lost the answer). The
    extraction is told of the cut: an option named alone on the cut reply's last line may be
    the start of a list of options, so it is no answer.

    ``cache_key`` names the call that produced ``output`` (None: no call was made), so the item
    page can show its raw output and whether it was replayed from the cache."""
    extracted, status, reason = None, output.status, output.reason
    truncated = output.status is Status.OK and is_truncated(output.finish_reason)
    if output.status is Status.OK and item.kind != "open":
        extraction = extract_choice(output.text, item.kind, item.options, truncated=truncated)
        extracted, status, reason = extraction.answer, extraction.status, extraction.reason
        if truncated and status is Status.UNPARSEABLE:
            status = Status.TRUNCATED
            reason = (
                f"cut by the token limit after {output.usage.output_tokens or '?'} tokens "
                f"(finish reason {output.finish_reason}) before an answer could be read "
                f"({extraction.reason})"
            )
    # Built once with every field: a model_copy afterwards would cost a second construction.
    return Response(
        item_id=item.id,
        model=model,
        text=output.text,
        extracted=extracted,
        variant=variant,
        status=status,
        reason=reason,
        usage=output.usage,
        latency_s=output.latency_s,
        cache_key=cache_key,
        cached=output.cached if cache_key is not None else None,
        cost_usd=cost_usd,
        truncated=truncated,
        epoch=epoch,
    )


Job = tuple[BenchmarkItem, int]
"""An item and the epoch (sample number) to ask it for."""


def _pending(
    store: Store,
    benchmark: str,
    done: set[str],
    summary: EvalSummary,
    only: Collection[str] | None,
) -> Iterator[Job]:
    for item in iter_items(store, benchmark):
        if only is not None and item.id not in only:
            continue
        for epoch in range(summary.epochs):
            if response_id(item.id, summary.model, summary.variant, epoch) in done:
                summary.skipped += 1
                continue
            yield item, epoch


def _tally(summary: EvalSummary, response: Response) -> None:
    summary.truncated += response.truncated
    summary.tally(response.status, response.reason)


@dataclass
class _ExamineeRun:
    """The state one examinee run shares among its workers: the calls prepared per claimed
    batch, the answers waiting to be written, and the count of samples finished here."""

    store: Store
    client: ModelClient
    variant: str
    builder: MessageBuilder
    base: GenerationConfig
    summary: EvalSummary
    leases: Leases
    on_progress: ProgressHook | None
    finished: int = 0
    # Each claimed batch's calls, prepared together so that their cache rows are looked up in
    # one query; a job's entry is taken when a worker reaches it.
    prepared: dict[str, PreparedCall | ItemUnavailable] = field(default_factory=dict)
    writer: BatchWriter[Response] = field(init=False)

    def __post_init__(self) -> None:
        self.writer = BatchWriter(self.write)

    def unit(self, job: Job) -> str:
        return response_id(job[0].id, self.client.spec, self.variant, job[1])

    def write(self, batch: list[Response]) -> None:
        put_responses(self.store, batch)
        # Released only once stored: another run then finds the sample done, not free.
        self.leases.release([response_id(r.item_id, r.model, r.variant, r.epoch) for r in batch])

    def progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.summary.skipped + self.finished, self.summary.total)

    def done_elsewhere(self, _job: Job) -> None:
        self.summary.skipped += 1
        self.progress()

    def prepare_job(self, job: Job) -> PreparedCall | ItemUnavailable:
        item, epoch = job
        try:
            messages = self.builder(item)
        except ItemUnavailable as exc:  # e.g. an imported image URL never fetched
            return exc
        sample = self.base.model_copy(update={"epoch": epoch}) if epoch else self.base
        return self.client.prepare_call(messages, sample)

    def prepare_batch(self, jobs: list[Job]) -> None:
        calls = {self.unit(job): self.prepare_job(job) for job in jobs}
        self.prepared.update(calls)
        self.client.prefetch([c.key for c in calls.values() if isinstance(c, PreparedCall)])

    async def answer(self, job: Job) -> None:
        call = self.prepared.pop(self.unit(job), None) or self.prepare_job(job)
        if isinstance(call, ItemUnavailable):
            output, key = ModelOutput(status=Status.ERROR, reason=str(call)), None
        else:
            output, key = await self.client.generate_prepared(call)
        try:
            if not output.cached:
                # One turn of the event loop before the bookkeeping: the requests that took the
                # endpoint slots freed meanwhile go out first (aiohttp writes a request from a
                # task of its own on Python 3.11), so scoring and storing answers never delays
                # them.
                await asyncio.sleep(0)
        finally:  # even when the run is stopping: this answer came back and is kept
            self.record(job, output, key)

    def record(self, job: Job, output: ModelOutput, key: str | None) -> None:
        item, epoch = job
        client = self.client
        # A replayed answer keeps the cost of the call that first produced it (usage is cached).
        cost = client.cost_of(output.usage) if key is not None else None
        response = score_output(
            item, client.spec, output, self.variant, epoch, cache_key=key, cost_usd=cost
        )
        _tally(self.summary, response)
        self.writer.add(response)
        self.finished += 1
        self.progress()


def _let_baseline_prepare(client: ModelClient, store: Store, benchmark: str) -> None:
    """Privileged baselines (the oracle) learn the keys before they are asked."""
    prepare = getattr(client.model, "prepare", None)
    if callable(prepare):
        prepare(iter_items(store, benchmark))


async def run_examinee(
    store: Store,
    benchmark: str,
    client: ModelClient,
    *,
    variant: str = "default",
    builder: MessageBuilder | None = None,
    config: GenerationConfig | None = None,
    on_progress: ProgressHook | None = None,
    epochs: int = 1,
    only: Collection[str] | None = None,
    lease_s: float = DEFAULT_LEASE_S,
) -> EvalSummary:
    """Ask ``client``'s model every item of ``benchmark`` (or the ids in ``only``, e.g. an
    ``evaluate --limit`` subset) ``epochs`` times, each sample not yet answered under
    ``variant``; sample k is asked with ``config.epoch = k``, its own cache entry and response.

    Responses whose status is error are asked again; ok, unparseable and truncated ones are
    final. Raises RunAborted (after saving what finished) when the endpoint cannot serve any call.
    Samples are leased in the store while they are asked, so runs of the same examinee on one
    store (other processes, other machines) share the work and pay for none twice; a sample
    another run finished counts as skipped.
    """
    if epochs < 1:
        raise ValueError(f"epochs must be at least 1, got {epochs}")
    started = time.perf_counter()
    summary = EvalSummary(model=client.spec, variant=variant, benchmark=benchmark, epochs=epochs)
    builder = builder or item_messages(store, variant)
    done = final_response_ids(store, client.spec, variant)
    summary.total = (count_items(store, benchmark) if only is None else len(only)) * epochs
    base = config or GenerationConfig()
    _let_baseline_prepare(client, store, benchmark)
    leases = Leases.for_responses(store, lease_s=lease_s)
    run = _ExamineeRun(store, client, variant, builder, base, summary, leases, on_progress)

    try:
        # Twice as many workers as calls allowed in flight: while a call holds an endpoint slot,
        # another worker has its item's messages built and cache lookup done, ready to take the
        # slot the moment it frees (measured: ratio to ideal 1.47-1.50 against 1.56-1.86).
        workers = LOOKAHEAD * client.concurrency
        pending = _pending(store, benchmark, done, summary, only)
        await drain_leased(
            leases,
            pending,
            run.unit,
            run.answer,
            workers,
            run.done_elsewhere,
            flush=run.writer.flush,
            on_claimed=run.prepare_batch,
        )
    finally:
        try:
            run.writer.flush()
        finally:  # however the run ends (a failed write included): no lease outlives it
            leases.release()
        summary.wall_s = time.perf_counter() - started
        # The client's counters since it was made (one client per examinee run).
        summary.count_calls(client.stats, CallStats(), client.price_per_mtok is not None)
    return summary
