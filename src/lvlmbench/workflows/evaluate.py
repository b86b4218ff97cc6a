"""The evaluate use case: ask examinees a stored benchmark's items (all, a ``limit`` subset, or
budgeted rounds ``until`` a question is decided), let an LLM read what the rules could not, and
score every model named. ``lvlmbench evaluate`` and ``api.evaluate`` both call :func:`evaluate`.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, replace

from lvlmbench.choice import ExtractorSummary
from lvlmbench.choice.accuracy import AccuracyRow, overall_rows, scored_answers
from lvlmbench.choice.ranks import AccuracyRanks, accuracy_ranks
from lvlmbench.choice.vlmeval_scores import CircularRow, MMERow, circular_table, mme_table
from lvlmbench.models import DEFAULT_CONCURRENCY, ModelClient, model_identity
from lvlmbench.runner import EvalSummary, ProgressFor, ProgressHook, run_examinees
from lvlmbench.store import Store, iter_items, require_benchmark
from lvlmbench.workflows._copies import merged_runs, run_copies
from lvlmbench.workflows._evaluate_options import EvaluateOptions, checked_specs, groupings_for
from lvlmbench.workflows._examinees import (
    check_specs,
    check_stored_names,
    imported_models,
    subset_for,
)
from lvlmbench.workflows._extraction import run_extractor
from lvlmbench.workflows._money import meter_for
from lvlmbench.workflows._rounds import BudgetedRun, run_budgeted
from lvlmbench.workflows._self_preference import self_preference
from lvlmbench.workflows._sync import run_sync

__all__ = [
    "EvaluateOptions",
    "EvaluateResult",
    "ProgressCallback",
    "check_options",
    "evaluate",
    "progress_for",
]

ProgressCallback = Callable[[str, int, int], None]
"""Called with (model, items finished so far, items in its run) after each item."""


@dataclass(frozen=True)
class EvaluateResult:
    """What :func:`evaluate` did and found."""

    benchmark: str
    runs: list[EvalSummary]
    """One per examinee run (models scored from the store only have none)."""
    accuracy: list[AccuracyRow]
    """Per (model, variant, group of ``by``), 95% intervals in ``row.estimate`` (clustered where
    items share a source, with the cluster, n items and n clusters)."""
    overall: list[AccuracyRow]
    """Per (model, variant): every group pooled."""
    by: tuple[str, ...] = ()
    """The facets the accuracy is grouped by."""
    groups: tuple[tuple[str, ...], ...] = ()
    """Every group of the benchmark's keyed items (an overall over fewer of them says so)."""
    models: tuple[str, ...] = ()
    """The identities the rows are stored under (endpoint and settings included), in order."""
    stored_only: tuple[str, ...] = ()
    """Names scored from stored responses, not run (imported players)."""
    circular: tuple[CircularRow, ...] = ()
    """A VLMEvalKit benchmark's CircularEval scores (empty for other benchmarks)."""
    mme: tuple[MMERow, ...] = ()
    """A VLMEvalKit MME benchmark's scores per category (empty for other benchmarks)."""
    extraction: ExtractorSummary | None = None
    budgeted: BudgetedRun | None = None
    """The decision of a run ``until`` a question is decided, with its items and calls."""
    open_items: int = 0
    """Open-ended items among those asked: their answers are stored, but no key scores them
    here (``lvlmbench judge`` does)."""
    keyed_items: int = 0
    """Items with a key among those asked (the ``limit`` subset when there is one): what a
    model that answered everything is scored over."""
    warnings: tuple[str, ...] = ()
    """What the figures should be read with (an examinee that also wrote the benchmark)."""
    ranks: AccuracyRanks | None = None
    """Each model's rank interval over the items all of them answered (None: under two)."""

    @property
    def group_noun(self) -> str:
        return f"{' / '.join(self.by) or 'all'} groups"

    @property
    def failed(self) -> bool:
        """Whether a call of some examinee failed (asked again on the next run)."""
        return any(run.failed for run in self.runs)

    def overall_accuracy(self) -> dict[str, float]:
        """model identity -> overall accuracy (default variant rows)."""
        return {row.model: row.accuracy for row in self.overall if row.variant == "default"}


@dataclass(frozen=True)
class _Plan:
    """The checked options against one store: who runs, who is scored only, which items."""

    specs: list[str]
    identities: tuple[str, ...]
    """Each spec's identity, the name its rows are stored under (read once, here)."""
    to_run: list[str]
    stored: list[str]
    facets: list[str]
    only: set[str] | None
    decided: tuple[int, ...] | None
    notes: tuple[str, ...] = ()
    """What the options became on this benchmark (a --by facet its items lack)."""


def check_options(options: EvaluateOptions) -> None:
    """The checks :func:`evaluate` makes before it looks at a store, for a front door to make
    before it opens (or creates) one: InvalidOptions, or RegistryError for a spec naming a
    provider that does not resolve."""
    checked_specs(options)


def evaluate(
    store: Store,
    benchmark: str,
    options: EvaluateOptions,
    progress: ProgressFor | None = None,
) -> EvaluateResult:
    """Ask every examinee of ``options.models`` every item it has not answered (resuming where
    a previous run stopped), then score every model named: accuracy per group of
    ``options.by`` and overall, with 95% intervals over items (clustered where they share a
    source). ``progress`` gives each examinee run its progress hook (the CLI's bars). Refused
    options raise InvalidOptions (a spec naming an unknown provider RegistryError) before
    anything is written."""
    plan = _plan(store, benchmark, options)
    budgeted: BudgetedRun | None = None
    only = plan.only
    if plan.decided is not None:
        budgeted = run_sync(_budgeted(store, benchmark, options, plan, progress))
        runs, only = budgeted.summaries, set(budgeted.used)
    elif options.workers != 1:
        runs = _in_copies(store, benchmark, options, plan)
    else:
        runs = run_sync(_run(store, benchmark, options, plan.to_run, only, progress))
    extraction = None
    if options.extract_with is not None:  # after the examinees: reads what they left unparseable
        extraction = run_sync(
            run_extractor(
                store,
                benchmark,
                options.extract_with,
                plan.identities,
                variant=options.variant,
                concurrency=options.concurrency or DEFAULT_CONCURRENCY,
            )
        )
    scored = _scored(store, benchmark, options.variant, plan.facets, plan.identities, only)
    return replace(
        scored,
        warnings=(
            *self_preference(require_benchmark(store, benchmark), plan.identities),
            *plan.notes,
        ),
        runs=runs,
        stored_only=tuple(plan.stored),
        extraction=extraction,
        budgeted=budgeted,
    )


def progress_for(callback: ProgressCallback | None) -> ProgressFor | None:
    """The runner's per-examinee progress hook, calling ``callback`` with the model's name (the
    identity its rows are stored under)."""
    if callback is None:
        return None

    @contextlib.contextmanager
    def hook(spec: str, _client: ModelClient) -> Iterator[ProgressHook]:
        name = model_identity(spec)
        yield lambda done, total: callback(name, done, total)

    return hook


def _plan(store: Store, benchmark: str, options: EvaluateOptions) -> _Plan:
    """The options checked, then looked up in the store: the facets it has, the ``limit``
    subset, the names scored from stored responses and the specs to run."""
    specs, decided = checked_specs(options)
    require_benchmark(store, benchmark)
    facets, notes = groupings_for(options.by, iter_items(store, benchmark), benchmark)
    only = subset_for(store, benchmark, options.limit, options.limit_seed)
    stored = imported_models(store, benchmark, specs)
    to_run = [m for m in specs if m not in stored]
    check_stored_names(store, benchmark, to_run)
    check_specs(to_run)
    if to_run or options.extract_with is not None:
        store.require_writable()  # refused before any paid call, not at its first write
    # Rows are stored under each model's identity (endpoint and options included), not the
    # spec as typed; imported names pass through unchanged.
    identities = tuple(model_identity(spec) for spec in specs)
    return _Plan(specs, identities, to_run, stored, facets, only, decided, tuple(notes))


async def _run(
    store: Store,
    benchmark: str,
    options: EvaluateOptions,
    specs: list[str],
    only: Collection[str] | None,
    progress: ProgressFor | None,
) -> list[EvalSummary]:
    """The examinees ``specs`` on the items ``only`` (None: all), cached and resumable."""
    return await run_examinees(
        store,
        benchmark,
        specs,
        variant=options.variant,
        concurrency=options.concurrency,
        epochs=options.epochs,
        only=only,
        progress=progress or _silent,
    )


@contextlib.contextmanager
def _silent(_spec: str, _client: ModelClient) -> Iterator[ProgressHook | None]:
    yield None


async def _budgeted(
    store: Store,
    benchmark: str,
    options: EvaluateOptions,
    plan: _Plan,
    progress: ProgressFor | None,
) -> BudgetedRun:
    """Doubling rounds of the stratified draw until ``options.until`` is decided."""
    assert plan.decided is not None

    async def run_round(ids: Collection[str] | None) -> list[EvalSummary]:
        return await _run(store, benchmark, options, plan.to_run, ids, progress)

    return await run_budgeted(
        store,
        benchmark,
        models=[plan.identities[i] for i in plan.decided],
        question="rank" if options.until == "rank" else "compare",
        run_round=run_round,
        calls_per_item=len(plan.to_run) * options.epochs,
        variant=options.variant,
        alpha=options.alpha,
        budget=options.budget,
        first_round=options.first_round,
        seed=options.limit_seed,
        only=plan.only,
        money=meter_for(
            store,
            benchmark,
            plan.to_run,
            variant=options.variant,
            epochs=options.epochs,
            budget_usd=options.budget_usd,
        ),
    )


def _in_copies(
    store: Store, benchmark: str, options: EvaluateOptions, plan: _Plan
) -> list[EvalSummary]:
    """The examinee runs split over ``options.workers`` local processes, each an ordinary
    ``lvlmbench evaluate`` of the same specs (settings written in) that takes leases in the
    store; each model's runs merged as parallel runs."""
    argv = [sys.executable, "-m", "lvlmbench", "evaluate", "--workers", "1", "--json"]
    argv += ["--variant", options.variant, "--by", ",".join(plan.facets)]
    argv += ["--epochs", str(options.epochs), "--limit-seed", str(options.limit_seed)]
    argv += [] if options.limit is None else ["--limit", str(options.limit)]
    argv += [] if options.concurrency is None else ["--concurrency", str(options.concurrency)]
    argv += [arg for spec in plan.to_run for arg in ("--model", spec)]
    # The store's URL (a password in it included) goes by the environment, not the argv.
    env = {"LVLMBENCH_STORE": store.url}
    outputs = run_copies([*argv, "--", benchmark], options.workers, env)
    return [
        merged_runs([out["runs"][i] for out in outputs], EvalSummary)
        for i in range(len(plan.to_run))
    ]


def _scored(
    store: Store,
    benchmark: str,
    variant: str,
    facets: list[str],
    identities: tuple[str, ...],
    only: set[str] | None,
) -> EvaluateResult:
    """Every model's accuracy per group and overall (over the ``only`` items when given), and a
    VLMEvalKit benchmark's CircularEval and MME scores."""
    answers = scored_answers(store, benchmark, variant=variant, item_ids=only)
    rows = answers.table(facets, identities)
    asked = [item for item in iter_items(store, benchmark) if only is None or item.id in only]
    circular: list[CircularRow] = []
    mme: list[MMERow] = []
    if require_benchmark(store, benchmark).kind == "vlmeval":
        # Over the items asked: a --limit run's CircularEval and MME are of its subset, not of
        # questions it never asked (counted wrong, they read as a model's failures).
        circular = circular_table(
            store, benchmark, variant=variant, models=identities, items=asked, by=facets
        )
        mme = mme_table(store, benchmark, variant=variant, models=identities, items=asked)
    open_items = sum(item.kind == "open" for item in asked)
    keyed = sum(item.kind != "open" and item.answer is not None for item in asked)
    overall = overall_rows(rows)
    return EvaluateResult(
        benchmark=benchmark,
        runs=[],
        open_items=open_items,
        keyed_items=keyed,
        accuracy=rows,
        overall=overall,
        by=tuple(facets),
        groups=tuple(answers.groups(facets)),
        models=identities,
        circular=tuple(circular),
        mme=tuple(mme),
        ranks=accuracy_ranks(answers, _full(overall, identities, variant, keyed), variant=variant),
    )


def _full(
    overall: list[AccuracyRow], identities: tuple[str, ...], variant: str, keyed: int
) -> list[str]:
    """The models that answered every keyed item asked: the only ones ranked (as the report
    ranks them), on the items they all answered; a model that answered 6 of 720 items would
    otherwise shrink the others' common set to those 6."""
    answered = {r.model: r.items for r in overall if r.variant == variant}
    return [m for m in identities if keyed and answered.get(m, 0) >= keyed]
