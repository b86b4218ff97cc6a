"""`lvlmbench experiment leakage-levels|ranks BENCH`: answer leakage and model ranks per
difficulty level, with clustered 95% intervals (the paper's Figure 5 by level and Figure 8)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer
from rich.table import Table

from lvlmbench.autobench.exp_levels import LevelAccuracy, leakage_by_level, ranks_by_level
from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    check_concurrency,
    console,
    open_store,
    print_json,
)
from lvlmbench.cli._runs import run_models
from lvlmbench.cli.evaluate import Models
from lvlmbench.models import DEFAULT_CONCURRENCY, display_names, resolve_spec
from lvlmbench.stats import format_interval
from lvlmbench.store import Store, get_benchmark
from lvlmbench.workflows import check_specs

__all__ = ["leakage_levels", "ranks"]

JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _opened(store: str | None, benchmark: str, writable: bool = True) -> Store:
    opened = open_store(store, writable)
    if get_benchmark(opened, benchmark) is None:
        raise BadInput(f"no benchmark {benchmark!r} in {opened.url}")
    return opened


def _pct(score: LevelAccuracy | None) -> str:
    if score is None:
        return "-"
    low, high = score.interval
    interval = format_interval(low, high, scale=100, digits=1)
    return f"{100 * score.accuracy:.1f} [{interval}] n={score.items}"


def leakage_levels(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    model: Models,
    concurrency: Annotated[int, typer.Option(help="Requests in flight.")] = DEFAULT_CONCURRENCY,
    store: StoreOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Per difficulty level: accuracy with the image and from the description only (95%
    intervals clustered by fine aspect), and how far the models' description-only accuracies
    spread."""
    check_specs(model)
    check_concurrency(concurrency)
    opened = _opened(store, benchmark)
    for variant in ("default", "no-image"):  # finished answers are reused
        asyncio.run(
            run_models(
                opened,
                benchmark,
                model,
                variant=variant,
                concurrency=concurrency,
                show_progress=not as_json,
            )
        )
    identities = [resolve_spec(m) for m in model]
    rows = leakage_by_level(opened, benchmark, identities)
    if as_json:
        print_json([_leak_json(r) for r in rows])
        return
    shown = display_names(identities)
    table = Table(title=f"{benchmark}: answer leakage per level (accuracy %)", title_justify="left")
    for column in ("level", "model", "with image", "description only"):
        table.add_column(column)
    for row in rows:
        for identity in identities:
            table.add_row(
                row.level,
                shown[identity],
                _pct(row.with_image.get(identity)),
                _pct(row.description_only.get(identity)),
            )
        table.add_row(
            row.level,
            "spread across models",
            "",
            f"std {100 * row.spread_std:.1f} · range {100 * row.spread_range:.1f} points",
        )
    console.print(table)


def _leak_json(row: Any) -> dict[str, Any]:
    return {
        "level": row.level,
        "with_image": {m: a.as_dict() for m, a in row.with_image.items()},
        "description_only": {m: a.as_dict() for m, a in row.description_only.items()},
        "description_only_std": row.spread_std,
        "description_only_range": row.spread_range,
    }


def ranks(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    store: StoreOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Each evaluated model's rank at each difficulty level (1 = best; ties share a rank),
    from the answers already stored."""
    opened = _opened(store, benchmark, writable=False)
    rows = ranks_by_level(opened, benchmark)
    if not rows:
        raise BadInput(f"no answers to {benchmark!r} yet: run `lvlmbench evaluate` first")
    if as_json:
        print_json(
            [
                {"level": r.level, "model": r.model, "rank": r.rank, **r.score.as_dict()}
                for r in rows
            ]
        )
        return
    levels = list(dict.fromkeys(r.level for r in rows))
    models = sorted({r.model for r in rows})
    shown = display_names(models)
    by = {(r.model, r.level): r for r in rows}
    table = Table(title=f"{benchmark}: rank per level (accuracy %)", title_justify="left")
    table.add_column("model")
    for level in levels:
        table.add_column(level, justify="right")
    for m in models:
        cells = [
            f"#{by[m, lv].rank} ({100 * by[m, lv].score.accuracy:.1f})" if (m, lv) in by else "-"
            for lv in levels
        ]
        table.add_row(shown[m], *cells)
    table.caption = "only models that answered every item of a level are ranked there"
    table.caption_justify = "left"
    console.print(table)
