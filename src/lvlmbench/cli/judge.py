"""`lvlmbench judge pairwise|score|hallucination`.

The judge commands ask examinees first where their answers are missing (resumable, cached),
then run the judge (both orders where the protocol has two) and print a summary.
``lvlmbench rate`` and ``lvlmbench agreement`` (:mod:`lvlmbench.cli.judgments`) read the results
back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    console,
    err_console,
    friendly_errors,
    progress_bar,
)
from lvlmbench.cli._fanout import Workers
from lvlmbench.cli._judge_run import JudgeCommand
from lvlmbench.cli._judge_tables import print_pairwise_report, protocol_table
from lvlmbench.cli._settings import (
    MaxTokens,
    Params,
    Seed,
    SystemPrompt,
    Temperature,
    TopP,
    spec_with_flags,
)
from lvlmbench.judging import (
    PAIRWISE,
    PAIRWISE_REF,
    REFERENCE,
    SCORE,
    JudgeProtocol,
    JudgeRunSummary,
    ProgressHook,
    make_references,
    pairwise_report,
    protocol_for,
    protocols,
    reference_name,
    run_pairwise,
    run_score,
    score_report,
)
from lvlmbench.models import (
    DEFAULT_CONCURRENCY,
    ModelClient,
    load_chat_model,
    resolve_spec,
    spec_label,
)
from lvlmbench.ratings import COMBINE_RULES, CombineRule
from lvlmbench.store import Store, iter_items, iter_judgments

__all__ = [
    "AsJson",
    "Bench",
    "Combine",
    "JudgeSpec",
    "add_protocol_commands",
    "combine_rule",
    "judge_app",
    "protocol_command",
]

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


def _command(
    store: str | None,
    benchmark: str,
    models: list[str],
    judge: str,
    parallel: tuple[int, int],
    as_json: bool,
    more_specs: Sequence[str] = (),
) -> JudgeCommand:
    """The checked command; specs resolve and models load through this module's names, looked
    up at each call, so a test (or an embedding program) can swap them in one place."""
    return JudgeCommand.open(
        store,
        benchmark,
        models,
        judge,
        parallel,
        as_json,
        more_specs,
        resolve=resolve_spec,
        load=load_chat_model,
    )


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
    command = _command(store, benchmark, model, judge, (concurrency, workers), as_json)
    opened = command.store

    async def run(client: ModelClient, hook: ProgressHook) -> JudgeRunSummary:
        return await run_pairwise(
            opened,
            benchmark,
            list(command.players),
            client,
            reference_backed=not reference_free,
            include_reference=reference_free and play_reference,
            on_progress=hook,
        )

    def results(summary: JudgeRunSummary) -> tuple[dict[str, Any], Callable[[], None]]:
        protocol = PAIRWISE if reference_free else PAIRWISE_REF
        report = pairwise_report(opened, benchmark, summary.judge, protocol=protocol, combine=rule)
        return {"ratings": report.as_dict()}, lambda: print_pairwise_report(report)

    command.judge_with(run, results)


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


def _summary_rows(
    store: Store, benchmark: str, judge: str, protocol: JudgeProtocol, **options: str
) -> list[dict[str, Any]]:
    """The flat summary rows of ``judge``'s rows under ``protocol`` on ``benchmark``."""
    items = {item.id: item for item in iter_items(store, benchmark)}
    rows = iter_judgments(store, judge=judge, protocol=protocol.name)
    if protocol.name == SCORE:  # scored against the reference this run used
        return [s.row() for s in score_report(rows, options["reference"], items).values()]
    assert protocol.summarise is not None
    return [s.row() for s in protocol.summarise(rows, items).values()]


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
    parallel = (concurrency, workers)
    command = _command(store, benchmark, model, judge, parallel, as_json, [writer_spec])
    opened = command.store
    reference = _reference_for(opened, benchmark, regenerate_reference, writer, judge)

    async def run(client: ModelClient, hook: ProgressHook) -> JudgeRunSummary:
        if regenerate_reference:
            own = client if writer_spec == judge else None
            await _write_references(opened, benchmark, writer_spec, own, concurrency, as_json)
        players = list(command.players)
        return await run_score(
            opened, benchmark, players, client, reference=reference, on_progress=hook
        )

    def results(summary: JudgeRunSummary) -> tuple[dict[str, Any], Callable[[], None]]:
        protocol = protocol_for(SCORE)
        rows = _summary_rows(opened, benchmark, summary.judge, protocol, reference=reference)
        title = f"{benchmark}: TouchStone score ×100 vs {reference}"
        table = protocol_table(protocol, rows, title)
        return {"reference": reference, "scores": rows}, lambda: console.print(table)

    command.judge_with(run, results, also=[reference])


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
        with progress_bar(f"reference {spec_label(writer_spec)}", not as_json, writer) as hook:
            await make_references(store, benchmark, writer, on_progress=hook)
    finally:
        if writer is not own:
            await writer.aclose()


def protocol_command(protocol: JudgeProtocol) -> Callable[..., None]:
    """``lvlmbench judge <name>`` for a protocol that judges the players' stored answers by
    itself (``protocol.run``): the common options, its table by its columns, ``--json`` with
    its summary rows under its name."""
    assert protocol.run is not None
    run_protocol = protocol.run

    def command(
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
        judge = spec_with_flags(judge, max_tokens, temperature, top_p, seed, system_prompt, param)
        command = _command(store, benchmark, model, judge, (concurrency, workers), as_json)

        async def run(client: ModelClient, hook: ProgressHook) -> JudgeRunSummary:
            players = list(command.players)
            return await run_protocol(command.store, benchmark, players, client, hook)

        def results(summary: JudgeRunSummary) -> tuple[dict[str, Any], Callable[[], None]]:
            rows = _summary_rows(command.store, benchmark, summary.judge, protocol)
            rows = [r for r in rows if r["model"] in command.players]
            scale = f" ({protocol.scale})" if protocol.scale else ""
            table = protocol_table(protocol, rows, f"{benchmark}: {protocol.title}{scale}")
            return {protocol.name: rows}, lambda: console.print(table)

        command.judge_with(run, results)

    command.__doc__ = protocol.help or f"Judge with the {protocol.title} protocol."
    command.__name__ = protocol.name.replace("-", "_").replace(":", "_")
    return friendly_errors(command)


def add_protocol_commands(app: typer.Typer = judge_app) -> list[str]:
    """A ``judge <name>`` command for every registered protocol with a ``run`` that has no
    command yet (call again after registering one); the names added."""
    have = {info.name for info in app.registered_commands}
    added = []
    for protocol in protocols():
        if protocol.run is not None and protocol.name not in have:
            app.command(protocol.name)(protocol_command(protocol))
            added.append(protocol.name)
    return added


add_protocol_commands()
