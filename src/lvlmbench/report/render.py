"""Turn the collected report data into HTML sections and fill the page template."""

from __future__ import annotations

import string
from collections.abc import Callable, Collection
from html import escape
from importlib import resources
from typing import Any

from lvlmbench.choice.ranks import RANK_RESAMPLES, RANK_SEED
from lvlmbench.models import display_names
from lvlmbench.report._common import LEVELS
from lvlmbench.report._html import TURN_AT, fmt, human_label, table, td
from lvlmbench.report.judged import judged_sections
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
from lvlmbench.stats import format_interval, format_ranks, interval_note_of_fields

__all__ = ["CellLink", "render_benchmark", "render_page", "report_css"]


CellLink = Callable[[str, str, str], str | None]
"""(model, facet, group) → the URL of the items behind an accuracy cell, or None: the web app
links each cell to its items; the offline report file has no links."""


def _acc_cell(row: dict[str, Any], group: str, facet: str, link: CellLink | None) -> str:
    number = f"{row['accuracy']:.1f}"
    url = link(row["model"], facet, group) if link is not None else None
    if url is not None:
        number = f'<a href="{escape(url)}">{number}</a>'
    return (
        f'<td class="acc" data-model="{escape(row["model"])}" data-facet="{escape(facet)}" '
        f'data-group="{escape(group)}">{number}</td>'
        f'<td class="ci">{format_interval(row["ci_low"], row["ci_high"], digits=1)}</td>'
    )


def _ordered_groups(rows: list[dict[str, Any]], facet: str) -> list[str]:
    groups = sorted({r[facet] for r in rows})
    if facet == "difficulty":
        groups.sort(key=lambda g: (LEVELS.index(g) if g in LEVELS else len(LEVELS), g))
    return groups


def _accuracy_section(
    bench: BenchmarkSummary, facet: AccuracyFacet, label: str, link: CellLink | None
) -> str:
    rows = bench[facet]
    if not rows:
        return ""
    groups = _ordered_groups(rows, facet)
    models = bench["models"]
    by_key = {(r["model"], r[facet]): r for r in rows}
    shown = display_names([*models, *(r["model"] for r in rows)])

    def cell(model: str, group: str) -> str:
        r = by_key.get((model, group))
        return _acc_cell(r, group, facet, link) if r else "<td>-</td><td></td>"

    if len(groups) > max(TURN_AT, len(models)):  # many groups: rows, not columns
        head = [label] + [h for m in models for h in (f"{shown[m]} %", "95% CI")]
        body = [[td(g), *(cell(m, g) for m in models)] for g in groups]
    else:
        head = ["model"] + [h for g in groups for h in (f"{g} %", "95% CI")]
        body = [[td(shown[m]), *(cell(m, g) for g in groups)] for m in models]
    dots = [
        Dot(r[facet], r["model"], r["accuracy"], r["ci_low"], r["ci_high"])
        for g in groups
        for r in rows
        if r[facet] == g
    ]
    chance = {r[facet]: r["chance"] for r in rows if r.get("chance") is not None}
    chart = dot_interval_chart(dots, f"accuracy by {label} (95% CI, dashed: chance)", chance=chance)
    note = f'<p class="note">{escape(interval_note_of_fields(rows))}.</p>'
    return f"<h3>Accuracy by {escape(label)}</h3>" + table(head, body, "acc") + note + chart


def _overall(bench: BenchmarkSummary, link: CellLink | None) -> str:
    shown = display_names(r["model"] for r in bench["overall"])
    # A model whose items miss a capability or level has an overall over the rest only.
    partial = any(r.get("covers") for r in bench["overall"])
    ranked = any("rank_low" in r for r in bench["overall"])
    clustered = any(r.get("cluster", "item") != "item" for r in bench["overall"])
    rows = [
        [
            td(shown[r["model"]]),
            _acc_cell(r, "all", "overall", link),
            *(
                [td("; ".join(r["covers"]) or "all", model=r["model"], covers="overall")]
                if partial
                else []
            ),
            *([_rank_cell(r)] if ranked else []),
            td(str(r["items"])),
            *([td(str(r["clusters"]))] if clustered else []),
            td(f"{r['epochs']:g}"),
            td(str(r["correct"])),
            td(str(r["answered"])),
            td(str(r["unparseable"])),
            td(str(r["failed"])),
        ]
        for r in sorted(bench["overall"], key=lambda r: -r["accuracy"])
    ]
    head = ["model", "accuracy %", "95% CI", *(["covers"] if partial else [])]
    head += [*(["rank (95%)"] if ranked else []), "items", *(["clusters"] if clustered else [])]
    head += ["epochs", "correct", "answered", "unparseable", "failed"]
    note = (
        '<p class="note">Accuracy over items: each item\'s answers (several with --epochs) '
        f"average to its score. {escape(interval_note_of_fields(bench['overall']))}."
        f"{_rank_note(bench)}</p>"
    )
    return "<h3>Leaderboard</h3>" + note + table(head, rows, "acc") if rows else ""


def _rank_cell(row: dict[str, Any]) -> str:
    if "rank_low" not in row:
        return td("-")
    tied = " (tied)" if row["tied_with"] else ""
    return td(format_ranks(row["rank_low"], row["rank_high"]) + tied, rank=str(row["rank"]))


def _rank_note(bench: BenchmarkSummary) -> str:
    """What the rank intervals are over (empty where there are none)."""
    ranked = next((r for r in bench["overall"] if "rank_low" in r), None)
    if ranked is None:
        return ""
    return escape(
        f" Rank (95%): the ranks a model holds in 95% of {RANK_RESAMPLES} cluster-bootstrap "
        f"resamples (by {ranked['rank_cluster']}, {ranked['rank_clusters']} clusters) of the "
        f"{ranked['rank_items']} items every model answered, seed {RANK_SEED}; models whose "
        "intervals overlap are tied, not ordered."
    )


def _difficulty_lines(bench: BenchmarkSummary) -> str:
    rows = bench["difficulty"]
    if not rows:
        return ""
    levels = _ordered_groups(rows, "difficulty")
    by_key = {(r["model"], r["difficulty"]): r["accuracy"] for r in rows}
    series = {m: [by_key.get((m, lv)) for lv in levels] for m in bench["models"]}
    chance = {r["difficulty"]: r.get("chance") for r in rows}
    return "<h3>Accuracy vs difficulty</h3>" + line_chart(
        levels,
        series,
        "accuracy % by difficulty level (dashed: chance)",
        chance=[chance.get(lv) for lv in levels],
    )


def _heatmap(bench: BenchmarkSummary) -> str:
    rows = bench["fine_aspect"]
    if not rows:
        return ""
    aspects = sorted({r["fine_aspect"] for r in rows})
    values = {(r["fine_aspect"], r["model"]): float(r["accuracy"]) for r in rows}
    counts = {(r["fine_aspect"], r["model"]): int(r["items"]) for r in rows}
    near = {(r["fine_aspect"], r["model"]) for r in rows if includes_chance(r)}
    note = (
        '<p class="note">Each cell: accuracy % and n, the answered items; hatched grey cells '
        "have a 95% interval that includes the aspect's chance rate (1/options for "
        "multiple choice, 1/2 for true/false), so they do not show the model above guessing."
        "</p>"
    )
    chart = heatmap(aspects, bench["models"], values, "accuracy % per fine aspect", counts, near)
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
    heading = f"<h2>{name}</h2>"
    if collapsed is not None:
        heading = f"<details{'' if collapsed else ' open'}><summary>{heading}</summary>"
    parts = [
        f'<section id="{name}">{heading}',
        f'<p class="meta">kind {escape(str(bench["kind"]))} · {bench["items"]} items · models: '
        f"{escape(', '.join(bench['models']) or 'none')}</p>",
        _capability_note(bench),
        _overall(bench, link),
        vlmeval_section(bench),
        _accuracy_section(bench, "capability", "capability", link),
        _accuracy_section(bench, "difficulty", "difficulty", link),
        _difficulty_lines(bench),
        spread_section(bench),
        _heatmap(bench),
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
