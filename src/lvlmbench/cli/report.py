"""`lvlmbench report`: the static HTML report plus summary.json."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import BadInput, StoreOption, console, friendly_errors, open_store
from lvlmbench.report import write_report
from lvlmbench.store import (
    Store,
    did_you_mean,
    iter_benchmark_responses,
    iter_items,
    iter_judgments,
    list_benchmarks,
)

__all__ = ["report"]


@friendly_errors
def report(
    out: Annotated[
        Path,
        typer.Option(
            help="HTML file to write (summary.json and leaderboard.csv/.md go beside it)."
        ),
    ] = Path("report.html"),
    benchmark: Annotated[
        list[str] | None, typer.Option(help="Only these benchmarks (repeatable; default all).")
    ] = None,
    gallery: Annotated[int, typer.Option(help="Gallery items per benchmark.", min=0)] = 24,
    store: StoreOption = None,
) -> None:
    """Write one self-contained HTML report (inline SVG charts and thumbnails, no network)
    with leaderboards, charts, generation figures, ratings and an item gallery."""
    opened = open_store(store)
    _check_not_empty(opened, benchmark)
    try:
        files = write_report(opened, out, benchmark, gallery_size=gallery)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    console.print(
        f"report: {files.html} ({files.html.stat().st_size // 1024} KiB); "
        f"summary: {files.summary}; leaderboard: {files.leaderboard_csv}, {files.leaderboard_md}"
    )


def _check_not_empty(store: Store, benchmarks: list[str] | None) -> None:
    """BadInput when the report would be empty: no benchmark, or not one response or judgment
    on the chosen ones (a page of empty tables would read as "every model scored nothing")."""
    stored = [b.name for b in list_benchmarks(store)]
    names = [b for b in benchmarks or stored if b in stored]
    if not stored:
        raise BadInput(f"nothing to report: {store.url} has no benchmarks")
    for name in benchmarks or []:
        if name not in stored:
            raise BadInput(
                f"unknown benchmark {name!r}{did_you_mean(name, stored)}; "
                f"`lvlmbench ls` lists those in {store.url}"
            )
    if any(next(iter_benchmark_responses(store, b), None) is not None for b in names):
        return
    items = {item.id for b in names for item in iter_items(store, b)}
    if any(j.item_id in items for j in iter_judgments(store)):
        return
    raise BadInput(
        f"nothing to report: no responses or judgments on {', '.join(names)}; "
        "`lvlmbench evaluate` or `lvlmbench import` first"
    )
