"""What every ``lvlmbench judge`` command shares once it has built its options: the use case
(:func:`lvlmbench.workflows.judge_benchmark`) run with progress bars, the run line, the
protocol's results (table or ``--json``), the exit code."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import typer

from lvlmbench.cli._common import (
    EXIT_FAILURES,
    console,
    err_console,
    fail,
    open_store,
    outcomes_text,
    paid_text,
    print_json,
    print_reasons,
    progress_bar,
)
from lvlmbench.judging import JudgeRunSummary, ProgressHook
from lvlmbench.models import ModelClient
from lvlmbench.workflows import (
    JudgeOptions,
    JudgeResult,
    Load,
    NothingToJudge,
    Resolve,
    check_judge_options,
    judge_benchmark,
)

__all__ = ["Shown", "run_judge_command"]

Shown = Callable[[JudgeResult], tuple[dict[str, Any], Callable[[], None]]]
"""A finished run -> (what ``--json`` adds next to "run", what prints the table)."""


def run_judge_command(
    store: str | None,
    benchmark: str,
    options: JudgeOptions,
    as_json: bool,
    shown: Shown,
    *,
    resolve: Resolve,
    load: Load,
) -> None:
    """Check the options (before the store is opened: a typo writes nothing), judge, print the
    run line and the results; exit 1 when units failed or nothing was judged."""
    check_judge_options(options, resolve)
    opened = open_store(store)

    def bars(label: str, client: ModelClient) -> AbstractContextManager[ProgressHook | None]:
        return progress_bar(label, not as_json, client)

    empty = ""
    try:
        result = judge_benchmark(opened, benchmark, options, resolve=resolve, load=load, bars=bars)
    except NothingToJudge as exc:
        result, empty = exc.result, str(exc)
    summary = result.run
    for warning in summary.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    payload, print_results = shown(result)
    if as_json:
        scope = {"items": result.items, "items_total": result.items_total}
        print_json({"run": vars(summary), **scope, "epochs": result.epochs, **payload})
    else:
        print_reasons(summary.reasons, f"{summary.judge}: not ok")
        line = _summary_line(summary) + (f"; {result.scope}" if result.limited else "")
        line += f"; {result.epochs_note}" if result.epochs_note else ""
        console.print(line, markup=False, highlight=False)
        print_results()
    if empty:
        raise fail(empty, EXIT_FAILURES)
    if summary.failed:
        raise typer.Exit(EXIT_FAILURES)


def _summary_line(s: JudgeRunSummary) -> str:
    return (
        f"{s.judge} [{s.protocol}]: {outcomes_text(s)}, "
        f"{s.missing} missing, {s.skipped} already done, "
        f"{s.requests} requests, {s.wall_s:.1f}s{paid_text(s)}"
    )
