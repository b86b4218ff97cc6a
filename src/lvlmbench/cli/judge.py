"""`lvlmbench judge pairwise|score|hallucination`.

The judge commands ask examinees first where their answers are missing (resumable, cached),
then run the judge (both orders where the protocol has two) and print a summary.
``lvlmbench rate`` and ``lvlmbench agreement`` (:mod:`lvlmbench.cli.judgments`) read the results
back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import typer

from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    StoreOption,
    check_concurrency,
    console,
    err_console,
    fail,
    friendly_errors,
    open_store,
    print_json,
    print_reasons,
    progress_bar,
)
from lvlmbench.cli._fanout import Workers, combined, run_workers
from lvlmbench.cli._judge_tables import hallucination_table, print_pairwise_report, score_table
from lvlmbench.cli._settings import (
    MaxTokens,
    Params,
    Seed,
    SystemPrompt,
    Temperature,
    TopP,
    spec_with_flags,
)
from lvlmbench.cli.evaluate import could_be_imported, imported_models
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
from lvlmbench.models import (
    DEFAULT_CONCURRENCY,
    ModelClient,
    load_chat_model,
    resolve_spec,
)
from lvlmbench.ratings import COMBINE_RULES, CombineRule
from lvlmbench.store import Store, iter_items, iter_judgments, require_benchmark

__all__ = ["AsJson", "Bench", "Combine", "JudgeSpec", "combine_rule", "judge_app"]

judge_app = typer.Typer(
    help="Judge open-ended answers: pairwise (VisIT-Bench), score and hallucination (TouchStone).",
    no_args_is_help=True,
)

Bench = Annotated[str, typer.Argument(help="Benchmark name in the store.")]
Models = Annotated[list[str], typer.Option("--model", "-m", help="Examinee spec; repeatable.")]
JudgeSpec = Annotated[str, typer.Option("--judge", "-j", help="Judge model spec.")]
Concurrency = Annotated[int, typer.Option(help="Judge requests in flight per endpoint.")]
AsJson = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
Combine = Annotated[
    str,
    typer.Option(
        help="How a pair's two orders combine: 'majority' (VisIT-Bench's released rule: the "
        "side that wins more of the two wins, so win+tie is a win) or 'both' (wins both)."
    ),
]


def combine_rule(value: str) -> CombineRule:
    """``--combine`` checked: one of :data:`COMBINE_RULES`, else exit 2."""
    for rule in COMBINE_RULES:
        if value == rule:
            return rule
    raise BadInput(f"--combine must be one of {', '.join(COMBINE_RULES)}, got {value!r}")


def _open_checked(store: str | None, benchmark: str, specs: list[str], concurrency: int) -> Store:
    """The store, once every spec and option is checked (RegistryError, exit 2: before the
    store is even opened, so a typo writes nothing); BadInput when the benchmark is absent or
    has no items."""
    check_concurrency(concurrency)
    for spec in specs:
        _player_identity(spec)
    opened = open_store(store)
    _check_items(opened, benchmark)
    return opened


def _check_items(store: Store, benchmark: str) -> None:
    require_benchmark(store, benchmark)
    if next(iter_items(store, benchmark), None) is None:
        raise BadInput(f"benchmark {benchmark!r} has no items; `lvlmbench ls` lists them")


def _player_identity(spec: str) -> str:
    """The stored name of a player: a model spec's identity (a bad spec or option raises
    RegistryError); ``reference`` and imported players' names as they are, and
    ``reference:<spec>`` with the writer's identity."""
    if spec == REFERENCE or could_be_imported(spec):
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
) -> JudgeRunSummary:
    """Run the judge here, or (``parallel`` = (concurrency, workers > 1)) in worker processes
    that split the units through leases; their summaries are summed."""
    concurrency, workers = parallel
    if workers != 1:
        runs = [out["run"] for out in run_workers(workers)]
        return JudgeRunSummary(**combined(runs, "judge"))

    async def main() -> JudgeRunSummary:
        await _answer_missing(store, benchmark, models, show)
        client = ModelClient(load_chat_model(judge), store, concurrency=concurrency)
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
    combine: Combine = "majority",
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: AsJson = False,
    max_tokens: MaxTokens = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    seed: Seed = None,
    system_prompt: SystemPrompt = None,
    param: Params = None,
    workers: Workers = 1,
) -> None:
    """Judge every pair of models in both orders (VisIT-Bench); print Bradley-Terry ratings
    (95% CI), win rates and online Elo."""
    judge = spec_with_flags(judge, max_tokens, temperature, top_p, seed, system_prompt, param)
    rule = combine_rule(combine)
    opened = _open_checked(store, benchmark, [*model, judge], concurrency)
    include = reference_free and play_reference
    players = _players(model)

    async def body(client: ModelClient) -> JudgeRunSummary:
        with progress_bar(f"judge {judge}", not as_json, client) as hook:
            return await run_pairwise(
                opened,
                benchmark,
                list(players),
                client,
                reference_backed=not reference_free,
                include_reference=include,
                on_progress=hook,
            )

    summary = _run(opened, benchmark, players, judge, (concurrency, workers), not as_json, body)
    empty = _empty_reason(opened, benchmark, list(players), summary)
    protocol = PAIRWISE if reference_free else PAIRWISE_REF
    report = pairwise_report(opened, benchmark, summary.judge, protocol=protocol, combine=rule)
    if as_json:
        print_json({"run": vars(summary), "ratings": report.as_dict()})
    else:
        console.print(_summary_line(summary), markup=False, highlight=False)
        print_pairwise_report(report)
    _finish(summary, empty)


def _reference_for(
    store: Store, benchmark: str, regenerate: bool, writer: str | None, judge: str
) -> str:
    """The reference player ``judge score`` scores against: the dataset's own (TouchStone's
    ``gpt4_ha_answer``, stored as ``item.reference``) unless ``regenerate`` asks for a
    caption-assisted one written by ``writer`` (default: the judge). BadInput when neither is
    possible, before anything is asked or written."""
    if writer is not None and not regenerate:
        raise BadInput(
            "--writer only applies with --regenerate-reference "
            "(the dataset's own reference needs no writer)"
        )
    if regenerate:
        return reference_name(resolve_spec(writer or judge))
    items = list(iter_items(store, benchmark))
    without = sum(not item.reference for item in items)
    if items and without == len(items):
        raise BadInput(
            f"no item of {benchmark!r} carries a reference answer (TouchStone's gpt4_ha_answer "
            "column); pass --regenerate-reference [--writer SPEC] to have a text model write "
            "a caption-assisted one"
        )
    if without:
        err_console.print(
            f"[yellow]warning:[/] {without} of {len(items)} items have no reference answer: "
            "they are counted as missing, not scored",
            highlight=False,
        )
    return REFERENCE


def _score_rows(store: Store, benchmark: str, judge: str, reference: str) -> list[dict[str, Any]]:
    items = {item.id: item for item in iter_items(store, benchmark)}
    scores = score_report(iter_judgments(store, judge=judge, protocol=SCORE), reference, items)
    return [
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


@judge_app.command("score")
@friendly_errors
def score(
    benchmark: Bench,
    model: Models,
    judge: JudgeSpec,
    regenerate_reference: Annotated[
        bool,
        typer.Option(
            "--regenerate-reference",
            help="Score against a caption-assisted reference written by --writer instead of "
            "the dataset's own (TouchStone's gpt4_ha_answer, the default).",
        ),
    ] = False,
    writer: Annotated[
        str | None,
        typer.Option(
            help="With --regenerate-reference: the text model that writes it (the judge)."
        ),
    ] = None,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: AsJson = False,
    max_tokens: MaxTokens = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    seed: Seed = None,
    system_prompt: SystemPrompt = None,
    param: Params = None,
    workers: Workers = 1,
) -> None:
    """Score each model 1-10 against the reference answer, both orders (TouchStone)."""
    judge = spec_with_flags(judge, max_tokens, temperature, top_p, seed, system_prompt, param)
    writer_spec = writer or judge
    opened = _open_checked(store, benchmark, [*model, judge, writer_spec], concurrency)
    reference = _reference_for(opened, benchmark, regenerate_reference, writer, judge)
    players = _players(model)

    async def body(client: ModelClient) -> JudgeRunSummary:
        if regenerate_reference:
            own = client if writer_spec == judge else None
            await _write_references(opened, benchmark, writer_spec, own, concurrency, as_json)
        with progress_bar(f"judge {judge}", not as_json, client) as hook:
            return await run_score(
                opened, benchmark, list(players), client, reference=reference, on_progress=hook
            )

    summary = _run(opened, benchmark, players, judge, (concurrency, workers), not as_json, body)
    empty = _empty_reason(opened, benchmark, [*players, reference], summary)
    rows = _score_rows(opened, benchmark, summary.judge, reference)
    if as_json:
        print_json({"run": vars(summary), "reference": reference, "scores": rows})
    else:
        console.print(_summary_line(summary), markup=False, highlight=False)
        console.print(score_table(rows, f"{benchmark}: TouchStone score ×100 vs {reference}"))
    _finish(summary, empty)


async def _write_references(
    store: Store,
    benchmark: str,
    writer_spec: str,
    own: ModelClient | None,
    concurrency: int,
    as_json: bool,
) -> None:
    """The caption-assisted reference by ``writer_spec`` (``own``: the judge's client, when
    the judge writes it), resumable and cached like any examinee run."""
    writer = own or ModelClient(load_chat_model(writer_spec), store, concurrency=concurrency)
    try:
        await writer.check()
        with progress_bar(f"reference {writer_spec}", not as_json, writer) as hook:
            await make_references(store, benchmark, writer, on_progress=hook)
    finally:
        if writer is not own:
            await writer.aclose()


@judge_app.command("hallucination")
@friendly_errors
def hallucination(
    benchmark: Bench,
    model: Models,
    judge: JudgeSpec,
    concurrency: Concurrency = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: AsJson = False,
    max_tokens: MaxTokens = None,
    temperature: Temperature = None,
    top_p: TopP = None,
    seed: Seed = None,
    system_prompt: SystemPrompt = None,
    param: Params = None,
    workers: Workers = 1,
) -> None:
    """Rate how much of each answer the caption does not support (0 none - 10 all; TouchStone)."""
    judge = spec_with_flags(judge, max_tokens, temperature, top_p, seed, system_prompt, param)
    opened = _open_checked(store, benchmark, [*model, judge], concurrency)
    players = _players(model)

    async def body(client: ModelClient) -> JudgeRunSummary:
        with progress_bar(f"judge {judge}", not as_json, client) as hook:
            return await run_hallucination(
                opened, benchmark, list(players), client, on_progress=hook
            )

    summary = _run(opened, benchmark, players, judge, (concurrency, workers), not as_json, body)
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
