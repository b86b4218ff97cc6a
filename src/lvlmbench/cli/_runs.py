"""What every examinee-running command shares on the console: the runner with a progress bar per
examinee, and the budgeted run's closing lines."""

from __future__ import annotations

from collections.abc import Collection
from contextlib import AbstractContextManager

from lvlmbench.cli._common import console, progress_bar
from lvlmbench.models import ModelClient, spec_label
from lvlmbench.runner import EvalSummary, ProgressFor, ProgressHook, run_examinees
from lvlmbench.store import Store
from lvlmbench.workflows import STRATA, BudgetedRun, money_line

__all__ = ["print_budgeted", "progress_bars", "run_models"]


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
    return await run_examinees(
        store,
        benchmark,
        specs,
        variant=variant,
        concurrency=concurrency,
        epochs=epochs,
        only=only,
        progress=progress_bars(variant, show_progress),
    )


def progress_bars(variant: str, show: bool) -> ProgressFor:
    """A progress bar per examinee run (none when not ``show``: --json output)."""

    def bar(spec: str, client: ModelClient) -> AbstractContextManager[ProgressHook | None]:
        return progress_bar(f"{spec_label(spec)} [{variant}]", show, client)

    return bar


def print_budgeted(run: BudgetedRun) -> None:
    """The decision, items used and calls saved against the full run."""
    share = len(run.used) / run.pool
    cap = f" of a budget of {run.budget}" if run.budget is not None else ""
    console.print(f"[bold]decision[/]: {run.decision.text}")
    console.print(
        f"items used: {len(run.used)} of {run.pool} ({share:.0%}) in {run.rounds} round(s), "
        f"stratified over {' × '.join(STRATA)} (largest stratum share gap "
        f"{100 * run.mix_gap:.1f} points)"
    )
    full = run.pool * run.calls_per_item
    saved = f"{run.saved} saved ({run.saved / full:.0%})" if full else "none needed"
    console.print(
        f"examinee calls: {run.calls}{cap} against {full} for the full run: {saved}; "
        f"{sum(s.requests for s in run.summaries)} requests sent by this run (stored and cached "
        "answers cost none)"
    )
    if run.money is not None:
        console.print(money_line(run.money, run.paid_usd, run.pool, len(run.used)))
