"""The static report: one self-contained HTML file (inline SVG, inline thumbnails, no network,
no JavaScript) plus ``summary.json`` beside it, both from the same collected data."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

from lvlmbench.report.collect import benchmark_summary, collect, pct
from lvlmbench.report.gallery import gallery_html, thumbnail_uri
from lvlmbench.report.render import render_benchmark, render_page
from lvlmbench.report.svg import Dot, dot_interval_chart, heatmap, line_chart
from lvlmbench.store import Store

__all__ = [
    "Dot",
    "benchmark_summary",
    "collect",
    "dot_interval_chart",
    "gallery_html",
    "heatmap",
    "line_chart",
    "pct",
    "render_benchmark",
    "render_page",
    "thumbnail_uri",
    "write_report",
]


def write_report(
    store: Store,
    out: Path,
    benchmarks: Sequence[str] | None = None,
    *,
    gallery_size: int = 24,
) -> tuple[Path, Path]:
    """Write the HTML report to ``out`` and ``summary.json`` beside it; return both paths.

    Raises ValueError for a benchmark the store does not have.
    """
    data = collect(store, benchmarks)
    sections = [
        render_benchmark(bench, gallery_html(store, bench["name"], gallery_size))
        for bench in data["benchmarks"]
    ]
    generated = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_page(data, sections, generated), encoding="utf-8")
    summary = out.with_name("summary.json")
    summary.write_text(json.dumps({"generated": generated, **data}, indent=2), encoding="utf-8")
    return out, summary
