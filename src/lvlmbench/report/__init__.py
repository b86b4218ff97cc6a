"""The static report: one self-contained HTML file (inline SVG, inline thumbnails, no network,
no JavaScript) plus ``summary.json``, ``leaderboard.csv`` and ``leaderboard.md`` beside it, all
from the same collected data.

To show one benchmark's section elsewhere (a web page), call :func:`benchmark_html` and style
it with :func:`report_css`; or :func:`benchmark_summary` then :func:`render_benchmark` to keep
the figures too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from lvlmbench.report.collect import benchmark_summary, collect, level_spread, pct
from lvlmbench.report.gallery import gallery_html, thumbnail_uri
from lvlmbench.report.leaderboard import (
    board_names,
    leaderboard_markdown,
    leaderboard_rows,
    write_leaderboards,
)
from lvlmbench.report.render import CellLink, render_benchmark, render_page, report_css
from lvlmbench.report.render_comparisons import comparisons_section
from lvlmbench.report.summary import BenchmarkSummary, ReportData
from lvlmbench.report.svg import (
    Dot,
    bar_chart,
    dot_interval_chart,
    heatmap,
    line_chart,
    range_chart,
)
from lvlmbench.stats import ComparisonTable
from lvlmbench.store import Store

__all__ = [
    "BenchmarkSummary",
    "CellLink",
    "Dot",
    "ReportData",
    "ReportFiles",
    "bar_chart",
    "benchmark_html",
    "benchmark_summary",
    "board_names",
    "collect",
    "dot_interval_chart",
    "gallery_html",
    "heatmap",
    "leaderboard_markdown",
    "leaderboard_rows",
    "level_spread",
    "line_chart",
    "pct",
    "range_chart",
    "render_benchmark",
    "render_page",
    "report_css",
    "thumbnail_uri",
    "write_leaderboards",
    "write_report",
]


class ReportFiles(NamedTuple):
    """The files :func:`write_report` wrote."""

    html: Path
    summary: Path
    leaderboard_csv: Path
    leaderboard_md: Path


def benchmark_html(
    store: Store, name: str, gallery_size: int = 0, link: CellLink | None = None
) -> str:
    """One benchmark's report section (tables, inline SVG charts, optional gallery) as an
    escaped HTML fragment with no script and no styles of its own (see :func:`report_css`);
    ``link`` makes each accuracy cell a link (the web app's item browser)."""
    bench = benchmark_summary(store, name)
    gallery = gallery_html(store, name, gallery_size, board_names(bench)) if gallery_size else ""
    return render_benchmark(bench, gallery, link)


def _comparisons_html(table: ComparisonTable | None, names: Mapping[str, str]) -> str:
    return "" if table is None else comparisons_section(table, names)


def write_report(
    store: Store,
    out: Path,
    benchmarks: Sequence[str] | None = None,
    *,
    gallery_size: int = 24,
    comparisons: Mapping[str, ComparisonTable] | None = None,
) -> ReportFiles:
    """Write the HTML report to ``out`` and ``summary.json``, ``leaderboard.csv`` and
    ``leaderboard.md`` beside it; return their paths. ``comparisons``: a benchmark's paired
    comparison table (built by the use case above), shown as its Comparisons section.

    Raises ValueError for a benchmark the store does not have.
    """
    data = collect(store, benchmarks)
    # A long page folds every benchmark but the first; the table of contents reaches them all.
    sections = [
        render_benchmark(
            bench,
            gallery_html(store, bench["name"], gallery_size, board_names(bench)),
            extra=_comparisons_html((comparisons or {}).get(bench["name"]), board_names(bench)),
            collapsed=i > 0,
        )
        for i, bench in enumerate(data["benchmarks"])
    ]
    generated = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_page(data, sections, generated), encoding="utf-8")
    summary = out.with_name("summary.json")
    summary.write_text(json.dumps({"generated": generated, **data}, indent=2), encoding="utf-8")
    csv_path, md_path = write_leaderboards(data, out.parent)
    return ReportFiles(out, summary, csv_path, md_path)
