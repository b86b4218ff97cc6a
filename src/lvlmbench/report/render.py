"""Turn the collected report data into HTML sections and fill the page template."""

from __future__ import annotations

import string
from collections.abc import Collection, Mapping
from html import escape
from importlib import resources
from typing import Any

from lvlmbench.report._common import LEVELS
from lvlmbench.report._html import TURN_AT, fmt, human_label, table, td
from lvlmbench.report.judged import judged_sections
from lvlmbench.report.leaderboard import board_names
from lvlmbench.report.render_board import (
    CellLink,
    acc_cell,
    coverage_flags,
    leaderboard_order,
    legend_table,
    model_cell,
    overall_section,
)
from lvlmbench.report.render_experiments import (
    leakage_section,
    position_bias_section,
    spread_section,
)
from lvlmbench.report.render_experiments_design import design_experiment_sections
from lvlmbench.report.render_summary import includes_chance, summary_section
from lvlmbench.report.render_vlmeval import vlmeval_section
from lvlmbench.report.summary import AccuracyFacet, BenchmarkSummary, ReportData
from lvlmbench.report.svg import Dot, dot_interval_chart, heatmap, line_chart
from lvlmbench.stats import interval_note_of_fields

__all__ = ["CellLink", "render_benchmark", "render_page", "report_css"]


def _ordered_groups(rows: list[dict[str, Any]], facet: str) -> list[str]:
    groups = sorted({r[facet] for r in rows})
    if facet == "difficulty":
        groups.sort(key=lambda g: (LEVELS.index(g) if g in LEVELS else len(LEVELS), g))
    return groups


def _accuracy_section(
    bench: BenchmarkSummary,
    facet: AccuracyFacet,
    label: str,
    link: CellLink | None,
    names: Mapping[str, str],
) -> str:
    rows = bench[facet]
    if not rows:
        return ""
    groups = _ordered_groups(rows, facet)
    models = leaderboard_order(
        bench, list(dict.fromkeys([*bench["models"], *(r["model"] for r in rows)]))
    )
    by_key = {(r["model"], r[facet]): r for r in rows}
    flags = coverage_flags(bench)
    models = [m for m in models if any((m, g) in by_key for g in groups)]

    def cell(model: str, group: str) -> str:
        r = by_key.get((model, group))
        return acc_cell(r, group, facet, link) if r else "<td>-</td><td></td>"

    if len(groups) > max(TURN_AT, len(models)):  # many groups: rows, not columns
        head = [label] + [h for m in models for h in (f"{names.get(m, m)} %", "95% CI")]
        body = [[td(g), *(cell(m, g) for m in models)] for g in groups]
    else:
        head = ["model"] + [h for g in groups for h in (f"{g} %", "95% CI")]
        body = [[model_cell(m, names, flags.get(m)), *(cell(m, g) for g in groups)] for m in models]
    dots = [
        Dot(r[facet], names.get(r["model"], r["model"]), r["accuracy"], r["ci_low"], r["ci_high"])
        for g in groups
        for m in models
        for r in rows
        if r[facet] == g and r["model"] == m
    ]
    chance = {r[facet]: r["chance"] for r in rows if r.get("chance") is not None}
    chart = dot_interval_chart(dots, f"accuracy by {label} (95% CI, dashed: chance)", chance=chance)
    note = f'<p class="note">{escape(interval_note_of_fields(rows))}.</p>'
    return f"<h3>Accuracy by {escape(label)}</h3>" + table(head, body, "acc") + note + chart


def _difficulty_lines(bench: BenchmarkSummary, names: Mapping[str, str]) -> str:
    rows = bench["difficulty"]
    if not rows:
        return ""
    levels = _ordered_groups(rows, "difficulty")
    by_key = {(r["model"], r["difficulty"]): r["accuracy"] for r in rows}
    models = leaderboard_order(bench, bench["models"])
    series = {names.get(m, m): [by_key.get((m, lv)) for lv in levels] for m in models}
    chance = {r["difficulty"]: r.get("chance") for r in rows}
    return "<h3>Accuracy vs difficulty</h3>" + line_chart(
        levels,
        series,
        "accuracy % by difficulty level (dashed: chance)",
        chance=[chance.get(lv) for lv in levels],
    )


def _heatmap(bench: BenchmarkSummary, names: Mapping[str, str]) -> str:
    rows = bench["fine_aspect"]
    if not rows:
        return ""
    aspects = sorted({r["fine_aspect"] for r in rows})

    def key(r: dict[str, Any]) -> tuple[str, str]:
        return r["fine_aspect"], names.get(r["model"], r["model"])

    values = {key(r): float(r["accuracy"]) for r in rows}
    counts = {key(r): int(r["items"]) for r in rows}
    near = {key(r) for r in rows if includes_chance(r)}
    models = [names.get(m, m) for m in leaderboard_order(bench, bench["models"])]
    note = (
        '<p class="note">Each cell: accuracy % and n, the answered items; hatched grey cells '
        "have a 95% interval that includes the aspect's chance rate (1/options for "
        "multiple choice, 1/2 for true/false), so they do not show the model above guessing."
        "</p>"
    )
    chart = heatmap(aspects, models, values, "accuracy % per fine aspect", counts, near)
    return "<h3>Fine aspect × model</h3>" + note + chart


def _generation(bench: BenchmarkSummary) -> str:
    parts = []
    sections = (
        ("self_check", "Self-check"),
        ("key_check", "Key check"),
        ("diversity", "Diversity"),
    )
    for key, title in sections:
        figures = bench.get(key)
        if not isinstance(figures, dict):
            continue
        rows = [
            [td(human_label(k)), td(fmt(v, 3), figure=f"{key}.{k}")]
            for k, v in sorted(figures.items())
            if not isinstance(v, dict | list)
        ]
        parts.append(f"<div><h4>{title}</h4>" + table(["figure", "value"], rows, "kv") + "</div>")
    if not parts:
        return ""
    return '<h3>Generation report</h3><div class="row">' + "".join(parts) + "</div>"


def _capability_note(bench: BenchmarkSummary) -> str:
    """How a free-text capability was composed from built-in aspects (shown, never hidden)."""
    note = bench.get("capability_note")
    if not note:
        return ""
    return f'<p class="note" data-figure="capability-note">{escape(str(note))}</p>'


def _meta(bench: BenchmarkSummary, names: Mapping[str, str]) -> str:
    models = ", ".join(names.get(m, m) for m in bench["models"]) or "none"
    return (
        f'<p class="meta">kind {escape(str(bench["kind"]))} · {bench["items"]} items · '
        f"models: {escape(models)}</p>"
    )


def render_benchmark(
    bench: BenchmarkSummary,
    gallery: str = "",
    link: CellLink | None = None,
    *,
    leave_out: Collection[str] = (),
    extra: str = "",
    collapsed: bool | None = None,
) -> str:
    """One benchmark's ``<section>``: tables and inline SVG charts, no script, no styles.

    ``bench`` is one :func:`~lvlmbench.report.benchmark_summary` dict and ``gallery`` the HTML
    of :func:`~lvlmbench.report.gallery_html` ('' for none). Every store text is escaped, so
    the fragment can be placed in any page (a web app too); :func:`report_css` styles it.
    Sections without data are left out. ``link`` turns accuracy cells into links.
    ``leave_out`` names judge protocols' report keys whose sections the caller shows itself
    (the web app shows people's votes, ``human``, in its own block). ``extra``: escaped HTML
    placed before the gallery (the Comparisons section). ``collapsed`` folds the section under
    its heading (a ``<details>`` that works without script, open when False); None keeps it
    flat.
    """
    name = escape(bench["name"])
    names = board_names(bench)
    heading = f"<h2>{name}</h2>"
    if collapsed is not None:
        heading = f"<details{'' if collapsed else ' open'}><summary>{heading}</summary>"
    parts = [
        f'<section id="{name}">{heading}',
        _meta(bench, names),
        _capability_note(bench),
        overall_section(bench, link, names),
        legend_table(names, names),
        vlmeval_section(bench),
        _accuracy_section(bench, "capability", "capability", link, names),
        _accuracy_section(bench, "difficulty", "difficulty", link, names),
        _difficulty_lines(bench, names),
        spread_section(bench),
        _heatmap(bench, names),
        _generation(bench),
        position_bias_section(bench),
        leakage_section(bench),
        design_experiment_sections(bench),
        *judged_sections(bench, leave_out),
        extra,
        f"<h3>Gallery</h3>{gallery}" if gallery else "",
        "" if collapsed is None else "</details>",
        "</section>",
    ]
    return "".join(parts)


def _template(name: str) -> str:
    return resources.files("lvlmbench.report").joinpath(f"templates/{name}").read_text("utf-8")


def report_css() -> str:
    """The stylesheet the report's sections are drawn with (for pages that embed them)."""
    return _template("report.css")


def render_page(data: ReportData, sections: list[str], generated: str) -> str:
    """The whole page from ``templates/report.html`` with the stylesheet inlined; it opens with
    the model × capability summary over every benchmark shown."""
    summary = summary_section(data["benchmarks"])
    toc = '<li><a href="#summary">summary</a></li>' if summary else ""
    toc += "".join(
        f'<li><a href="#{escape(b["name"])}">{escape(b["name"])}</a></li>'
        for b in data["benchmarks"]
    )
    return string.Template(_template("report.html")).substitute(
        title="lvlmbench report",
        css=report_css(),
        store=escape(data["store"]),
        generated=escape(generated),
        toc=toc,
        body=summary + "".join(sections),
    )
