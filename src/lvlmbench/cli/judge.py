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
    check_concurrency,
    console,
    err_console,
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
from lvlmbench.models import DEFAULT_CONCURRENCY, ModelClient, load_chat_model, parse_spec
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


def _check(store: Store, benchmark: str, specs: list[str], concurrency: int) -> None:
    check_concurrency(concurrency)
    for spec in specs:
        if spec != REFERENCE and not spec.startswith(REFERENCE_PREFIX):
            parse_spec(spec)
    if get_benchmark(store, benchmark) is None and next(iter_items(store, benchmark), None) is None:
        raise BadInput(
            f"no benchmark {benchmark!r} in {store.url}; `lvlmbench store info` lists them"
        )


async def _answer_missing(store: Store, benchmark: str, models: list[str], show: bool) -> None:
    """Ask the examinees whose answers are missing (run_examinee resumes; answered is skipped)."""
    from lvlmbench.cli.evaluate import run_models

    todo = [
        m
        for m, n in missing_answers(store, benchmark, models).items()
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
    models: list[str],
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


def _finish(summary: JudgeRunSummary) -> None:
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
    check_concurrency(concurrency)
    opened = open_store(store)
    _check(opened, benchmark, [*model, judge], concurrency)
    include = reference_free and play_reference

    async def body(client: ModelClient) -> JudgeRunSummary:
        with progress_bar(f"judge {judge}", not as_json) as hook:
            return await run_pairwise(
                opened,
                benchmark,
                model,
                client,
                reference_backed=not reference_free,
                include_reference=include,
                on_progress=hook,
            )

    summary = _run(opened, benchmark, model, judge, concurrency, not as_json, body)
    protocol = PAIRWISE if reference_free else PAIRWISE_REF
    report = pairwise_report(opened, benchmark, summary.judge, protocol=protocol)
    if as_json:
        print_json({"run": vars(summary), "ratings": report.as_dict()})
    else:
        console.print(_summary_line(summary), markup=False, highlight=False)
        print_pairwise_report(report)
    _finish(summary)


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
    check_concurrency(concurrency)
    opened = open_store(store)
    writer_spec = reference_writer or judge
    _check(opened, benchmark, [*model, judge, writer_spec], concurrency)
    reference = reference_name(writer_spec)

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
                opened, benchmark, model, client, reference=reference, on_progress=hook
            )

    summary = _run(opened, benchmark, model, judge, concurrency, not as_json, body)
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
    _finish(summary)


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
    check_concurrency(concurrency)
    opened = open_store(store)
    _check(opened, benchmark, [*model, judge], concurrency)

    async def body(client: ModelClient) -> JudgeRunSummary:
        with progress_bar(f"judge {judge}", not as_json) as hook:
            return await run_hallucination(opened, benchmark, model, client, on_progress=hook)

    summary = _run(opened, benchmark, model, judge, concurrency, not as_json, body)
    ids = {item.id for item in iter_items(opened, benchmark)}
    report = hallucination_report(
        iter_judgments(opened, judge=summary.judge, protocol=HALLUCINATION), ids
    )
    rows = [vars(r) for r in report.values() if r.model in model]
    if as_json:
        print_json({"run": vars(summary), "hallucination": rows})
    else:
        console.print(_summary_line(summary), markup=False, highlight=False)
        title = f"{benchmark}: hallucination (0 none - 10 all)"
        console.print(hallucination_table(rows, title))
    _finish(summary)
