"""Turn the collected report data into HTML sections and fill the page template."""

from __future__ import annotations

import string
from collections.abc import Sequence
from html import escape
from importlib import resources
from typing import Any

from lvlmbench.report.collect import LEVELS
from lvlmbench.report.svg import Dot, dot_interval_chart, heatmap, line_chart

__all__ = ["render_benchmark", "render_page"]


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], css: str = "") -> str:
    """Cells are given already escaped (they may carry markup such as data attributes)."""
    ths = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(cells) + "</tr>" for cells in rows)
    return f'<table class="{css}"><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table>'


def _td(text: str, **data: str) -> str:
    attrs = "".join(f' data-{k}="{escape(v)}"' for k, v in data.items())
    return f"<td{attrs}>{escape(text)}</td>"


def _acc_cell(row: dict[str, Any], group: str, facet: str) -> str:
    return (
        f'<td class="acc" data-model="{escape(row["model"])}" data-facet="{escape(facet)}" '
        f'data-group="{escape(group)}">{row["accuracy"]:.1f}</td>'
        f'<td class="ci">{row["ci_low"]:.1f}–{row["ci_high"]:.1f}</td>'
    )


def _ordered_groups(rows: list[dict[str, Any]], facet: str) -> list[str]:
    groups = sorted({r[facet] for r in rows})
    if facet == "difficulty":
        groups.sort(key=lambda g: (LEVELS.index(g) if g in LEVELS else len(LEVELS), g))
    return groups


def _accuracy_section(bench: dict[str, Any], facet: str, label: str) -> str:
    rows = bench[facet]
    if not rows:
        return ""
    groups = _ordered_groups(rows, facet)
    models = bench["models"]
    by_key = {(r["model"], r[facet]): r for r in rows}
    body = []
    for model in models:
        cells = [_td(model)]
        for group in groups:
            r = by_key.get((model, group))
            cells.append(_acc_cell(r, group, facet) if r else "<td>-</td><td></td>")
        body.append(cells)
    head = ["model"] + [h for g in groups for h in (f"{g} %", "95% CI")]
    dots = [
        Dot(r[facet], r["model"], r["accuracy"], r["ci_low"], r["ci_high"])
        for g in groups
        for r in rows
        if r[facet] == g
    ]
    chart = dot_interval_chart(dots, f"accuracy by {label} (95% Wilson interval)")
    return f"<h3>Accuracy by {escape(label)}</h3>" + _table(head, body, "acc") + chart


def _overall(bench: dict[str, Any]) -> str:
    rows = [
        [
            _td(r["model"]),
            _acc_cell(r, "all", "overall"),
            _td(str(r["correct"])),
            _td(str(r["answered"])),
            _td(str(r["unparseable"])),
            _td(str(r["failed"])),
        ]
        for r in sorted(bench["overall"], key=lambda r: -r["accuracy"])
    ]
    head = ["model", "accuracy %", "95% CI", "correct", "answered", "unparseable", "failed"]
    return "<h3>Leaderboard</h3>" + _table(head, rows, "acc") if rows else ""


def _difficulty_lines(bench: dict[str, Any]) -> str:
    rows = bench["difficulty"]
    if not rows:
        return ""
    levels = _ordered_groups(rows, "difficulty")
    by_key = {(r["model"], r["difficulty"]): r["accuracy"] for r in rows}
    series = {m: [by_key.get((m, lv)) for lv in levels] for m in bench["models"]}
    return "<h3>Accuracy vs difficulty</h3>" + line_chart(
        levels, series, "accuracy % by difficulty level"
    )


def _heatmap(bench: dict[str, Any]) -> str:
    rows = bench["fine_aspect"]
    if not rows:
        return ""
    aspects = sorted({r["fine_aspect"] for r in rows})
    values = {(r["fine_aspect"], r["model"]): float(r["accuracy"]) for r in rows}
    return "<h3>Fine aspect × model</h3>" + heatmap(
        aspects, bench["models"], values, "accuracy % per fine aspect"
    )


def _generation(bench: dict[str, Any]) -> str:
    parts = []
    for key, title in (("self_check", "Self-check"), ("diversity", "Diversity")):
        figures = bench.get(key)
        if not isinstance(figures, dict):
            continue
        rows = [
            [_td(k), _td(_fmt(v, 3), figure=f"{key}.{k}")]
            for k, v in sorted(figures.items())
            if not isinstance(v, dict | list)
        ]
        parts.append(f"<div><h4>{title}</h4>" + _table(["figure", "value"], rows, "kv") + "</div>")
    if not parts:
        return ""
    return '<h3>Generation report</h3><div class="row">' + "".join(parts) + "</div>"


def _pairwise(bench: dict[str, Any]) -> str:
    out = []
    for rep in bench["pairwise"]:
        title = f"Pairwise ratings — judge {rep['judge']} ({rep['pairs']} pairs)"
        out.append(f"<h3>{escape(title)}</h3>")
        bt = rep.get("bradley_terry") or {}
        wins = rep.get("win_rate_vs_reference") or {}
        models = sorted(set(rep["elo"]) | set(bt), key=lambda m: -rep["elo"].get(m, 0.0))
        rows = []
        for m in models:
            b = bt.get(m)
            w = wins.get(m)
            rows.append(
                [
                    _td(m),
                    _td(_fmt(rep["elo"].get(m), 0), model=m, rating="elo"),
                    _td(_fmt(b["rating"], 1) if b else "-", model=m, rating="bt"),
                    _td(f"{b['low']:.1f}–{b['high']:.1f}" if b else "-"),
                    _td(f"{100 * w['rate']:.1f}" if w else "-", model=m, rating="winrate"),
                ]
            )
        head = ["model", "Elo", "Bradley-Terry", "BT 95% CI", "win % vs reference"]
        out.append(_table(head, rows, "pair"))
        if bt:
            dots = [
                Dot(m, "Bradley-Terry", v["rating"], v["low"], v["high"])
                for m, v in sorted(bt.items(), key=lambda kv: -kv[1]["rating"])
            ]
            lo = min(v["low"] for v in bt.values())
            hi = max(v["high"] for v in bt.values())
            pad = max(0.1, (hi - lo) * 0.1)
            out.append(
                dot_interval_chart(
                    dots, "Bradley-Terry with 95% bootstrap interval", lo - pad, hi + pad, ""
                )
            )
        diag = rep.get("diagnostics")
        if diag:
            rows = [[_td(k), _td(_fmt(v, 3))] for k, v in diag.items()]
            out.append("<h4>Judge diagnostics</h4>" + _table(["diagnostic", "value"], rows, "kv"))
        for note in [rep.get("bt_note"), *rep.get("warnings", [])]:
            if note:
                out.append(f'<p class="note">{escape(note)}</p>')
    return "".join(out)


def _metrics(bench: dict[str, Any]) -> str:
    rows = bench["metrics"]
    if not rows:
        return ""
    body = [
        [
            _td(r["metric"]),
            _td(r["model"]),
            _td(_fmt(r["mean"], 4), metric=r["metric"], model=r["model"]),
            _td(f"{_fmt(r['ci_low'], 4)}–{_fmt(r['ci_high'], 4)}"),
            _td(str(r["n"])),
            _td(_fmt(r["elo"], 0)),
            _td("-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}"),
        ]
        for r in rows
    ]
    head = ["metric", "model", "mean", "95% CI", "n", "Elo", "win %"]
    return "<h3>Metric scores (open-ended)</h3>" + _table(head, body, "metric")


def render_benchmark(bench: dict[str, Any], gallery: str) -> str:
    """One benchmark's section."""
    parts = [
        f'<section id="{escape(bench["name"])}"><h2>{escape(bench["name"])}</h2>',
        f'<p class="meta">kind {escape(str(bench["kind"]))} · {bench["items"]} items · models: '
        f"{escape(', '.join(bench['models']) or 'none')}</p>",
        _overall(bench),
        _accuracy_section(bench, "capability", "capability"),
        _accuracy_section(bench, "difficulty", "difficulty"),
        _difficulty_lines(bench),
        _heatmap(bench),
        _generation(bench),
        _pairwise(bench),
        _metrics(bench),
        f"<h3>Gallery</h3>{gallery}" if gallery else "",
        "</section>",
    ]
    return "".join(parts)


def render_page(data: dict[str, Any], sections: list[str], generated: str) -> str:
    """The whole page from ``templates/report.html``."""
    template = (
        resources.files("lvlmbench.report")
        .joinpath("templates/report.html")
        .read_text(encoding="utf-8")
    )
    toc = "".join(
        f'<li><a href="#{escape(b["name"])}">{escape(b["name"])}</a></li>'
        for b in data["benchmarks"]
    )
    return string.Template(template).substitute(
        title="lvlmbench report",
        store=escape(data["store"]),
        generated=escape(generated),
        toc=toc,
        body="".join(sections),
    )
