"""`lvlmbench judge pairwise|score|hallucination`, `lvlmbench rate`, `lvlmbench agreement`.

The judge commands ask examinees first where their answers are missing (resumable, cached),
then run the judge (both orders where the protocol has two) and print a summary. ``rate`` and
``agreement`` only read the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import typer
from rich.table import Table

from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    StoreOption,
    console,
    err_console,
    friendly_errors,
    open_store,
    print_json,
    progress_bar,
)
from lvlmbench.judging import (
    HALLUCINATION,
    PAIRWISE,
    PAIRWISE_REF,
    REFERENCE,
    REFERENCE_PREFIX,
    SCORE,
    JudgeRunSummary,
    PairwiseReport,
    hallucination_report,
    human_agreement,
    judges_for,
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

__all__ = ["agreement", "judge_app", "rate"]

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
    if concurrency < 1:
        raise BadInput(f"--concurrency must be at least 1, got {concurrency}")
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
        _print_report(report)
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
        console.print(_score_table(rows, f"{benchmark}: TouchStone score ×100 vs {reference}"))
    _finish(summary)


def _score_table(rows: list[dict[str, Any]], title: str) -> Table:
    abilities = sorted({a for r in rows for a in r["abilities"]})
    table = Table(title=title, title_justify="left")
    for name in ("model", "score", "reference", "% of ref", *abilities, "n", "unscored"):
        table.add_column(name, justify="left" if name == "model" else "right")
    for r in rows:
        table.add_row(
            r["model"],
            _num(r["score"]),
            _num(r["reference"]),
            _num(r["relative_pct"]),
            *(_num(r["abilities"].get(a)) for a in abilities),
            str(r["items"]),
            str(r["unscored"]),
        )
    return table


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
        table = Table(title=f"{benchmark}: hallucination (0 none - 10 all)", title_justify="left")
        for name in ("model", "mean", "rated", "unscored"):
            table.add_column(name, justify="left" if name == "model" else "right")
        for r in rows:
            table.add_row(r["model"], _num(r["mean"], 2), str(r["rated"]), str(r["unscored"]))
        console.print(table)
    _finish(summary)


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _pick_judge(
    store: Store, protocol: str | None, judge: str | None, *, metrics: bool = False
) -> tuple[str, str]:
    """(judge, protocol) with stored rows: ``--judge`` may carry options the stored spec does
    not (``openai/x?base_url=...`` is stored as ``openai/x``), and without ``--protocol`` the
    one this judge used is taken (``judge pairwise`` stores pairwise-ref when items have
    references). With ``metrics``, a text metric (``metric/rougeL``) is a judge too."""
    protocols = [protocol] if protocol else [PAIRWISE_REF, PAIRWISE]
    if metrics and protocol is None and (judge or "").startswith("metric/"):
        protocols = ["metric:" + (judge or "").removeprefix("metric/").partition("@")[0]]
    seen: dict[str, list[str]] = {}
    for candidate in protocols:
        judges = [j for j in judges_for(store, candidate) if not j.startswith("human")]
        seen[candidate] = judges
        if judge is None and len(judges) == 1:
            return judges[0], candidate
        for name in (judge, (judge or "").partition("?")[0]):
            if name in judges:
                return name, candidate
    found = "; ".join(f"{p}: {', '.join(j) or 'none'}" for p, j in seen.items())
    wanted = f"judge {judge!r} has no rows" if judge else "--judge is needed"
    raise BadInput(f"{wanted}; judges with rows: {found}")


@friendly_errors
def rate(
    benchmark: Bench,
    protocol: Annotated[
        str | None, typer.Option(help="pairwise or pairwise-ref (default: the one judged).")
    ] = None,
    judge: Annotated[str | None, typer.Option("--judge", "-j", help="Judge spec.")] = None,
    reference: Annotated[str, typer.Option(help="Reference player.")] = REFERENCE,
    rounds: Annotated[int, typer.Option(help="Bootstrap rounds.")] = 200,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Elo and Bradley-Terry (95% bootstrap CI), win rate vs the reference, judge diagnostics."""
    opened = open_store(store)
    chosen, protocol = _pick_judge(opened, protocol, judge)
    report = pairwise_report(
        opened, benchmark, chosen, protocol=protocol, reference=reference, rounds=rounds
    )
    if as_json:
        print_json(report.as_dict())
    else:
        _print_report(report)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _print_report(report: PairwiseReport) -> None:
    data = report.as_dict()
    table = Table(title=f"{report.protocol} judged by {report.judge}", title_justify="left")
    for name in ("model", "Elo", "Bradley-Terry (95% CI)", "win rate vs ref (95% CI)", "ties"):
        table.add_column(name, justify="left" if name == "model" else "right")
    bt = data["bradley_terry"] or {}
    for player in sorted(report.elo, key=lambda p: -report.elo[p]):
        b = bt.get(player)
        w = report.win_rates.get(player)
        table.add_row(
            player,
            f"{report.elo[player]:.0f}",
            "-" if b is None else f"{b['rating']:.0f} ({b['low']:.0f}–{b['high']:.0f})",
            "-"
            if w is None
            else f"{_pct(w.rate)} ({_pct(w.interval.low)}–{_pct(w.interval.high)})",
            "-" if w is None else str(w.ties),
        )
    console.print(table)
    console.print(
        f"pairs {report.pairs}, unscored {report.unscored_pairs}; rows by status: "
        + ", ".join(f"{k} {v}" for k, v in sorted(report.statuses.items()))
    )
    diag = data["diagnostics"]
    if diag is not None:
        console.print(
            "judge diagnostics: position flips "
            + _pct(diag["position_flip_rate"])
            + ", first position wins "
            + _pct(diag["first_position_win_rate"])
            + ", longer answer wins "
            + _pct(diag["longer_answer_win_rate"])
            + ", own family wins "
            + _pct(diag["self_preference_rate"])
        )
    for note in [*report.warnings, *([report.bt_note] if report.bt_note else [])]:
        err_console.print(f"[yellow]note:[/] {note}", highlight=False)


@friendly_errors
def agreement(
    benchmark: Bench,
    judge: JudgeSpec,
    protocol: Annotated[
        str | None, typer.Option(help="pairwise or pairwise-ref (default: the one judged).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the coin flips for judge ties.")] = 0,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Agreement of the judge with the human majority (by level; ties as coin flips or
    excluded) and Cohen's kappa, on pairs people voted on (protocol 'human'). The judge may
    be a text metric (``-j metric/rougeL``): the answer scoring higher wins the pair."""
    opened = open_store(store)
    judge, protocol = _pick_judge(opened, protocol, judge, metrics=True)
    result = human_agreement(opened, benchmark, judge, protocol=protocol, seed=seed)
    levels = (
        [] if result.report is None else [*result.report.levels.values(), result.report.overall]
    )
    rows: list[dict[str, Any]] = [
        {
            "level": lv.level,
            "pairs": lv.pairs,
            "unscored": lv.unscored,
            "judge_ties": lv.judge_ties,
            "coin_flip_rate": lv.coin_flip_rate,
            "ties_excluded_rate": lv.excluded_rate,
        }
        for lv in levels
    ]
    if as_json:
        print_json(
            {
                "judge": judge,
                "pairs": result.pairs,
                "kappa": result.kappa,
                "ranking_kendall_tau": result.ranking_tau,
                "levels": rows,
                "human_ties_dropped": result.human_ties_dropped,
            }
        )
        return
    if result.report is None:
        console.print(f"no pairs with human votes that {judge} judged under {protocol!r}")
        return
    table = Table(title=f"{judge} vs human majority ({protocol})", title_justify="left")
    for name in (
        "level",
        "pairs",
        "unscored",
        "judge ties",
        "agree (ties coin flip)",
        "agree (ties excluded)",
    ):
        table.add_column(name, justify="left" if name == "level" else "right")
    for r in rows:
        table.add_row(
            r["level"],
            str(r["pairs"]),
            str(r["unscored"]),
            str(r["judge_ties"]),
            _pct(r["coin_flip_rate"]),
            _pct(r["ties_excluded_rate"]),
        )
    console.print(table)
    kappa = "-" if result.kappa is None else f"{result.kappa:.3f}"
    tau = "-" if result.ranking_tau is None else f"{result.ranking_tau:.3f}"
    console.print(
        f"Cohen's kappa {kappa} over {result.pairs} pairs; Kendall tau between the judge's and "
        f"the people's system rankings {tau}; human tie votes dropped: "
        f"{result.human_ties_dropped}"
    )
