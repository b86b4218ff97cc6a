"""The report's opening summary: one model × capability table over every benchmark shown, with
95% intervals and chance, and the same figures as a dot-and-interval chart.

The cells are the benchmarks' ``capability`` rows (``accuracy_table`` grouped by capability),
so the summary, the per-benchmark sections and ``leaderboard.csv`` cannot disagree.
"""

from __future__ import annotations

from html import escape
from typing import Any

from lvlmbench.models import display_names
from lvlmbench.ratings import category_mean
from lvlmbench.report._html import TURN_AT, table
from lvlmbench.report.render_board import coverage_flags, legend_table
from lvlmbench.report.summary import BenchmarkSummary
from lvlmbench.report.svg import Dot, dot_interval_chart
from lvlmbench.stats import format_interval, interval_note_of_fields

__all__ = ["BASELINE_PREFIX", "includes_chance", "model_label", "summary_section"]

BASELINE_PREFIX = "baseline/"
"""Built-in reference players (random, prior, oracle): tagged, never hidden."""


def includes_chance(row: dict[str, Any]) -> bool:
    """Whether an accuracy row's 95% interval includes its group's chance rate."""
    chance = row.get("chance")
    return chance is not None and row["ci_low"] <= chance <= row["ci_high"]


def model_label(model: str, shown: str) -> str:
    """A model's escaped name cell content, with a "baseline" tag for the built-in players."""
    tag = ' <span class="tag">baseline</span>' if model.startswith(BASELINE_PREFIX) else ""
    return escape(shown) + tag


def _columns(benchmarks: list[BenchmarkSummary]) -> list[tuple[str, str, str]]:
    """(benchmark, capability, heading) per column; the benchmark is named only when two
    benchmarks share a capability."""
    pairs = list(
        dict.fromkeys((b["name"], r["capability"]) for b in benchmarks for r in b["capability"])
    )
    capabilities = [c for _, c in pairs]
    return [
        (bench, cap, cap if capabilities.count(cap) == 1 else f"{cap} ({bench})")
        for bench, cap in pairs
    ]


def _cell(row: dict[str, Any] | None, model: str, heading: str) -> str:
    if row is None:
        return "<td>-</td>"
    near = includes_chance(row)
    css = ' class="near-chance"' if near else ""
    flag = " ≈ chance" if near else ""
    return (
        f'<td{css} data-model="{escape(model)}" data-summary="{escape(heading)}" '
        f'data-accuracy="{row["accuracy"]:.1f}">{row["accuracy"]:.1f} '
        f'<span class="ci">[{format_interval(row["ci_low"], row["ci_high"], digits=1)}]'
        f"{flag}</span></td>"
    )


def _partial_flags(benchmarks: list[BenchmarkSummary]) -> dict[str, list[str]]:
    """model → the leaderboard's "partial: answered k of n items, not ranked" flag of every
    benchmark it answered only part of (named when the summary shows several)."""
    flags: dict[str, list[str]] = {}
    for bench in benchmarks:
        for model, flag in coverage_flags(bench).items():
            where = f"{bench['name']}: " if len(benchmarks) > 1 else ""
            flags.setdefault(model, []).append(where + flag)
    return flags


def _flag(flags: list[str] | None) -> str:
    return "".join(f'<br><span class="partial">{escape(f)}</span>' for f in flags or [])


def _grid(
    columns: list[tuple[str, str, str]],
    models: list[str],
    shown: dict[str, str],
    cells: dict[tuple[str, str, str], dict[str, Any]],
    flags: dict[str, list[str]],
) -> str:
    """The summary table: models as rows (best first), or, for many capabilities, capabilities
    as rows under their benchmark and the models as columns in the same order."""
    if len(columns) <= max(TURN_AT, len(models)):
        body = [
            [f"<td>{model_label(m, shown[m])}{_flag(flags.get(m))}</td>"]
            + [_cell(cells.get((bench, cap, m)), m, head) for bench, cap, head in columns]
            for m in models
        ]
        return table(["model", *(head for _, _, head in columns)], body, "summary")
    rows = []
    for k, (bench, cap, head) in enumerate(columns):
        first = k == 0 or columns[k - 1][0] != bench  # the benchmark named once, on its first row
        rows.append(
            [f"<td>{escape(bench) if first else ''}</td>", f"<td>{escape(cap)}</td>"]
            + [_cell(cells.get((bench, cap, m)), m, head) for m in models]
        )
    heads = ["benchmark", "capability", *(shown[m] for m in models)]
    return table(heads, rows, "summary")


def summary_section(benchmarks: list[BenchmarkSummary]) -> str:
    """The model × capability table and chart ('' when no benchmark has capability rows)."""
    columns = _columns(benchmarks)
    if not columns:
        return ""
    cells = {
        (b["name"], r["capability"], r["model"]): r for b in benchmarks for r in b["capability"]
    }
    models = list(dict.fromkeys(m for _, _, m in cells))
    headings = [head for _, _, head in columns]
    flags = _partial_flags(benchmarks)

    def order(model: str) -> tuple[int, float, str]:
        # Best mean over every column first; a model missing columns has no such mean (a
        # mean over its easier half would rank it above better models): after, by coverage,
        # as is a model that answered part of a benchmark's items (flagged as the
        # leaderboard flags it).
        found = {
            head: cells[b, c, model]["accuracy"] for b, c, head in columns if (b, c, model) in cells
        }
        mean = category_mean(found, headings)
        if mean.value is not None and model not in flags:
            return (0, -mean.value, model)
        return (1, -len(mean.coverage.present), model)

    models.sort(key=order)
    shown = display_names(models, compact=True)
    grid = _grid(columns, models, shown, cells, flags)
    chance = {
        head: row["chance"]
        for bench, cap, head in columns
        for (b, c, _), row in cells.items()
        if (b, c) == (bench, cap) and row.get("chance") is not None
    }
    dots = [
        Dot(head, shown[m], r["accuracy"], r["ci_low"], r["ci_high"])
        for bench, cap, head in columns
        for m in models
        if (r := cells.get((bench, cap, m))) is not None
    ]
    title = "accuracy % by capability (95% CI, dashed: chance)"
    note = (
        '<p class="note">Accuracy % [95% CI] on each capability\'s choice items; '
        f"{escape(interval_note_of_fields(cells.values()))}. "
        "Chance is 1/options for multiple choice and 1/2 for true/false, averaged over the "
        "capability's items; “≈ chance” marks an interval that includes it.</p>"
    )
    return (
        '<section id="summary"><h2>Summary: model × capability</h2>'
        + note
        + grid
        + legend_table(shown, models)
        + dot_interval_chart(dots, title, chance=chance)
        + "</section>"
    )
