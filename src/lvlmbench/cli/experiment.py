"""`lvlmbench experiment leakage|position-bias BENCH --model M ...`: the paper's experiments."""

from __future__ import annotations

import asyncio
from typing import Annotated, cast

import typer
from rich.table import Table

from lvlmbench.autobench.experiments import (
    BiasFigure,
    LeakageFigure,
    Target,
    leakage_figures,
    position_bias_figures,
    rekey_benchmark,
    rekey_name,
)
from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    check_concurrency,
    console,
    friendly_errors,
    open_store,
    print_json,
)
from lvlmbench.cli._runs import run_models
from lvlmbench.cli.evaluate import Models
from lvlmbench.cli.experiment_design import register
from lvlmbench.models import DEFAULT_CONCURRENCY, display_names, resolve_spec
from lvlmbench.store import Store, require_benchmark
from lvlmbench.workflows import check_specs

__all__ = [
    "experiment_app",
    "print_bias_table",
    "print_leakage_table",
    "run_leakage",
    "run_position_bias",
]

experiment_app = typer.Typer(help="AutoBench-V experiments.", no_args_is_help=True)
Concurrency = Annotated[int, typer.Option(help="Requests in flight per endpoint.")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _opened(store: str | None, benchmark: str) -> Store:
    opened = open_store(store)
    require_benchmark(opened, benchmark)
    return opened


def run_leakage(
    store: Store,
    benchmark: str,
    models: list[str],
    question_only: bool,
    concurrency: int = DEFAULT_CONCURRENCY,
    show_progress: bool = True,
) -> None:
    """Answer every item with the image, from the description only (and, with
    ``question_only``, from neither); finished answers are reused."""
    variants = ["default", "no-image"] + (["question-only"] if question_only else [])
    for variant in variants:
        asyncio.run(
            run_models(
                store,
                benchmark,
                models,
                variant=variant,
                concurrency=concurrency,
                show_progress=show_progress,
            )
        )


def run_position_bias(
    store: Store,
    benchmark: str,
    models: list[str],
    targets: list[Target],
    seed: int = 0,
    concurrency: int = DEFAULT_CONCURRENCY,
    show_progress: bool = True,
) -> None:
    """Write a re-keyed copy of the benchmark per target and answer it with every model."""
    try:
        for target in targets:  # every copy's name is checked before the first is written
            rekey_name(benchmark, target, seed)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    for target in targets:
        copy = rekey_benchmark(store, benchmark, target, seed)
        asyncio.run(
            run_models(
                store,
                copy,
                models,
                variant="default",
                concurrency=concurrency,
                show_progress=show_progress,
            )
        )


@experiment_app.command("leakage")
@friendly_errors
def leakage(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    model: Models,
    question_only: Annotated[
        bool, typer.Option(help="Also ask with neither image nor description.")
    ] = False,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Answer leakage / examiner priority: accuracy with the image vs from the description
    only. Near-equal description-only scores across models mean the benchmark measures
    vision, not the examiner's bias."""
    check_specs(model)
    check_concurrency(concurrency)
    opened = _opened(store, benchmark)
    run_leakage(opened, benchmark, model, question_only, concurrency, show_progress=not as_json)
    figures, spread = leakage_figures(opened, benchmark, [resolve_spec(m) for m in model])
    if as_json:
        print_json(
            {
                "figures": [{**vars(f), "drop": f.drop} for f in figures],
                "description_only_std": spread,
            }
        )
        return
    print_leakage_table(benchmark, figures, spread)


def print_leakage_table(benchmark: str, figures: list[LeakageFigure], spread: float) -> None:
    """Accuracy with the image, from the description only and from the question only."""
    table = Table(title=f"{benchmark}: answer leakage (accuracy %)", title_justify="left")
    for column in ("model", "with image", "description only", "image adds", "question only"):
        table.add_column(column, justify="left" if column == "model" else "right")
    shown = display_names(f.model for f in figures)
    for f in figures:
        bare = "-" if f.question_only is None else f"{100 * f.question_only:.1f}"
        table.add_row(
            shown[f.model],
            f"{100 * f.with_image:.1f}",
            f"{100 * f.description_only:.1f}",
            f"{100 * f.drop:+.1f}",
            bare,
        )
    console.print(table)
    console.print(f"std of description-only accuracy across models: {100 * spread:.2f} points")


@experiment_app.command("position-bias")
@friendly_errors
def position_bias(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    model: Models,
    target: Annotated[
        list[str] | None, typer.Option(help="Letters to put every key at (default A and D).")
    ] = None,
    seed: Annotated[
        int, typer.Option(help="Seed for shuffling distractors (part of the copies' names).")
    ] = 0,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Position bias: accuracy with every key at A, at D (or other letters) and evenly
    spread; bias rate = (score_condition − score_even) / score_even."""
    letters = target or ["A", "D"]
    bad = [t for t in letters if t not in ("A", "B", "C", "D")]
    if bad:
        raise BadInput(f"--target {bad[0]!r}: choose letters A-D")
    check_specs(model)  # before the re-keyed copies are written
    check_concurrency(concurrency)
    opened = _opened(store, benchmark)
    targets = [cast(Target, t) for t in [*letters, "even"]]
    run_position_bias(opened, benchmark, model, targets, seed, concurrency, not as_json)
    identities = [resolve_spec(m) for m in model]  # rows are stored under identities
    figures = position_bias_figures(opened, benchmark, targets, identities, seed)
    if as_json:
        print_json([{**vars(f), "bias_rate": f.rate} for f in figures])
        return
    print_bias_table(benchmark, figures)


def print_bias_table(benchmark: str, figures: list[BiasFigure]) -> None:
    """The bias figures as a table: n, accuracies and each rate with its interval."""
    seed = figures[0].seed if figures else 0
    table = Table(
        title=f"{benchmark}: position bias (multiple-choice items, seed {seed})",
        title_justify="left",
    )
    for column in ("model", "keys at", "n", "accuracy %", "even %", "bias rate", "95% CI"):
        table.add_column(column, justify="left" if column == "model" else "right")
    shown = display_names(f.model for f in figures)
    for f in figures:
        table.add_row(
            shown[f.model],
            f.target,
            str(f.n),
            f"{100 * f.accuracy:.1f}",
            f"{100 * f.even:.1f}",
            f"{100 * f.rate:+.1f}%",
            f"{100 * f.low:+.1f} … {100 * f.high:+.1f}%",
        )
    console.print(table)
    console.print(
        "bias rate = (accuracy with every key at X − even) / even, on multiple-choice items "
        "only (true/false items are the same in every copy); 95% CI: paired bootstrap over "
        "items."
    )


register(experiment_app)  # diversity, aspects, leakage-levels, ranks
