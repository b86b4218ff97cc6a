"""`lvlmbench evaluate BENCH --model M ...`: run examinees on a stored benchmark and score them."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from typing import Annotated, Any

import typer

from lvlmbench.choice.accuracy import (
    GROUPINGS,
    available_facets,
    facet_name,
    scored_answers,
)
from lvlmbench.choice.vlmeval_scores import circular_table, mme_table
from lvlmbench.cli._budgeted import (
    BudgetedRun,
    check_round_options,
    parse_until,
    print_budgeted,
    run_budgeted,
)
from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    StoreOption,
    check_concurrency,
    console,
    friendly_errors,
    open_store,
    paid_text,
    print_json,
    print_reasons,
    print_warnings,
    progress_bar,
)
from lvlmbench.cli._extract import print_extraction, run_extractor
from lvlmbench.cli._fanout import Workers, combined, run_workers
from lvlmbench.cli._money import check_budget_usd, meter_for, require_prices
from lvlmbench.cli._settings import (
    MaxTokens,
    Params,
    Seed,
    SystemPrompt,
    Temperature,
    TopP,
    apply_settings,
    generation_settings,
)
from lvlmbench.cli._tables import accuracy_pivot, accuracy_rows_json, overall_json
from lvlmbench.cli._vlmeval_tables import circular_json, circular_pivot, mme_json, mme_pivot
from lvlmbench.models import (
    CHAT_PROVIDERS,
    DEFAULT_CONCURRENCY,
    ModelClient,
    RegistryError,
    model_identity,
    parse_spec,
    resolve_spec,
    spec_label,
)
from lvlmbench.models.openai import LOCAL_CONCURRENCY
from lvlmbench.runner import (
    VARIANTS,
    EvalSummary,
    ProgressHook,
    run_examinees,
    stratified_subset,
)
from lvlmbench.store import (
    Store,
    did_you_mean,
    iter_benchmark_responses,
    iter_items,
    list_stored,
    require_benchmark,
)

__all__ = [
    "check_specs",
    "check_stored_names",
    "could_be_imported",
    "evaluate",
    "imported_models",
    "parse_groupings",
    "run_models",
    "subset_for",
]

Models = Annotated[list[str], typer.Option("--model", "-m", help="Examinee spec; repeatable.")]


def parse_groupings(by: str, available: Sequence[str] = GROUPINGS) -> list[str]:
    """``capability,l2-category`` -> validated facet names (``available``: the benchmark's
    facets, see :func:`available_facets`; ``l2-category`` names ``l2_category``)."""
    facets = [f.strip() for f in by.split(",") if f.strip()]
    unknown = [f for f in facets if f not in available and facet_name(f) not in available]
    if unknown:
        raise BadInput(
            f"--by {by!r}: unknown facet {unknown[0]!r}; choose from {', '.join(available)}"
        )
    return facets


def could_be_imported(spec: str) -> bool:
    """Whether ``spec`` is no provider spec at all but may name an imported player (a
    prediction file's ``llava-7b``): a spec naming a known provider must resolve, so its typos
    fail before the store is opened."""
    provider = spec.partition("?")[0].partition("/")[0]
    return "?" not in spec and provider not in CHAT_PROVIDERS


def imported_models(store: Store, benchmark: str, specs: list[str]) -> list[str]:
    """The ``--model`` names that are no runnable spec but have responses stored on
    ``benchmark`` (imported prediction files, web submissions): scored, not run."""
    found = []
    for spec in specs:
        try:
            parse_spec(spec)
        except RegistryError:
            if next(iter_benchmark_responses(store, benchmark, model=spec), None) is not None:
                found.append(spec)
    return found


def check_stored_names(store: Store, benchmark: str, specs: list[str]) -> None:
    """BadInput naming the closest stored models when a ``--model`` is neither a runnable
    spec nor a name with responses on ``benchmark`` (a misspelt imported player, or a bare
    ``random`` for ``baseline/random``)."""
    for spec in specs:
        if not could_be_imported(spec):
            continue
        try:
            parse_spec(spec)
        except RegistryError as exc:
            known = [m for row in list_stored(store) if row.name == benchmark for m in row.models]
            hint = did_you_mean(spec, known)
            if hint:
                raise BadInput(
                    f"--model {spec!r} is no model spec and has no responses on {benchmark!r}"
                    f"{hint}; `lvlmbench ls` lists the models run on each benchmark"
                ) from None
            raise exc from None


def check_specs(specs: list[str]) -> None:
    """Reject a malformed spec, an unknown provider, or an unknown or malformed option before
    any work is stored (RegistryError, exit 2), so a typo in the last --model does not leave the
    others' runs half done."""
    for spec in specs:
        resolve_spec(spec)


async def run_models(
    store: Store,
    benchmark: str,
    specs: list[str],
    *,
    variant: str,
    concurrency: int | None,
    show_progress: bool,
    epochs: int = 1,
    only: Collection[str] | None = None,
) -> list[EvalSummary]:
    """:func:`lvlmbench.runner.run_examinees` with a progress bar per examinee."""

    def bar(spec: str, client: ModelClient) -> AbstractContextManager[ProgressHook | None]:
        return progress_bar(f"{spec_label(spec)} [{variant}]", show_progress, client)

    return await run_examinees(
        store,
        benchmark,
        specs,
        variant=variant,
        concurrency=concurrency,
        epochs=epochs,
        only=only,
        progress=bar,
    )


def _worker_summaries(outputs: list[dict[str, Any]], specs: list[str]) -> list[EvalSummary]:
    """Each model's run summed over the --workers processes (each printed one run per spec)."""
    return [
        EvalSummary(**combined([out["runs"][i] for out in outputs], "model"))
        for i in range(len(specs))
    ]


def subset_for(store: Store, benchmark: str, limit: int | None, seed: int) -> set[str] | None:
    """The ``--limit`` subset's item ids (None: every item)."""
    if limit is None:
        return None
    if limit < 1:
        raise BadInput(f"--limit {limit}: expected a whole number of at least 1")
    return stratified_subset(iter_items(store, benchmark), limit, seed)


def _check_until(
    until: str | None,
    models: list[str],
    budgets: tuple[int | None, float | None],
    workers: int,
    extract_with: str | None,
    round_options: tuple[float, int],
) -> tuple[int, ...] | None:
    """Positions of the models ``--until`` decides on (None without it); BadInput for
    options that need it or do not fit a budgeted run. ``budgets``: ``--budget`` (calls) and
    ``--budget-usd``."""
    budget, budget_usd = budgets
    if until is None:
        for given, option in ((budget, "--budget"), (budget_usd, "--budget-usd")):
            if given is not None:
                raise BadInput(f"{option} caps a budgeted run: give --until rank or compare:A,B")
        return None
    if budget is not None and budget < 1:
        raise BadInput(f"--budget {budget}: expected a whole number of calls, at least 1")
    check_budget_usd(budget_usd)
    if workers != 1 or extract_with is not None:
        # Rounds decide between runs on the stored scores: one process, rule-read answers.
        raise BadInput("--until runs rounds in one process: leave out --workers and --extract-with")
    check_round_options(*round_options)
    return parse_until(until, models)


@friendly_errors
def evaluate(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    model: Models,
    variant: Annotated[str, typer.Option(help=f"One of {', '.join(VARIANTS)}.")] = "default",
    by: Annotated[
        str, typer.Option(help="Group accuracy by these facets (comma-separated).")
    ] = "difficulty",
    concurrency: Annotated[
        int | None,
        typer.Option(
            # Parentheses, not brackets: rich reads "[default: ...]" as markup and drops it.
            help=f"Requests in flight per endpoint (default: {DEFAULT_CONCURRENCY}; "
            f"{LOCAL_CONCURRENCY} for a server on this machine or a private network; what a "
            "local hf/ model asks for to keep its batches full).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    extract_with: Annotated[
        str | None,
        typer.Option(
            help="LLM (PROVIDER/NAME) that reads the answers the rules leave unparseable; "
            "its reads are stored and counted apart ('read by LLM').",
            show_default=False,
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            help="Ask only N items: a seeded subset stratified by capability/category and "
            "difficulty, the same on every run; accuracy is over it.",
            show_default=False,
        ),
    ] = None,
    limit_seed: Annotated[int, typer.Option(help="Seed of the --limit subset.")] = 0,
    epochs: Annotated[
        int,
        typer.Option(
            min=1,
            help="Answers per item, each cached and stored apart (asked anew even at "
            "temperature 0); accuracy is their mean, its interval over items.",
        ),
    ] = 1,
    max_tokens: MaxTokens = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    seed: Seed = None,
    system_prompt: SystemPrompt = None,
    param: Params = None,
    workers: Workers = 1,
    until: Annotated[
        str | None,
        typer.Option(
            help="Ask items in doubling rounds of a stratified draw (seeded by --limit-seed) "
            "until answered: rank (every adjacent pair of models separated) or compare:A,B "
            "(is A better than B); anytime-valid tests at --alpha.",
            show_default=False,
        ),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            help="With --until: at most N examinee calls (items × models run × epochs).",
            show_default=False,
        ),
    ] = None,
    budget_usd: Annotated[
        float | None,
        typer.Option(
            "--budget-usd",
            help="With --until: at most X US dollars for the examinees' answers, at each "
            "spec's price=IN,OUT (USD per million input, output tokens; every model run needs "
            "one). Rounds are sized from the dearest item seen; stored answers count at their "
            "tokens, so a rerun stops at the same place and pays nothing.",
            show_default=False,
        ),
    ] = None,
    alpha: Annotated[
        float, typer.Option(help="With --until: the chance of a wrong decision at most.")
    ] = 0.05,
    first_round: Annotated[
        int, typer.Option(help="With --until: items in the first round (then doubling).")
    ] = 50,
) -> None:
    """Ask every examinee every item (resuming where a previous run stopped) and print accuracy
    with Wilson 95% intervals."""
    if variant not in VARIANTS:
        raise BadInput(f"--variant {variant!r}: choose from {', '.join(VARIANTS)}")
    if concurrency is not None:
        check_concurrency(concurrency)
    check_concurrency(workers, "--workers")
    settings = generation_settings(max_tokens, temperature, top_p, seed, system_prompt, param)
    decided = _check_until(
        until, model, (budget, budget_usd), workers, extract_with, (alpha, first_round)
    )
    model = apply_settings(model, settings)
    # Every spec naming a provider is checked before the store is opened (a typo writes
    # nothing); other names may be imported players, looked up in the store below.
    check_specs([m for m in model if not could_be_imported(m)])
    if budget_usd is not None:  # imported players are not run: they cost nothing
        require_prices([m for m in model if not could_be_imported(m)])
    if extract_with is not None:
        check_specs([extract_with])
    opened = open_store(store)
    stored_benchmark = require_benchmark(opened, benchmark)
    facets = parse_groupings(by, available_facets(iter_items(opened, benchmark)))
    only = subset_for(opened, benchmark, limit, limit_seed)
    stored = imported_models(opened, benchmark, model)
    to_run = [m for m in model if m not in stored]
    check_stored_names(opened, benchmark, to_run)
    check_specs(to_run)
    budgeted: BudgetedRun | None = None

    async def run_round(ids: Collection[str] | None) -> list[EvalSummary]:
        return await run_models(
            opened,
            benchmark,
            to_run,
            variant=variant,
            concurrency=concurrency,
            show_progress=not as_json,
            epochs=epochs,
            only=ids,
        )

    if decided is not None:
        budgeted = asyncio.run(
            run_budgeted(
                opened,
                benchmark,
                models=[model_identity(model[i]) for i in decided],
                question="rank" if until == "rank" else "compare",
                run_round=run_round,
                calls_per_item=len(to_run) * epochs,
                variant=variant,
                alpha=alpha,
                budget=budget,
                first_round=first_round,
                seed=limit_seed,
                only=only,
                money=meter_for(
                    opened,
                    benchmark,
                    to_run,
                    variant=variant,
                    epochs=epochs,
                    budget_usd=budget_usd,
                ),
            )
        )
        summaries, only = budgeted.summaries, set(budgeted.used)
    elif workers != 1:
        summaries = _worker_summaries(run_workers(workers), to_run)
    else:
        summaries = asyncio.run(run_round(only))
    # Rows are stored under each model's identity (endpoint and options included), not the
    # spec as typed; imported names pass through unchanged.
    identities = [model_identity(spec) for spec in model]
    extraction = None
    if extract_with is not None:  # after the examinees: reads only what they left unparseable
        extraction = asyncio.run(
            run_extractor(
                opened,
                benchmark,
                extract_with,
                identities,
                variant=variant,
                concurrency=concurrency or DEFAULT_CONCURRENCY,
            )
        )
    answers = scored_answers(opened, benchmark, variant=variant, item_ids=only)
    rows = answers.table(facets, identities)
    # The groups an overall is over: a model's overall over fewer of them says so.
    groups, noun = answers.groups(facets), f"{' / '.join(facets) or 'all'} groups"
    vlmeval = stored_benchmark.kind == "vlmeval"  # its CircularEval and MME scores
    circular = (
        circular_table(opened, benchmark, variant=variant, models=identities) if vlmeval else []
    )
    mme = mme_table(opened, benchmark, variant=variant, models=identities) if vlmeval else []
    if as_json:
        report: dict[str, Any] = {"runs": [vars(s) for s in summaries]}
        report["accuracy"] = accuracy_rows_json(rows, facets)
        report["overall"] = overall_json(rows, groups, noun)
        report |= {"extraction": vars(extraction)} if extraction else {}
        report |= {"budget": budgeted.as_json()} if budgeted else {}
        report |= {"circular": circular_json(circular)} if circular else {}
        print_json(report | ({"mme": mme_json(mme)} if mme else {}))
    else:
        title = f"{benchmark}: accuracy % (95% CI over items)"
        console.print(accuracy_pivot(rows, title, groups, noun))
        if circular:
            title = (
                f"{benchmark}: CircularEval (a question counts only if all its copies are right)"
            )
            console.print(circular_pivot(circular, title))
        if mme:
            console.print(mme_pivot(mme, f"{benchmark}: MME score = acc + acc+ per category"))
        if stored:
            console.print(f"scored from the store (not run): {', '.join(stored)}")
        for s in summaries:
            console.print(
                f"{s.model}: {s.ok} ok, {s.unparseable} unparseable, {s.refused} refused, "
                f"{s.failed} failed, {s.truncated} truncated, {s.skipped} already done, "
                f"{s.wall_s:.1f}s{paid_text(s)}"
            )
            print_reasons(s.reasons, f"{s.model}: not ok")
            print_warnings(s.warnings)
        if extraction is not None:
            print_extraction(extraction)
        if budgeted is not None:
            print_budgeted(budgeted)
    if any(s.failed for s in summaries):
        raise typer.Exit(EXIT_FAILURES)
