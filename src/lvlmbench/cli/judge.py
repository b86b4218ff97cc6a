"""`lvlmbench judge pairwise|score|hallucination`.

The judge commands ask examinees first where their answers are missing (resumable, cached),
then run the judge (both orders where the protocol has two) and print a summary.
``lvlmbench rate`` and ``lvlmbench agreement`` (:mod:`lvlmbench.cli.judgments`) read the results
back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from lvlmbench.cli._common import StoreOption, console, friendly_errors
from lvlmbench.cli._judge_run import Shown, run_judge_command
from lvlmbench.cli._judge_tables import print_pairwise_report, protocol_table
from lvlmbench.cli._settings import (
    MaxTokens,
    Params,
    Seed,
    SystemPrompt,
    Temperature,
    TopP,
    Workers,
    generation_settings,
)
from lvlmbench.judging import PAIRWISE, SCORE, JudgeProtocol, protocol_for, protocols
from lvlmbench.models import DEFAULT_CONCURRENCY, load_chat_model, resolve_spec
from lvlmbench.workflows import JudgeOptions, JudgeResult

__all__ = [
    "AsJson",
    "Bench",
    "Combine",
    "JudgeSpec",
    "add_protocol_commands",
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


ReferenceFree = Annotated[
    bool, typer.Option("--reference-free", help="Do not show the reference to the judge.")
]
PlayReference = Annotated[
    bool, typer.Option(help="Reference-free only: the reference plays as model 'reference'.")
]
RegenerateReference = Annotated[
    bool,
    typer.Option(
        "--regenerate-reference",
        help="Score against a caption-assisted reference written by --writer instead of "
        "the dataset's own (TouchStone's gpt4_ha_answer, the default).",
    ),
]
Writer = Annotated[
    str | None,
    typer.Option(help="With --regenerate-reference: the text model that writes it (the judge)."),
]


Limit = Annotated[
    int | None,
    typer.Option(
        help="Judge only N items: the seeded stratified subset `evaluate --limit N` asks "
        "(missing answers are asked on it alone); the results are over it.",
        show_default=False,
    ),
]
LimitSeed = Annotated[int, typer.Option(help="Seed of the --limit subset (as evaluate's).")]
Epochs = Annotated[
    int,
    typer.Option(
        min=1,
        help="Answers per item and examinee (evaluate --epochs K's samples, asked where "
        "missing), each epoch's judged apart; the results average an item's epochs (the "
        "item is the unit, its interval over items).",
    ),
]


JudgeFlags = tuple[int | None, float | None, float | None, int | None, str | None, list[str] | None]
"""The judge's generation-settings flags: max tokens, temperature, top-p, seed, system prompt,
params."""


def _options(
    protocol: str, models: list[str], judge: str, flags: JudgeFlags, **more: Any
) -> JudgeOptions:
    return JudgeOptions(
        models=tuple(models),
        judge=judge,
        protocol=protocol,
        settings=generation_settings(*flags),
        **more,
    )


def _judged(
    store: str | None, benchmark: str, options: JudgeOptions, as_json: bool, shown: Shown
) -> None:
    """The use case through this module's resolver and loader, looked up at each call, so a
    test (or an embedding program) can swap them in one place."""
    run_judge_command(
        store, benchmark, options, as_json, shown, resolve=resolve_spec, load=load_chat_model
    )


def _protocol_rows(protocol: JudgeProtocol, title: str) -> Shown:
    """A protocol's summary rows as its table, and under its name in ``--json``."""

    def shown(result: JudgeResult) -> tuple[dict[str, Any], Callable[[], None]]:
        table = protocol_table(protocol, result.rows, title)
        return {protocol.name: result.rows}, lambda: console.print(table)

    return shown


@judge_app.command("pairwise")
@friendly_errors
def pairwise(
    benchmark: Bench,
    model: Models,
    judge: JudgeSpec,
    reference_free: ReferenceFree = False,
    play_reference: PlayReference = True,
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
    limit: Limit = None,
    limit_seed: LimitSeed = 0,
    epochs: Epochs = 1,
) -> None:
    """Judge every pair of models in both orders (VisIT-Bench); print Bradley-Terry ratings
    (95% CI), win rates and online Elo."""
    flags = (max_tokens, temperature, top_p, seed, system_prompt, param)
    options = _options(
        PAIRWISE,
        model,
        judge,
        flags,
        reference_free=reference_free,
        play_reference=play_reference,
        combine=combine,
        concurrency=concurrency,
        workers=workers,
        limit=limit,
        limit_seed=limit_seed,
        epochs=epochs,
    )

    def shown(result: JudgeResult) -> tuple[dict[str, Any], Callable[[], None]]:
        report = result.report
        assert report is not None
        return {"ratings": report.as_dict()}, lambda: print_pairwise_report(report)

    _judged(store, benchmark, options, as_json, shown)


@judge_app.command("score")
@friendly_errors
def score(
    benchmark: Bench,
    model: Models,
    judge: JudgeSpec,
    regenerate_reference: RegenerateReference = False,
    writer: Writer = None,
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
    limit: Limit = None,
    limit_seed: LimitSeed = 0,
    epochs: Epochs = 1,
) -> None:
    """Score each model 1-10 against the reference answer, both orders (TouchStone)."""
    flags = (max_tokens, temperature, top_p, seed, system_prompt, param)
    options = _options(
        SCORE,
        model,
        judge,
        flags,
        regenerate_reference=regenerate_reference,
        writer=writer,
        concurrency=concurrency,
        workers=workers,
        limit=limit,
        limit_seed=limit_seed,
        epochs=epochs,
    )

    def shown(result: JudgeResult) -> tuple[dict[str, Any], Callable[[], None]]:
        title = f"{benchmark}: TouchStone score ×100 vs {result.reference}"
        table = protocol_table(protocol_for(SCORE), result.rows, title)
        payload = {"reference": result.reference, "scores": result.rows}
        return payload, lambda: console.print(table)

    _judged(store, benchmark, options, as_json, shown)


def protocol_command(protocol: JudgeProtocol) -> Callable[..., None]:
    """``lvlmbench judge <name>`` for a protocol that judges the players' stored answers by
    itself (``protocol.run``): the common options, its table by its columns, ``--json`` with
    its summary rows under its name."""
    assert protocol.run is not None

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
        limit: Limit = None,
        limit_seed: LimitSeed = 0,
        epochs: Epochs = 1,
    ) -> None:
        flags = (max_tokens, temperature, top_p, seed, system_prompt, param)
        more = {"concurrency": concurrency, "workers": workers, "limit": limit}
        more |= {"limit_seed": limit_seed, "epochs": epochs}
        options = _options(protocol.name, model, judge, flags, **more)
        scale = f" ({protocol.scale})" if protocol.scale else ""
        shown = _protocol_rows(protocol, f"{benchmark}: {protocol.title}{scale}")
        _judged(store, benchmark, options, as_json, shown)

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
