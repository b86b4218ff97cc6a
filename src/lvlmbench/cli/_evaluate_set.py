"""`lvlmbench evaluate B1 B2 -m ...` and `evaluate --set FILE`: which benchmarks and options a
call names, and the summary printed across several benchmarks (each benchmark's own tables
come first, as one benchmark alone prints them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from lvlmbench.cli._common import console
from lvlmbench.cli._tables import accuracy_cell
from lvlmbench.models import display_names
from lvlmbench.stats import interval_note
from lvlmbench.workflows import (
    EvaluateOptions,
    EvaluateResult,
    EvaluateSetResult,
    InvalidOptions,
    SetRow,
    read_eval_set,
)

__all__ = ["Benchmarks", "EvalSetFile", "chosen", "print_set", "set_json", "set_table"]

Benchmarks = Annotated[
    list[str] | None,
    typer.Argument(
        help="Benchmark names in the store; several give one summary across them.",
        show_default=False,
    ),
]
EvalSetFile = Annotated[
    Path | None,
    typer.Option(
        "--set",
        help="An eval-set TOML file: benchmarks, models and [settings] (evaluate's options).",
        show_default=False,
    ),
]


def chosen(
    ctx: typer.Context,
    benchmarks: Sequence[str],
    options: EvaluateOptions,
    eval_set: Path | None,
) -> tuple[tuple[str, ...], EvaluateOptions]:
    """The benchmarks and options to run: the command line's, or the eval-set file's. With a
    file, an option also given on the command line is refused rather than silently dropped
    (one place says what the run is)."""
    if eval_set is None:
        if not benchmarks:
            raise InvalidOptions("name a benchmark (or several), or give --set FILE")
        if not options.models:
            raise InvalidOptions("name an examinee with --model/-m (repeatable)")
        return tuple(benchmarks), options
    given = [
        name
        for name in ctx.params
        if name not in ("eval_set", "store", "as_json") and _from_command_line(ctx, name)
    ]
    if given:
        raise InvalidOptions(
            f"--set {eval_set} takes the benchmarks, models and settings from the file; "
            f"{_flag(given[0])} was given too: put it in the file"
        )
    read = read_eval_set(eval_set)
    return read.benchmarks, read.options


def _from_command_line(ctx: typer.Context, name: str) -> bool:
    # By name: typer carries its own copy of click, whose enum is not click's.
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _flag(param: str) -> str:
    return "the benchmark names" if param == "benchmark" else f"--{param.replace('_', '-')}"


def set_table(result: EvaluateSetResult) -> Table:
    """Benchmarks and their figures as rows, models as columns (a few models fit a terminal
    where a dozen figures per benchmark would not): each benchmark's accuracy % with its 95 %
    interval, then the figures it is published with (CircularEval, MME's scores); a model that
    answered fewer items than the run asked says so in its cell."""
    table = Table(title="across benchmarks", title_justify="left")
    models = list(dict.fromkeys(row.model for row in result.rows))
    shown = display_names(models)
    table.add_column("benchmark")
    table.add_column("figure")
    for model in models:
        table.add_column(shown[model], justify="right")
    cells = {(row.model, row.benchmark): row for row in result.rows}
    for each in result.results:
        mine = [cells.get((model, each.benchmark)) for model in models]
        table.add_row(each.benchmark, "accuracy %", *(_cell(row) for row in mine))
        for k, metric in enumerate(_metrics(mine)):
            table.add_row("", metric, *(_headline_cell(row, k) for row in mine))
    table.caption = _caption(result)
    table.caption_justify = "left"
    return table


def _metrics(rows: Sequence[SetRow | None]) -> list[str]:
    found = next((row.headline for row in rows if row is not None and row.headline), ())
    return [h.metric for h in found]


def _headline_cell(row: SetRow | None, k: int) -> str:
    if row is None or k >= len(row.headline):
        return "-"
    figure = row.headline[k]
    return figure.shown if figure.value is not None else f"[yellow]{figure.shown}[/]"


def _caption(result: EvaluateSetResult) -> str:
    notes = []
    for each in result.results:
        estimates = [r.estimate for r in each.overall if r.variant == "default" and r.items]
        if estimates:
            notes.append(f"{each.benchmark}: {interval_note(estimates)}")
    if any(row.headline for row in result.rows):
        notes.append("CircularEval and MME scores as VLMEvalKit computes them (no interval)")
    return "\n".join(notes)


def _cell(row: SetRow | None) -> str:
    if row is None or row.overall is None or not row.overall.items:
        return "-"
    text = accuracy_cell(row.overall)
    if not row.complete:  # a partial run never reads as a full one
        text += f"\n[yellow]{row.answered} of {row.keyed} items[/]"
    return text


def set_json(
    result: EvaluateSetResult, one: Callable[[EvaluateResult], dict[str, Any]]
) -> dict[str, Any]:
    """``--json`` of a run over several benchmarks: each benchmark's own report (``one``) and
    the summary rows across them."""
    return {
        "benchmarks": {r.benchmark: one(r) for r in result.results},
        "summary": [
            {
                "benchmark": row.benchmark,
                "model": row.model,
                **_figure(row),
                "items": row.answered,
                "keyed_items": row.keyed,
                "complete": row.complete,
                "headline": [
                    {"metric": h.metric, "value": h.value, "shown": h.shown} for h in row.headline
                ],
            }
            for row in result.rows
        ],
    }


def _figure(row: SetRow) -> dict[str, float | None]:
    if row.overall is None or not row.overall.items:
        return {"accuracy": None, "ci_low": None, "ci_high": None}
    low, high = row.overall.interval
    return {"accuracy": row.overall.accuracy, "ci_low": low, "ci_high": high}


def print_set(result: EvaluateSetResult, one: Callable[[EvaluateResult], None]) -> None:
    for each in result.results:
        one(each)
    console.print(set_table(result))
