"""`lvlmbench judge pairwise|score|hallucination`.

The judge commands ask examinees first where their answers are missing (resumable, cached),
then run the judge (both orders where the protocol has two) and print a summary.
``lvlmbench rate`` and ``lvlmbench agreement`` (:mod:`lvlmbench.cli.judgments`) read the results
back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated

import typer

from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    StoreOption,
    console,
    err_console,
    fail,
    friendly_errors,
    open_store,
    print_json,
    progress_bar,
)
from lvlmbench.cli._judge_tables import hallucination_table, print_pairwise_report, score_table
from lvlmbench.judging import (
    HALLUCINATION,
    PAIRWISE,
    PAIRWISE_REF,
    REFERENCE,
    REFERENCE_PREFIX,
    SCORE,
    JudgeRunSummary,
    hallucination_report,
    make_references,
    missing_answers,
    pairwise_report,
    reference_name,
    run_hallucination,
    run_pairwise,
    run_score,
    score_report,
)
from lvlmbench.models import DEFAULT_CONCURRENCY, ModelClient, load_chat_model, resolve_spec
from lvlmbench.store import Store, get_benchmark, iter_items, iter_judgments

__all__ = ["AsJson", "Bench", "JudgeSpec", "judge_app"]

judge_app = typer.Typer(
    help="Judge open-ended answers: pairwise (VisIT-Bench), score and hallucination (TouchStone).",
    no_args_is_help=True,
)

Bench = Annotated[str, typer.Argument(help="Benchmark name in the store.")]
Models = Annotated[list[str], typer.Option("--model", "-m", help="Examinee spec; repeatable.")]
JudgeSpec = Annotated[str, typer.Option("--judge", "-j", help="Judge model spec.")]
Concurrency = Annotated[int, typer.Option(help="Judge requests in flight per endpoint.")]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _open_checked(store: str | None, benchmark: str, specs: list[str], concurrency: int) -> Store:
    """The store, once every spec and option is checked (RegistryError, exit 2: before the
    store is even opened, so a typo writes nothing); BadInput when the benchmark is absent or
    has no items."""
    if concurrency < 1:
        raise BadInput(f"--concurrency must be at least 1, got {concurrency}")
    for spec in specs:
        _player_identity(spec)
    opened = open_store(store)
    _check_items(opened, benchmark)
    return opened


def _check_items(store: Store, benchmark: str) -> None:
    if next(iter_items(store, benchmark), None) is None:
        what = "has no items" if get_benchmark(store, benchmark) else f"is not in {store.url}"
        raise BadInput(f"benchmark {benchmark!r} {what}; `lvlmbench store info` lists them")


def _player_identity(spec: str) -> str:
    """The stored name of a player: a model spec's identity (a bad spec or option raises
    RegistryError); ``reference`` as is, and ``reference:<spec>`` with the writer's identity."""
    if spec == REFERENCE:
        return spec
    if spec.startswith(REFERENCE_PREFIX):
        return reference_name(resolve_spec(spec.removeprefix(REFERENCE_PREFIX)))
    return resolve_spec(spec)


def _players(specs: list[str]) -> dict[str, str]:
    """identity -> spec of the examinees (the judging functions look answers up by identity;
    a missing answer is asked of the spec as given, which may carry a key or a timeout)."""
    return {_player_identity(spec): spec for spec in specs}


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
    from lvlmbench.cli.evaluate import run_models

    todo = [
        models[m]
        for m, n in missing_answers(store, benchmark, list(models)).items()
        if n and m != REFERENCE and not m.startswith(REFERENCE_PREFIX)
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
    concurrency: int,
    show: bool,
    body: Callable[[ModelClient], Awaitable[JudgeRunSummary]],
) -> JudgeRunSummary:
    async def main() -> JudgeRunSummary:
        await _answer_missing(store, benchmark, models, show)
        client = ModelClient(load_chat_model(judge), store, concurrency=concurrency)
        try:
            return await body(client)
        finally:
            await client.aclose()

    summary = asyncio.run(main())
    for warning in summary.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    return summary


def _summary_line(s: JudgeRunSummary) -> str:
    return (
        f"{s.judge} [{s.protocol}]: {s.ok} ok, {s.unparseable} unparseable, {s.refused} refused, "
        f"{s.failed} failed, {s.missing} missing, {s.skipped} already done, "
        f"{s.requests} requests, {s.wall_s:.1f}s"
    )


def _finish(summary: JudgeRunSummary, empty: str) -> None:
    if empty:
        raise fail(empty, EXIT_FAILURES)
    if summary.failed:
        raise typer.Exit(EXIT_FAILURES)


@judge_app.command("pairwise")
@friendly_errors
def pairwise(
    benchmark: Bench,
    model: Models,
    judge: JudgeSpec,
    reference_free: Annotated[
        bool, typer.Option("--reference-free", help="Do not show the reference to the judge.")
    ] = False,
    play_reference: Annotated[
        bool,
        typer.Option(help="Reference-free only: the reference plays as model 'reference'."),
    ] = True,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Judge every pair of models in both orders (VisIT-Bench); print Elo and win rates."""
    opened = _open_checked(store, benchmark, [*model, judge], concurrency)
    include = reference_free and play_reference
    players = _players(model)

    async def body(client: ModelClient) -> JudgeRunSummary:
        with progress_bar(f"judge {judge}", not as_json) as hook:
            return await run_pairwise(
                opened,
                benchmark,
                list(players),
                client,
                reference_backed=not reference_free,
                include_reference=include,
                on_progress=hook,
            )

    summary = _run(opened, benchmark, players, judge, concurrency, not as_json, body)
    empty = _empty_reason(opened, benchmark, list(players), summary)
    protocol = PAIRWISE if reference_free else PAIRWISE_REF
    report = pairwise_report(opened, benchmark, summary.judge, protocol=protocol)
    if as_json:
        print_json({"run": vars(summary), "ratings": report.as_dict()})
    else:
        console.print(_summary_line(summary), markup=False, highlight=False)
        print_pairwise_report(report)
    _finish(summary, empty)


@judge_app.command("score")
@friendly_errors
def score(
    benchmark: Bench,
    model: Models,
    judge: JudgeSpec,
    reference_writer: Annotated[
        str | None,
        typer.Option(help="Text model that writes the caption-assisted reference (the judge)."),
    ] = None,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Score each model 1-10 against the caption-assisted reference, both orders (TouchStone)."""
    writer_spec = reference_writer or judge
    opened = _open_checked(store, benchmark, [*model, judge, writer_spec], concurrency)
    reference = reference_name(resolve_spec(writer_spec))
    players = _players(model)

    async def body(client: ModelClient) -> JudgeRunSummary:
        writer = client
        if writer_spec != judge:
            writer = ModelClient(load_chat_model(writer_spec), opened, concurrency=concurrency)
        try:
            with progress_bar(f"reference {writer_spec}", not as_json) as hook:
                await make_references(opened, benchmark, writer, on_progress=hook)
        finally:
            if writer is not client:
                await writer.aclose()
        with progress_bar(f"judge {judge}", not as_json) as hook:
            return await run_score(
                opened, benchmark, list(players), client, reference=reference, on_progress=hook
            )

    summary = _run(opened, benchmark, players, judge, concurrency, not as_json, body)
    empty = _empty_reason(opened, benchmark, [*players, reference], summary)
    items = {item.id: item for item in iter_items(opened, benchmark)}
    scores = score_report(
        iter_judgments(opened, judge=summary.judge, protocol=SCORE), reference, items
    )
    rows = [
        {
            "model": s.model,
            "score": s.overall.x100,
            "reference": s.overall.reference_x100,
            "relative_pct": s.overall.relative,
            "items": s.overall.items,
            "unscored": s.unscored,
            "abilities": {k: g.x100 for k, g in s.abilities.items()},
            "tasks": {k: g.x100 for k, g in s.tasks.items()},
        }
        for s in scores.values()
    ]
    if as_json:
        print_json({"run": vars(summary), "reference": reference, "scores": rows})
    else:
        console.print(_summary_line(summary), markup=False, highlight=False)
        console.print(score_table(rows, f"{benchmark}: TouchStone score ×100 vs {reference}"))
    _finish(summary, empty)


@judge_app.command("hallucination")
@friendly_errors
def hallucination(
    benchmark: Bench,
    model: Models,
    judge: JudgeSpec,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Rate how much of each answer the caption does not support (0 none - 10 all; TouchStone)."""
    opened = _open_checked(store, benchmark, [*model, judge], concurrency)
    players = _players(model)

    async def body(client: ModelClient) -> JudgeRunSummary:
        with progress_bar(f"judge {judge}", not as_json) as hook:
            return await run_hallucination(
                opened, benchmark, list(players), client, on_progress=hook
            )

    summary = _run(opened, benchmark, players, judge, concurrency, not as_json, body)
    empty = _empty_reason(opened, benchmark, list(players), summary)
    ids = {item.id for item in iter_items(opened, benchmark)}
    report = hallucination_report(
        iter_judgments(opened, judge=summary.judge, protocol=HALLUCINATION), ids
    )
    rows = [vars(r) for r in report.values() if r.model in players]
    if as_json:
        print_json({"run": vars(summary), "hallucination": rows})
    else:
        console.print(_summary_line(summary), markup=False, highlight=False)
        title = f"{benchmark}: hallucination (0 none - 10 all)"
        console.print(hallucination_table(rows, title))
    _finish(summary, empty)
