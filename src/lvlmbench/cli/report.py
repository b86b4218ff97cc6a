"""`lvlmbench report`: the static HTML report plus summary.json."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import StoreOption, console, friendly_errors, open_store
from lvlmbench.workflows.reporting import ReportOptions, make_report

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
    baseline: Annotated[
        str | None,
        typer.Option(help="Comparisons: every model against this one (default: the best)."),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write one self-contained HTML report (inline SVG charts and thumbnails, no network)
    with leaderboards, charts, generation figures, ratings and an item gallery."""
    files = make_report(open_store(store), ReportOptions(out, benchmark, gallery, baseline))
    console.print(
        f"report: {files.html} ({files.html.stat().st_size // 1024} KiB); "
        f"summary: {files.summary}; leaderboard: {files.leaderboard_csv}, {files.leaderboard_md}"
    )
