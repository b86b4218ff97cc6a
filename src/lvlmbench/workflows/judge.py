"""The judge use case: ask the examinees whose answers are missing, run the judge (here or in
worker copies), and read back the protocol's results. ``lvlmbench judge PROTOCOL`` and
``api.judge`` both call :func:`judge_benchmark`, so a run with nothing to judge fails alike
through both front doors (:class:`NothingToJudge`).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.judging import (
    PAIRWISE,
    PAIRWISE_REF,
    REFERENCE,
    REFERENCE_PREFIX,
    SCORE,
    JudgeRunSummary,
    PairwiseReport,
    ProgressHook,
    items_in,
    make_references,
    missing_answers,
    pairwise_report,
    protocol_for,
    reference_name,
    score_report,
)
from lvlmbench.models import DEFAULT_CONCURRENCY, ChatModel, ModelClient, spec_label
from lvlmbench.runner import run_examinees
from lvlmbench.store import Store, iter_items, iter_judgments, require_benchmark
from lvlmbench.workflows._copies import merged_runs, run_copies
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows._examinees import imported_models, subset_for
from lvlmbench.workflows._judge_options import (
    JudgeOptions,
    Resolve,
    check_judge_options,
    players_of,
)
from lvlmbench.workflows._judge_protocols import protocol_run
from lvlmbench.workflows._sync import run_sync

__all__ = ["Bars", "JudgeResult", "Load", "NothingToJudge", "judge_benchmark"]

Load = Callable[[str], ChatModel]
"""A model spec -> the chat model that serves it."""
Bars = Callable[[str, ModelClient], AbstractContextManager[ProgressHook | None]]
"""A progress display: (label, client) -> a context giving the run its progress hook (the
CLI's bars; None from the API)."""


class NothingToJudge(RuntimeError):
    """A judge run that had nothing to judge (no answers, no pairs, every unit missing an
    answer, caption or reference); the message says why, ``result`` what the run did. The CLI
    prints the run and exits 1 with it."""

    def __init__(self, message: str, result: JudgeResult) -> None:
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class JudgeResult:
    """What one judge run did, and the protocol's results over the stored judgments."""

    benchmark: str
    run: JudgeRunSummary
    players: tuple[str, ...]
    """The examinees' identities (the names their answers and verdicts are stored under)."""
    reference: str | None = None
    """score: the reference player the models were scored against."""
    report: PairwiseReport | None = None
    """pairwise: ratings, win rates and diagnostics under ``options.combine``."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    """score and self-judging protocols: the summary rows (one per model)."""
    items: int = 0
    """How many items the run and its results cover (the ``limit`` subset's size)."""
    items_total: int = 0
    """How many items the benchmark has."""
    epochs: int = 1
    """Epochs of answers judged per item (``epochs``); the results average an item's."""

    @property
    def scope(self) -> str:
        """ "over 20 of 720 items" when the results cover a ``limit`` subset, else ""."""
        return f"over {self.items} of {self.items_total} items" if self.limited else ""

    @property
    def limited(self) -> bool:
        return self.items < self.items_total

    @property
    def epochs_note(self) -> str:
        """ "3 epochs: each item's verdicts averaged, the item is the unit" above one epoch,
        else ""."""
        if self.epochs == 1:
            return ""
        return f"{self.epochs} epochs: each item's epochs averaged, the item is the unit"


def judge_benchmark(
    store: Store,
    benchmark: str,
    options: JudgeOptions,
    *,
    resolve: Resolve,
    load: Load,
    bars: Bars | None = None,
) -> JudgeResult:
    """Judge ``options.models``' answers on ``benchmark`` with ``options.judge``. Refused
    options raise InvalidOptions (RegistryError for a spec) before anything is asked; a run
    with nothing to judge raises :class:`NothingToJudge` after its summary is complete (units
    that failed are in ``result.run.failed``, asked again on the next run). ``resolve`` and
    ``load`` map specs to identities and models (the front door's, which tests replace)."""
    check_judge_options(options, resolve)
    _check_items(store, benchmark)
    only = subset_for(store, benchmark, options.limit, options.limit_seed)
    players = players_of(options.models, resolve)
    reference = _reference_for(store, benchmark, options, resolve)
    if options.workers != 1:
        run = _in_copies(store, benchmark, options)
    else:
        judged = _judged_here(store, benchmark, options, players, reference, load, bars, only)
        run = run_sync(judged)
    result = _results(store, benchmark, options, tuple(players), reference, run, only)
    also = [reference] if reference is not None else []
    empty = _empty_reason(store, benchmark, [*players, *also], run, only)
    if empty:
        raise NothingToJudge(empty, result)
    return result


def _check_items(store: Store, benchmark: str) -> None:
    """InvalidOptions for a benchmark no judge can judge: no items, or only items with a key
    (a judge compares open answers; keyed ones are scored by ``evaluate`` exactly)."""
    require_benchmark(store, benchmark)
    kinds = Counter(item.kind for item in iter_items(store, benchmark))
    if not kinds:
        raise InvalidOptions(f"benchmark {benchmark!r} has no items; `lvlmbench ls` lists them")
    if not kinds["open"]:
        counted = ", ".join(f"{n} {_KIND_NAMES[kind]}" for kind, n in sorted(kinds.items()))
        raise InvalidOptions(
            f"benchmark {benchmark!r} has no open-ended items ({counted}): a judge compares "
            f"open answers; score its keyed answers with `lvlmbench evaluate {benchmark}`"
        )


_KIND_NAMES = {"mc": "multiple-choice", "tf": "true/false", "open": "open-ended"}


def _reference_for(
    store: Store, benchmark: str, options: JudgeOptions, resolve: Resolve
) -> str | None:
    """score: the reference player, the dataset's own (TouchStone's ``gpt4_ha_answer``) unless
    ``regenerate_reference`` asks for a caption-assisted one by the writer; InvalidOptions
    when neither is possible, before anything is asked or written."""
    if options.protocol != SCORE:
        return None
    if options.regenerate_reference:
        return reference_name(resolve(options.writer_spec))
    items = list(iter_items(store, benchmark))
    if items and all(not item.reference for item in items):
        raise InvalidOptions(
            f"no item of {benchmark!r} carries a reference answer (TouchStone's gpt4_ha_answer "
            "column); pass --regenerate-reference [--writer SPEC] to have a text model write "
            "a caption-assisted one"
        )
    return REFERENCE


async def _judged_here(
    store: Store,
    benchmark: str,
    options: JudgeOptions,
    players: dict[str, str],
    reference: str | None,
    load: Load,
    bars: Bars | None,
    only: Collection[str] | None,
) -> JudgeRunSummary:
    """Missing answers asked first, then the judge's run in this process (on the items in
    ``only``, the ``limit`` subset, when given)."""
    await _answer_missing(store, benchmark, players, bars, only, options.epochs)
    judge = options.judge_spec
    client = ModelClient(load(judge), store, concurrency=options.concurrency)
    try:
        await client.check()  # a dead judge endpoint stops here, in seconds
        if options.regenerate_reference:
            await _write_references(store, benchmark, options, client, load, bars)
        with _bar(bars, f"judge {spec_label(judge)}", client) as hook:
            run = protocol_run(options, reference)
            # Asked for a subset (or epochs) only: a protocol written before ``only`` (or
            # ``epochs``) existed still runs every whole-benchmark judgment it did.
            more: dict[str, Any] = {} if only is None else {"only": only}
            more |= {"epochs": options.epochs} if options.epochs > 1 else {}
            summary = await run(store, benchmark, list(players), client, hook, **more)
    finally:
        await client.aclose()
    if reference == REFERENCE:
        without = sum(not item.reference for item in items_in(store, benchmark, only))
        if without:
            summary.warnings.append(
                f"{without} items have no reference answer: they are counted as missing, not scored"
            )
    return summary


def _bar(
    bars: Bars | None, label: str, client: ModelClient
) -> AbstractContextManager[ProgressHook | None]:
    return bars(label, client) if bars is not None else nullcontext(None)


def _is_reference(player: str) -> bool:
    return player == REFERENCE or player.startswith(REFERENCE_PREFIX)


async def _answer_missing(
    store: Store,
    benchmark: str,
    players: dict[str, str],
    bars: Bars | None,
    only: Collection[str] | None,
    epochs: int,
) -> None:
    """Ask the examinees whose answers are missing on the items judged (``only``, when
    given) in any of the ``epochs``, through the examinee runner as ``evaluate --epochs``
    does; resumable: answered samples are skipped."""
    imported = set(imported_models(store, benchmark, list(players.values())))  # never run
    todo = [
        players[m]
        for m, n in missing_answers(store, benchmark, list(players), only, epochs).items()
        if n
        and m != REFERENCE
        and not m.startswith(REFERENCE_PREFIX)
        and players[m] not in imported
    ]
    if not todo:
        return

    def progress(spec: str, client: ModelClient) -> AbstractContextManager[ProgressHook | None]:
        return _bar(bars, f"{spec_label(spec)} [default]", client)

    await run_examinees(
        store,
        benchmark,
        todo,
        concurrency=DEFAULT_CONCURRENCY,
        epochs=epochs,
        only=only,
        progress=progress,
    )


async def _write_references(
    store: Store,
    benchmark: str,
    options: JudgeOptions,
    judge: ModelClient,
    load: Load,
    bars: Bars | None,
) -> None:
    """The caption-assisted reference by the writer (the judge's own client when the judge
    writes it), resumable and cached like any examinee run."""
    spec = options.writer_spec
    own = spec == options.judge_spec
    writer = judge if own else ModelClient(load(spec), store, concurrency=options.concurrency)
    try:
        if not own:
            await writer.check()
        with _bar(bars, f"reference {spec_label(spec)}", writer) as hook:
            await make_references(store, benchmark, writer, on_progress=hook)
    finally:
        if not own:
            await writer.aclose()


def _in_copies(store: Store, benchmark: str, options: JudgeOptions) -> JudgeRunSummary:
    """The judge run split over ``options.workers`` local processes, each an ordinary
    ``lvlmbench judge`` of the same specs that takes leases in the store; merged as parallel
    runs."""
    argv = [sys.executable, "-m", "lvlmbench", "judge", options.protocol, "--workers", "1"]
    argv += ["--json", "--judge", options.judge_spec, "--concurrency", str(options.concurrency)]
    argv += [arg for spec in options.models for arg in ("--model", spec)]
    if options.protocol == PAIRWISE:
        argv += ["--combine", options.combine]
        argv += ["--reference-free"] if options.reference_free else []
        argv += [] if options.play_reference else ["--no-play-reference"]
    if options.regenerate_reference:
        argv += ["--regenerate-reference", "--writer", options.writer_spec]
    if options.limit is not None:
        argv += ["--limit", str(options.limit), "--limit-seed", str(options.limit_seed)]
    argv += ["--epochs", str(options.epochs)] if options.epochs > 1 else []
    # The store's URL (a password in it included) goes by the environment, not the argv.
    outputs = run_copies([*argv, "--", benchmark], options.workers, {"LVLMBENCH_STORE": store.url})
    return merged_runs([out["run"] for out in outputs], JudgeRunSummary)


def _results(
    store: Store,
    benchmark: str,
    options: JudgeOptions,
    players: tuple[str, ...],
    reference: str | None,
    run: JudgeRunSummary,
    only: Collection[str] | None,
) -> JudgeResult:
    """The protocol's results over every stored judgment of this judge on the items judged
    (``only``, the ``limit`` subset, when given: judgments of other items are left out) and
    of the epochs judged (those of a run with more epochs are left out)."""
    total = sum(1 for _ in iter_items(store, benchmark))
    items = {item.id: item for item in items_in(store, benchmark, only)}
    n, epochs = len(items), options.epochs
    if options.protocol == PAIRWISE:
        protocol = PAIRWISE if options.reference_free else PAIRWISE_REF
        report = pairwise_report(
            store,
            benchmark,
            run.judge,
            protocol=protocol,
            combine=options.combine_rule,
            only=only,
            epochs=options.epochs,
        )
        return JudgeResult(
            benchmark, run, players, report=report, items=n, items_total=total, epochs=epochs
        )
    stored = iter_judgments(store, judge=run.judge, protocol=options.protocol)
    judgments = [j for j in stored if j.item_id in items and j.epoch < options.epochs]
    if options.protocol == SCORE:  # scored against the reference this run used
        assert reference is not None
        rows = [s.row() for s in score_report(judgments, reference, items).values()]
        return JudgeResult(
            benchmark,
            run,
            players,
            reference=reference,
            rows=rows,
            items=n,
            items_total=total,
            epochs=epochs,
        )
    summarise = protocol_for(options.protocol).summarise
    assert summarise is not None
    rows = [s.row() for s in summarise(judgments, items).values()]
    mine = [r for r in rows if r["model"] in players]
    return JudgeResult(
        benchmark, run, players, rows=mine, items=n, items_total=total, epochs=epochs
    )


def _empty_reason(
    store: Store,
    benchmark: str,
    players: list[str],
    s: JudgeRunSummary,
    only: Collection[str] | None,
) -> str:
    """Why a judge run had nothing to judge, or "" when it judged something. A player with no
    answer at all (on the items judged) is a reason too: its column would be silently empty."""
    missing = missing_answers(store, benchmark, players, only)
    items = len(items_in(store, benchmark, only))
    absent = [p for p, n in missing.items() if n == items]
    if absent:
        return (
            f"no answers of {', '.join(absent)} to judge on {benchmark!r} "
            f"(all {items} missing); `lvlmbench evaluate` asks examinees first"
        )
    if s.total == 0:
        need = " (pairwise judging needs two players)" if len(players) < 2 else ""
        return f"{s.judge} [{s.protocol}] had nothing to judge on {benchmark!r}{need}"
    if s.missing == s.total:
        return (
            f"{s.judge} [{s.protocol}] had nothing to judge on {benchmark!r}: every unit "
            f"({s.missing}) lacks an answer, caption or reference"
        )
    return ""
