"""`lvlmbench evaluate BENCH --model M ...`: run examinees on a stored benchmark and score them.

The command parses its options into :class:`lvlmbench.workflows.EvaluateOptions`, calls the use
case :func:`lvlmbench.workflows.evaluate` (what ``api.evaluate`` calls too) and prints."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from lvlmbench.cli._common import (
    EXIT_FAILURES,
    StoreOption,
    console,
    friendly_errors,
    open_store,
    outcomes_text,
    paid_text,
    print_json,
    print_reasons,
    print_warnings,
)
from lvlmbench.cli._evaluate_options import (
    Alpha,
    Budget,
    BudgetUsd,
    By,
    Concurrency,
    Epochs,
    ExtractWith,
    FirstRound,
    Limit,
    LimitSeed,
    Models,
    Until,
    Variant,
)
from lvlmbench.cli._evaluate_set import (
    Benchmarks,
    EvalSetFile,
    chosen,
    print_set,
    set_json,
)
from lvlmbench.cli._extract import print_extraction
from lvlmbench.cli._runs import print_budgeted, progress_bars
from lvlmbench.cli._settings import (
    MaxTokens,
    Params,
    Seed,
    SystemPrompt,
    Temperature,
    TopP,
    Workers,
    generation_settings,
)
from lvlmbench.cli._tables import accuracy_pivot, accuracy_rows_json, overall_json
from lvlmbench.cli._vlmeval_tables import circular_json, circular_pivot, mme_json, mme_pivot
from lvlmbench.workflows import EvaluateOptions, EvaluateResult, check_options, evaluate_many
from lvlmbench.workflows import evaluate as evaluate_benchmark

__all__ = ["Models", "evaluate"]

_DEFAULTS = EvaluateOptions(models=())
"""The command's defaults are the use case's (and so the Python API's)."""
_BY = ",".join(_DEFAULTS.by)


@friendly_errors
def evaluate(
    ctx: typer.Context,
    benchmark: Benchmarks = None,
    model: Models = [],  # noqa: B006 - typer reads the default; the list is never mutated
    variant: Variant = _DEFAULTS.variant,
    by: By = _BY,
    concurrency: Concurrency = _DEFAULTS.concurrency,
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    extract_with: ExtractWith = _DEFAULTS.extract_with,
    limit: Limit = _DEFAULTS.limit,
    limit_seed: LimitSeed = _DEFAULTS.limit_seed,
    epochs: Epochs = _DEFAULTS.epochs,
    max_tokens: MaxTokens = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    seed: Seed = None,
    system_prompt: SystemPrompt = None,
    param: Params = None,
    workers: Workers = _DEFAULTS.workers,
    until: Until = _DEFAULTS.until,
    budget: Budget = _DEFAULTS.budget,
    budget_usd: BudgetUsd = _DEFAULTS.budget_usd,
    alpha: Alpha = _DEFAULTS.alpha,
    first_round: FirstRound = _DEFAULTS.first_round,
    eval_set: EvalSetFile = None,
) -> None:
    """Ask every examinee every item (resuming where a previous run stopped) and print accuracy
    with 95% intervals over items, clustered where items share a source."""
    options = EvaluateOptions(
        models=tuple(model),
        variant=variant,
        by=tuple(by.split(",")),
        concurrency=concurrency,
        extract_with=extract_with,
        limit=limit,
        limit_seed=limit_seed,
        epochs=epochs,
        settings=generation_settings(max_tokens, temperature, top_p, seed, system_prompt, param),
        workers=workers,
        until=until,
        budget=budget,
        budget_usd=budget_usd,
        alpha=alpha,
        first_round=first_round,
    )
    names, options = chosen(ctx, benchmark or [], options, eval_set)
    check_options(options)  # before the store is opened: a typo writes nothing
    bars = progress_bars(options.variant, not as_json)
    if len(names) > 1:
        many = evaluate_many(open_store(store), names, options, bars)
        print_json(set_json(many, result_json)) if as_json else print_set(many, print_result)
        if many.failed:
            raise typer.Exit(EXIT_FAILURES)
        return
    result = evaluate_benchmark(open_store(store), names[0], options, bars)
    print_json(result_json(result)) if as_json else print_result(result)
    if result.failed:
        raise typer.Exit(EXIT_FAILURES)


def result_json(result: EvaluateResult) -> dict[str, Any]:
    """``--json``: the runs, the accuracy rows and overall, and what else the run found."""
    report: dict[str, Any] = {"runs": [vars(s) for s in result.runs]}
    report["accuracy"] = accuracy_rows_json(result.accuracy, result.by)
    report["overall"] = overall_json(
        result.accuracy, result.groups, result.group_noun, result.ranks
    )
    if result.extraction is not None:
        report["extraction"] = vars(result.extraction)
    if result.budgeted is not None:
        report["budget"] = result.budgeted.as_json()
    if result.circular:
        report["circular"] = circular_json(result.circular)
    if result.mme:
        report["mme"] = mme_json(result.mme)
    if result.warnings:
        report["warnings"] = list(result.warnings)
    if result.open_items:
        report["open_items"] = result.open_items
        report["judge_with"] = judge_hint(result)
    return report


def judge_hint(result: EvaluateResult) -> str:
    """What scores the open-ended answers this run stored (evaluate has no key for them)."""
    models = " ".join(f"-m {model}" for model in result.models) or "-m MODEL"
    return (
        f"lvlmbench judge pairwise {result.benchmark} {models} -j JUDGE "
        f"(VisIT-Bench; `judge score` for TouchStone)"
    )


def print_result(result: EvaluateResult) -> None:
    """The accuracy table (and a VLMEvalKit benchmark's scores), then each run's counts."""
    name = result.benchmark
    title = f"{name}: accuracy % with 95% CI"
    if result.accuracy or not result.open_items:
        console.print(
            accuracy_pivot(
                result.accuracy,
                title,
                result.groups,
                result.group_noun,
                result.ranks,
                result.keyed_items,
            )
        )
    if result.circular:
        title = f"{name}: CircularEval (a question counts only if all its copies are right)"
        console.print(circular_pivot(result.circular, title))
    if result.mme:
        console.print(mme_pivot(result.mme, f"{name}: MME score = acc + acc+ per category"))
    if result.stored_only:
        console.print(f"scored from the store (not run): {', '.join(result.stored_only)}")
    for s in result.runs:
        console.print(
            f"{s.model}: {outcomes_text(s, s.truncated)}, "
            f"{s.skipped} already done, "
            f"{s.wall_s:.1f}s{paid_text(s)}"
        )
        print_reasons(s.reasons, f"{s.model}: not ok")
        print_warnings(s.warnings)
    if result.extraction is not None:
        print_extraction(result.extraction)
    if result.budgeted is not None:
        print_budgeted(result.budgeted)
    print_warnings(list(result.warnings))
    if result.open_items:
        console.print(
            f"{result.open_items} open-ended items: their answers are stored, but evaluate has "
            f"no key to score them; a judge does: {judge_hint(result)}"
        )
