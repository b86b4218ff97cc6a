"""`lvlmbench evaluate BENCH --model M ...`: run examinees on a stored benchmark and score them."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from lvlmbench.autobench.scoring import GROUPINGS, accuracy_table
from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    StoreOption,
    check_concurrency,
    console,
    friendly_errors,
    open_store,
    print_json,
    progress_bar,
)
from lvlmbench.cli._tables import accuracy_pivot, accuracy_rows_json
from lvlmbench.models import DEFAULT_CONCURRENCY, ModelClient, load_chat_model, parse_spec
from lvlmbench.runner import VARIANTS, EvalSummary, run_examinee
from lvlmbench.store import Store, get_benchmark
from lvlmbench.types import GenerationConfig

__all__ = ["check_specs", "evaluate", "parse_groupings", "run_models"]

Models = Annotated[list[str], typer.Option("--model", "-m", help="Examinee spec; repeatable.")]


def parse_groupings(by: str) -> list[str]:
    """``capability,difficulty`` -> validated facet names."""
    facets = [f.strip() for f in by.split(",") if f.strip()]
    unknown = [f for f in facets if f not in GROUPINGS]
    if unknown:
        raise BadInput(
            f"--by {by!r}: unknown facet {unknown[0]!r}; choose from {', '.join(GROUPINGS)}"
        )
    return facets


def check_specs(specs: list[str]) -> None:
    """Reject a malformed spec or an unknown provider before any work is stored (RegistryError,
    exit 2), so a typo in the last --model does not leave the others' runs half done."""
    for spec in specs:
        parse_spec(spec)


async def run_models(
    store: Store,
    benchmark: str,
    specs: list[str],
    *,
    variant: str,
    concurrency: int,
    show_progress: bool,
) -> list[EvalSummary]:
    """Run each examinee in turn (each with its own concurrency limit) and return summaries."""
    summaries = []
    for spec in specs:
        client = ModelClient(load_chat_model(spec), store, concurrency=concurrency)
        try:
            with progress_bar(f"{spec} [{variant}]", show_progress) as hook:
                summaries.append(
                    await run_examinee(
                        store,
                        benchmark,
                        client,
                        variant=variant,
                        config=GenerationConfig(max_tokens=256),
                        on_progress=hook,
                    )
                )
        finally:
            await client.aclose()
    return summaries


@friendly_errors
def evaluate(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    model: Models,
    variant: Annotated[str, typer.Option(help=f"One of {', '.join(VARIANTS)}.")] = "default",
    by: Annotated[
        str, typer.Option(help="Group accuracy by these facets (comma-separated).")
    ] = "difficulty",
    concurrency: Annotated[
        int, typer.Option(help="Requests in flight per endpoint.")
    ] = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Ask every examinee every item (resuming where a previous run stopped) and print accuracy
    with Wilson 95% intervals."""
    if variant not in VARIANTS:
        raise BadInput(f"--variant {variant!r}: choose from {', '.join(VARIANTS)}")
    check_concurrency(concurrency)
    facets = parse_groupings(by)
    check_specs(model)
    opened = open_store(store)
    if get_benchmark(opened, benchmark) is None:
        raise BadInput(
            f"no benchmark {benchmark!r} in {opened.url}; `lvlmbench generate` makes "
            "one, `lvlmbench store info` lists what is there"
        )
    summaries = asyncio.run(
        run_models(
            opened,
            benchmark,
            model,
            variant=variant,
            concurrency=concurrency,
            show_progress=not as_json,
        )
    )
    rows = accuracy_table(opened, benchmark, facets, variant=variant, models=model)
    if as_json:
        print_json(
            {"runs": [vars(s) for s in summaries], "accuracy": accuracy_rows_json(rows, facets)}
        )
    else:
        console.print(accuracy_pivot(rows, f"{benchmark}: accuracy % (95% CI)"))
        for s in summaries:
            console.print(
                f"{s.model}: {s.ok} ok, {s.unparseable} unparseable, {s.refused} refused, "
                f"{s.failed} failed, {s.skipped} already done, {s.wall_s:.1f}s"
            )
    if any(s.failed for s in summaries):
        raise typer.Exit(EXIT_FAILURES)
