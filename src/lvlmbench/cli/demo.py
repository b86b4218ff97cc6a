"""`lvlmbench demo`: the whole AutoBench-V pipeline on the embedded default, offline."""

from __future__ import annotations

import asyncio
import os
import shlex
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.markup import escape

from lvlmbench._workers import start_in_process
from lvlmbench.autobench.experiments import Target, leakage_figures, position_bias_figures
from lvlmbench.autobench.leaderboard import leaderboard, write_leaderboard
from lvlmbench.autobench.pipeline import GenerateSettings
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.cli._common import BadInput, console, friendly_errors
from lvlmbench.cli._runs import run_models
from lvlmbench.cli._tables import accuracy_pivot
from lvlmbench.cli.experiment import (
    print_bias_table,
    print_leakage_table,
    run_leakage,
    run_position_bias,
)
from lvlmbench.cli.generate import print_report, run_generation
from lvlmbench.models import resolve_spec
from lvlmbench.report import write_report
from lvlmbench.scenes import CAPABILITIES
from lvlmbench.store import Store, did_you_mean

__all__ = ["DEMO_MODELS", "demo", "next_commands"]

T = TypeVar("T")
DEMO_MODELS = ("baseline/random", "baseline/prior", "baseline/pixels", "baseline/oracle")


async def _generate(store: Store, capabilities: list[str], per_aspect: int, seed: int) -> list[str]:
    names = []
    for capability in capabilities:
        settings = GenerateSettings(capability=capability, per_aspect=per_aspect, seed=seed)
        report = await run_generation(store, settings, "procedural", "procedural", "scene", True)
        print_report(report, settings.benchmark)
        names.append(settings.benchmark)
    return names


async def _evaluate(store: Store, names: list[str], models: list[str]) -> None:
    for name in names:
        await run_models(store, name, models, variant="default", concurrency=16, show_progress=True)


def _evaluate_beside_experiments(
    store: Store, database: str, names: list[str], models: list[str], seed: int
) -> Future[float]:
    """Evaluate every benchmark, the experiments on the first one running beside the rest."""
    asyncio.run(_evaluate(store, names[:1], models))
    experiments = start_in_process(experiments_flow, database, names[0], models, seed)
    asyncio.run(_evaluate(store, names[1:], models))
    return experiments


def open_ended_flow(store_url: str, seed: int, capabilities: list[str]) -> dict[str, Any]:
    """VisIT-Bench-style open-ended flow on procedural instructions: the baselines answer,
    text metrics judge them against the fact-built references, ratings rank the examinees.
    Runs in a process of its own from the start, beside the generation and the evaluation
    (its own store connection): it is mostly single-core work (metric imports, WordNet,
    BERTScore), and the generation leaves part of the second core idle (startup, each
    benchmark's closing checks)."""
    # One core's worth: torch (BERTScore) would start a thread per core, spinning against the
    # generation's workers (2.3 of its 15 CPU-seconds on 2 cores). A user's setting wins.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from lvlmbench.workflows import run_open_ended

    store = Store.open(store_url)
    try:
        return asyncio.run(run_open_ended(store, seed=seed, capabilities=capabilities))
    finally:
        store.close()


def _print_open_ended(pending: Future[dict[str, Any]]) -> None:
    from lvlmbench.cli.metrics import open_ended_tables

    waited, result = _wait(pending)
    for table in open_ended_tables(result):
        console.print(table)
    console.print(
        f"open-ended ({result['benchmark']}): {result['items']} items, metrics "
        f"{', '.join(result['metrics'])} in {result['timings']['total']:.1f}s, beside the "
        f"generation (waited {waited:.1f}s for it)",
        soft_wrap=True,  # one line, whatever the width: bench/bench_demo.py reads it
    )
    for name, why in result["unavailable"].items():
        console.print(f"[dim]{escape(f'{name} skipped: {why}')}[/]")  # keeps "[extra]" literal


_TARGETS: list[Target] = ["A", "D", "even"]


def experiments_flow(store_url: str, benchmark: str, models: list[str], seed: int) -> float:
    """The paper's two experiments on the first benchmark, so the report has their charts:
    keys moved to A, to D and spread evenly (position bias), and answers without the image
    (leakage); its seconds. Runs in a process of its own beside the evaluation of the other
    benchmarks (started once the first one's answers are in, which leakage reuses): the
    baselines answer in seconds, so this is mostly one core's bookkeeping, and the second core
    would otherwise idle for its whole length. No progress bars: the evaluation's are on screen."""
    started = time.perf_counter()
    store = Store.open(store_url)
    try:
        run_position_bias(store, benchmark, models, _TARGETS, seed, 16, False)
        run_leakage(store, benchmark, models, True, 16, False)
    finally:
        store.close()
    return time.perf_counter() - started


def _print_experiments(
    pending: Future[float], store: Store, benchmark: str, models: list[str], seed: int
) -> None:
    """The experiments' figures, as the experiment commands print them."""
    waited, seconds = _wait(pending)
    identities = [resolve_spec(m) for m in models]  # rows are stored under identities
    print_bias_table(benchmark, position_bias_figures(store, benchmark, _TARGETS, identities, seed))
    print_leakage_table(benchmark, *leakage_figures(store, benchmark, identities))
    console.print(
        f"experiments on {benchmark} (position bias, leakage) in {seconds:.1f}s, beside the "
        f"evaluation (waited {waited:.1f}s for them)",
        soft_wrap=True,  # one line, whatever the width: bench/bench_demo.py reads it
    )


def _wait(pending: Future[T]) -> tuple[float, T]:
    """Seconds spent waiting for a flow beside this one, and its result."""
    started = time.perf_counter()
    result = pending.result()
    return time.perf_counter() - started, result


@friendly_errors
def demo(
    out: Annotated[Path, typer.Option(help="Directory for the store and result files.")] = Path(
        "demo-out"
    ),
    per_aspect: Annotated[
        int, typer.Option(help="Images per fine aspect and level (paper: 10 → 720 per capability).")
    ] = 10,
    capability: Annotated[
        list[str] | None, typer.Option(help="Only these capabilities (repeatable).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for every stage.")] = 0,
) -> None:
    """Generate benchmarks for the five built-in capabilities with the procedural examiner and
    renderer, evaluate the baseline examinees and print the leaderboard."""
    chosen = capability or list(CAPABILITIES)
    unknown = [c for c in chosen if c not in CAPABILITIES]
    if unknown:
        raise BadInput(
            f"--capability {unknown[0]!r}{did_you_mean(unknown[0], CAPABILITIES)}: built-in "
            f"ones are {', '.join(CAPABILITIES)}"
        )
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    database = str(out / "lvlmbench.db")
    store = Store.open(database)
    models = list(DEMO_MODELS)
    open_ended = start_in_process(open_ended_flow, database, seed, chosen)
    names = asyncio.run(_generate(store, chosen, per_aspect, seed))
    experiments = _evaluate_beside_experiments(store, database, names, models, seed)
    console.print(
        accuracy_pivot(
            accuracy_table(store, names, ["capability"], models=models),
            "accuracy % by capability (95% CI)",
        )
    )
    console.print(
        accuracy_pivot(
            accuracy_table(store, names, ["difficulty"], models=models),
            "accuracy % by difficulty, all capabilities (95% CI)",
        )
    )
    rows = leaderboard(
        store, names, models, ("capability", "general_aspect", "fine_aspect", "difficulty")
    )
    paths = write_leaderboard(
        rows, out, {"benchmarks": names, "models": models, "wall_s": time.perf_counter() - started}
    )
    _print_experiments(experiments, store, names[0], models, seed)
    _print_open_ended(open_ended)
    # In its own folder: the report writes a summary.json of its own beside the HTML.
    report = write_report(store, out / "report" / "report.html")
    console.print(f"report: {report.html}")
    console.print(f"report leaderboard: {report.leaderboard_csv}, {report.leaderboard_md}")
    console.print(f"results: {', '.join(str(p) for p in paths)}; store: {store.url}")
    console.print(f"demo finished in {time.perf_counter() - started:.1f}s")
    print_next_steps(out / "lvlmbench.db", names)


def next_commands(db: Path, benchmarks: list[str], model: str = "openai/gpt-4o-mini") -> list[str]:
    """The two shell commands from the demo to one's own model: evaluate it on every demo
    benchmark (resuming, cached; the baselines' rows are already there), then serve it all."""
    store = shlex.quote(str(db))
    names = " ".join(shlex.quote(name) for name in benchmarks)
    return [
        # One command: evaluate takes several benchmarks and ends with a table across them.
        f"lvlmbench evaluate {names} -m {model} --store {store}",
        f"lvlmbench serve --store {store}",
    ]


def print_next_steps(db: Path, benchmarks: list[str]) -> None:
    """Print :func:`next_commands` with a line on what to change in them."""
    console.print(
        "\nnext: your own model on these benchmarks, then browse every answer "
        "(any PROVIDER/NAME spec; `lvlmbench models providers` lists the providers):",
        markup=False,
        highlight=False,
    )
    for command in next_commands(db, benchmarks):
        console.print(f"  {command}", markup=False, highlight=False, soft_wrap=True)
