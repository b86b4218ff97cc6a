"""What every ``lvlmbench judge`` command shares once its own options are checked: the store
and specs checked before anything runs, missing answers asked first, the judge run here or in
worker processes, the run line, the protocol's results (table or ``--json``), the exit code.
A command only says how its protocol runs and what its results are
(:meth:`JudgeCommand.judge_with`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import typer

from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    check_concurrency,
    console,
    err_console,
    fail,
    open_store,
    paid_text,
    print_json,
    print_reasons,
    progress_bar,
)
from lvlmbench.cli._fanout import combined, run_workers
from lvlmbench.cli._runs import run_models
from lvlmbench.judging import (
    REFERENCE,
    REFERENCE_PREFIX,
    JudgeRunSummary,
    ProgressHook,
    missing_answers,
    reference_name,
)
from lvlmbench.models import DEFAULT_CONCURRENCY, ChatModel, ModelClient, spec_label
from lvlmbench.store import Store, iter_items, require_benchmark
from lvlmbench.workflows import could_be_imported, imported_models

__all__ = ["JudgeCommand", "Load", "Resolve", "Results", "RunJudge", "open_checked", "players_of"]

Resolve = Callable[[str], str]
"""A model spec -> its stored identity (RegistryError on a bad spec)."""
Load = Callable[[str], ChatModel]
"""A model spec -> the chat model that serves it."""


def open_checked(
    store: str | None, benchmark: str, specs: list[str], concurrency: int, resolve: Resolve
) -> Store:
    """The store, once every spec and option is checked (RegistryError, exit 2: before the
    store is even opened, so a typo writes nothing); BadInput when the benchmark is absent or
    has no items."""
    check_concurrency(concurrency)
    for spec in specs:
        _player_identity(spec, resolve)
    opened = open_store(store)
    _check_items(opened, benchmark)
    return opened


def _check_items(store: Store, benchmark: str) -> None:
    require_benchmark(store, benchmark)
    if next(iter_items(store, benchmark), None) is None:
        raise BadInput(f"benchmark {benchmark!r} has no items; `lvlmbench ls` lists them")


def _player_identity(spec: str, resolve: Resolve) -> str:
    """The stored name of a player: a model spec's identity (a bad spec or option raises
    RegistryError); ``reference`` and imported players' names as they are, and
    ``reference:<spec>`` with the writer's identity."""
    if spec == REFERENCE or could_be_imported(spec):
        return spec
    if spec.startswith(REFERENCE_PREFIX):
        return reference_name(resolve(spec.removeprefix(REFERENCE_PREFIX)))
    return resolve(spec)


def players_of(specs: list[str], resolve: Resolve) -> dict[str, str]:
    """identity -> spec of the examinees (the judging functions look answers up by identity;
    a missing answer is asked of the spec as given, which may carry a key or a timeout)."""
    return {_player_identity(spec, resolve): spec for spec in specs}


def _empty_reason(store: Store, benchmark: str, players: list[str], s: JudgeRunSummary) -> str:
    """Why a judge run had nothing to judge, or "" when it judged something. A player with no
    answer at all is a reason too: its column would be silently empty."""
    missing = missing_answers(store, benchmark, players)
    items = sum(1 for _ in iter_items(store, benchmark))
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


async def _answer_missing(store: Store, benchmark: str, models: dict[str, str], show: bool) -> None:
    """Ask the examinees whose answers are missing (run_examinee resumes; answered is skipped)."""

    imported = set(imported_models(store, benchmark, list(models.values())))  # never run
    todo = [
        models[m]
        for m, n in missing_answers(store, benchmark, list(models)).items()
        if n and m != REFERENCE and not m.startswith(REFERENCE_PREFIX) and models[m] not in imported
    ]
    if todo:
        await run_models(
            store,
            benchmark,
            todo,
            variant="default",
            concurrency=DEFAULT_CONCURRENCY,
            show_progress=show,
        )


def _run(
    store: Store,
    benchmark: str,
    models: dict[str, str],
    judge: str,
    parallel: tuple[int, int],
    show: bool,
    body: Callable[[ModelClient], Awaitable[JudgeRunSummary]],
    load: Load,
) -> JudgeRunSummary:
    """Run the judge here, or (``parallel`` = (concurrency, workers > 1)) in worker processes
    that split the units through leases; their summaries are summed."""
    concurrency, workers = parallel
    if workers != 1:
        runs = [out["run"] for out in run_workers(workers)]
        return JudgeRunSummary(**combined(runs, "judge"))

    async def main() -> JudgeRunSummary:
        await _answer_missing(store, benchmark, models, show)
        client = ModelClient(load(judge), store, concurrency=concurrency)
        try:
            await client.check()  # a dead judge endpoint stops here, in seconds
            return await body(client)
        finally:
            await client.aclose()

    summary = asyncio.run(main())
    for warning in summary.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if show:
        print_reasons(summary.reasons, f"{summary.judge}: not ok")
    return summary


def _summary_line(s: JudgeRunSummary) -> str:
    return (
        f"{s.judge} [{s.protocol}]: {s.ok} ok, {s.unparseable} unparseable, {s.refused} refused, "
        f"{s.failed} failed, {s.missing} missing, {s.skipped} already done, "
        f"{s.requests} requests, {s.wall_s:.1f}s{paid_text(s)}"
    )


RunJudge = Callable[[ModelClient, ProgressHook], Awaitable[JudgeRunSummary]]
"""One protocol's run with the judge's client and the progress bar's hook."""
Results = Callable[[JudgeRunSummary], tuple[dict[str, Any], Callable[[], None]]]
"""A finished run -> (what ``--json`` adds next to "run", what prints the table)."""


@dataclass(frozen=True)
class JudgeCommand:
    """What every judge command shares, once its own options are checked."""

    store: Store
    benchmark: str
    players: dict[str, str]
    judge: str
    parallel: tuple[int, int]
    as_json: bool
    load: Load
    """Loads the judge model (the command module's loader, which tests replace)."""

    @classmethod
    def open(
        cls,
        store: str | None,
        benchmark: str,
        models: list[str],
        judge: str,
        parallel: tuple[int, int],
        as_json: bool,
        more_specs: Sequence[str] = (),
        *,
        resolve: Resolve,
        load: Load,
    ) -> JudgeCommand:
        """Every spec checked (``more_specs``: others the command calls, e.g. a writer), then
        the store opened and the benchmark's items checked; see :func:`open_checked`."""
        specs = [*models, judge, *more_specs]
        opened = open_checked(store, benchmark, specs, parallel[0], resolve)
        players = players_of(models, resolve)
        return cls(opened, benchmark, players, judge, parallel, as_json, load)

    def judge_with(self, run: RunJudge, results: Results, also: Sequence[str] = ()) -> None:
        """Ask missing answers, run the judge (``run``), print the run line and the results,
        exit 1 when units failed or nothing was judged. ``also``: players judged against
        (a reference) whose absence also explains an empty run."""

        async def body(client: ModelClient) -> JudgeRunSummary:
            with progress_bar(f"judge {spec_label(self.judge)}", not self.as_json, client) as hook:
                return await run(client, hook)

        store, show = self.store, not self.as_json
        summary = _run(
            store, self.benchmark, self.players, self.judge, self.parallel, show, body, self.load
        )
        empty = _empty_reason(self.store, self.benchmark, [*self.players, *also], summary)
        payload, print_results = results(summary)
        if self.as_json:
            print_json({"run": vars(summary), **payload})
        else:
            console.print(_summary_line(summary), markup=False, highlight=False)
            print_results()
        _finish(summary, empty)


def _finish(summary: JudgeRunSummary, empty: str) -> None:
    if empty:
        raise fail(empty, EXIT_FAILURES)
    if summary.failed:
        raise typer.Exit(EXIT_FAILURES)
