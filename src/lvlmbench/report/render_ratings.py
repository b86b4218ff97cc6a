"""Sections of the judged, open-ended results: pairwise ratings with judge diagnostics, text
metric scores, TouchStone score-judge results per ability and hallucination ratings."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from lvlmbench.report._html import ci, fmt, human_label, table, td
from lvlmbench.report.render_style import StyledRatings, style_block
from lvlmbench.report.summary import BenchmarkSummary, names_of
from lvlmbench.report.svg import Dot, dot_interval_chart

__all__ = [
    "hallucination_section",
    "metrics_section",
    "pairwise_section",
    "ratings_table",
    "touchstone_section",
]


def _shown(names: Mapping[str, str], model: str) -> str:
    """A player's display name (its identity where ``names`` has none)."""
    return names.get(model, model)


def _ends(row: dict[str, Any], figure: str) -> tuple[float, float]:
    """A row's interval for a chart; the figure itself where there is none (one item)."""
    if row["ci_low"] is None or row["ci_high"] is None:
        return row[figure], row[figure]
    return row["ci_low"], row["ci_high"]


def _padded(lows: list[float], highs: list[float]) -> tuple[float, float]:
    """An axis around the intervals with 10% room on each side."""
    lo, hi = min(lows), max(highs)
    pad = max(0.1, (hi - lo) * 0.1)
    return lo - pad, hi + pad


_RATING_NOTE = (
    '<p class="note">Headline: Bradley-Terry, fitted on all matches at once, on the Elo scale '
    "(400 points = 10:1 odds, mean rating 1000), with a 95% bootstrap interval; the same "
    "numbers <code>lvlmbench rate</code> prints. Online Elo is shown for comparison with "
    "VisIT-Bench and Chatbot Arena only, two ways: the matches replayed once in the order the "
    "battles were fought (where no order was recorded, in benchmark item order; the heading "
    "says which), and the mean over seeded shuffles of that order.</p>"
)

_COMBINE = {
    "majority": "the side that wins more of the two orders wins, otherwise a tie "
    "(VisIT-Bench's released rule)",
    "both": "a side wins only if it wins both orders, otherwise a tie",
}


def _combine_note(rep: dict[str, Any]) -> str:
    """Which two-order rule the ratings use, and the items left out of the win rate."""
    rule = rep.get("combine", "majority")
    note = f"Both presentation orders judged; combined by rule '{rule}': {_COMBINE.get(rule, '')}."
    missing = rep.get("items_without_reference") or 0
    if missing and (rep.get("win_rate_vs_reference") or missing == rep.get("items")):
        note += (
            f" Win rate vs {rep.get('reference', 'reference')}: {missing} of {rep.get('items')}"
            " items have no verified reference and are excluded."
        )
    return f'<p class="note" data-combine="{escape(rule)}">{escape(note)}</p>'


def _bt_order(rep: dict[str, Any]) -> list[str]:
    """Models best first by the headline Bradley-Terry rating (online Elo where BT is absent)."""
    bt = rep.get("bradley_terry") or {}
    elo = (rep.get("online_elo") or {}).get("shuffled_mean") or {}

    def key(m: str) -> tuple[float, float, str]:
        return (-(bt[m]["rating"] if m in bt else float("-inf")), -elo.get(m, 0.0), m)

    return sorted(set(elo) | set(bt), key=key)


def ratings_table(
    rep: dict[str, Any], *, names: Mapping[str, str] | None = None, **tags: str
) -> str:
    """Bradley-Terry and win rate vs reference with their intervals, and online Elo, per
    player best first, from a ratings dict (``PairwiseReport.as_dict()``); ``names``: the
    players' display names (identities in full where None); ``tags`` are extra ``data-*``
    attributes of the number cells (which ratings they are, where a page has two)."""
    shown = names or {}
    bt = rep.get("bradley_terry") or {}
    wins = rep.get("win_rate_vs_reference") or {}
    elo = rep.get("online_elo") or {}
    in_order, shuffled = elo.get("in_order") or {}, elo.get("shuffled_mean") or {}
    rows = []
    for m in _bt_order(rep):
        b, w = bt.get(m), wins.get(m)
        rows.append(
            [
                td(shown.get(m, m)),
                td(fmt(b["rating"], 0) if b else "-", model=m, rating="bt", **tags),
                td(ci(b["low"], b["high"], 0) if b else "-"),
                td(f"{100 * w['rate']:.1f}" if w else "-", model=m, rating="winrate", **tags),
                td(ci(100 * w["low"], 100 * w["high"]) if w else "-"),
                td(fmt(in_order.get(m), 0), model=m, rating="elo-in-order", **tags),
                td(fmt(shuffled.get(m), 0), model=m, rating="elo-shuffled", **tags),
            ]
        )
    head = ["model", "Bradley-Terry", "BT 95% CI", "win % vs reference", "win 95% CI"]
    labels = [elo.get("in_order_label", "online Elo"), elo.get("shuffled_label", "online Elo")]
    return table([*head, *labels], rows, "pair")


def _pairwise_one(rep: dict[str, Any], names: Mapping[str, str]) -> list[str]:
    title = f"Pairwise ratings — judge {rep['judge']} ({rep['pairs']} pairs)"
    out = [f"<h3>{escape(title)}</h3>", _combine_note(rep), _RATING_NOTE]
    bt = rep.get("bradley_terry") or {}
    wins = rep.get("win_rate_vs_reference") or {}
    out.append(ratings_table(rep, names=names))
    if bt:
        dots = [
            Dot(_shown(names, m), "Bradley-Terry", v["rating"], v["low"], v["high"])
            for m, v in sorted(bt.items(), key=lambda kv: -kv[1]["rating"])
        ]
        lo, hi = _padded([v["low"] for v in bt.values()], [v["high"] for v in bt.values()])
        title = "Bradley-Terry with 95% bootstrap interval"
        out.append(dot_interval_chart(dots, title, lo, hi, ""))
    styled: StyledRatings = {
        "style_control": rep.get("style_control"),
        "bradley_terry": rep.get("bradley_terry"),
    }
    out.append(style_block(styled))
    if wins:
        dots = [
            Dot(
                _shown(names, m),
                "win rate vs reference",
                100 * w["rate"],
                100 * w["low"],
                100 * w["high"],
            )
            for m, w in sorted(wins.items(), key=lambda kv: -kv[1]["rate"])
        ]
        out.append(dot_interval_chart(dots, "win rate vs reference % (95% Wilson interval)"))
    diag = rep.get("diagnostics")
    if diag:
        rows = [[td(human_label(k)), td(fmt(v, 3), diagnostic=k)] for k, v in diag.items()]
        out.append("<h4>Judge diagnostics</h4>" + table(["diagnostic", "value"], rows, "kv"))
    for note in [rep.get("bt_note"), *rep.get("warnings", [])]:
        if note:
            out.append(f'<p class="note">{escape(note)}</p>')
    return out


def pairwise_section(bench: BenchmarkSummary) -> str:
    """Bradley-Terry (the headline) and win rate vs reference with intervals, and online Elo
    labelled as such, per pairwise judge."""
    names = names_of(bench)
    return "".join(part for rep in bench["pairwise"] for part in _pairwise_one(rep, names))


_SCALE_DIGITS = {"0-1": 3, "0-10": 2, "0-100": 1, "tokens": 1}
"""Decimals per metric scale: enough to tell models apart, not four everywhere."""

_SCALE_AXIS = {"0-1": (0.0, 1.0), "0-10": (0.0, 10.0), "0-100": (0.0, 100.0)}


def _pair(values: Any) -> tuple[float | None, float | None]:
    """An optional [low, high] list as a pair (None, None when absent)."""
    return (values[0], values[1]) if values else (None, None)


def _metric_name(row: dict[str, Any]) -> str:
    """The metric's name cell, tagged when it is a probe (length bias, random floor)."""
    tag = ' <span class="tag">probe</span>' if row.get("probe") else ""
    attrs = f' data-metric-name="{escape(row["metric"])}"'
    return f"<td{attrs}>{escape(row['metric'])}{tag}</td>"


def _metric_chart(metric: str, rows: list[dict[str, Any]], names: Mapping[str, str]) -> str:
    """One metric's means with their intervals, on the metric's own scale."""
    dots = [
        Dot(_shown(names, r["model"]), metric, r["mean"], r["ci_low"], r["ci_high"])
        for r in sorted(rows, key=lambda r: -r["mean"])
        if r["mean"] is not None and r["ci_low"] is not None and r["ci_high"] is not None
    ]
    if not dots:
        return ""
    scale = rows[0].get("scale")
    probe = " — probe, not a quality score" if rows[0].get("probe") else ""
    title = f"{metric} mean (95% bootstrap interval){probe}"
    lo, hi = _SCALE_AXIS.get(scale or "", _padded([d.low for d in dots], [d.high for d in dots]))
    return dot_interval_chart(dots, title, max(0.0, lo) if scale else lo, hi, "")


def metrics_section(bench: BenchmarkSummary) -> str:
    """Text-metric means with bootstrap intervals (a table and one chart per metric, probes
    tagged), and the Bradley-Terry ratings their per-item wins give."""
    rows = bench["metrics"]
    if not rows:
        return ""
    names = names_of(bench)
    body = []
    for r in rows:
        digits = _SCALE_DIGITS.get(r.get("scale") or "", 3)
        body.append(
            [
                _metric_name(r),
                td(_shown(names, r["model"])),
                td(fmt(r["mean"], digits), metric=r["metric"], model=r["model"]),
                td(ci(r["ci_low"], r["ci_high"], digits)),
                td(str(r["n"])),
                td(fmt(r.get("bradley_terry"), 0)),
                td(ci(*_pair(r.get("bt_interval")), 0)),
                td("-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}"),
            ]
        )
    head = ["metric", "model", "mean", "95% CI", "n", "Bradley-Terry (per-item wins)", "BT 95% CI"]
    head.append("win %")
    note = (
        '<p class="note">Probes are not quality scores: <code>length</code> counts answer '
        "tokens (a length-bias probe), <code>random</code> is a seeded random draw (the "
        "floor any metric should beat).</p>"
    )
    by_metric: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_metric.setdefault(r["metric"], []).append(r)
    charts = "".join(_metric_chart(m, mine, names) for m, mine in by_metric.items())
    probes = note if any(r.get("probe") for r in rows) else ""
    return "<h3>Metric scores (open-ended)</h3>" + probes + table(head, body, "metric") + charts


def _covers(covers: dict[str, Any] | None) -> str:
    """ "3 of 5 abilities" (the score is a mean over items: over part of the abilities where
    not all are there)."""
    return "-" if covers is None else str(covers["text"])


def _touchstone_one(entry: dict[str, Any], names: Mapping[str, str]) -> str:
    models = entry["models"]
    abilities = sorted({a for m in models for a in m["abilities"]})
    body = []
    for m in models:
        name = m["model"]
        cells = [
            td(_shown(names, name)),
            td(fmt(m["score"]), model=name, judge=entry["label"], ability="overall"),
            td(ci(m["ci_low"], m["ci_high"])),
            td(fmt(m["reference"])),
            td(fmt(m["relative"])),
            td(str(m["items"])),
            td(_covers(m.get("covers")), model=name, covers="abilities"),
            td(str(m["unscored"])),
        ]
        for a in abilities:
            g = m["abilities"].get(a)
            cells.append(td(fmt(g["score"]) if g else "-", model=name, ability=a))
            cells.append(td(ci(g["ci_low"], g["ci_high"]) if g else "-"))
        body.append(cells)
    head = ["model", "score ×100", "95% CI", "reference ×100", "% of reference", "items"]
    head += ["covers", "unscored"] + [h for a in abilities for h in (a, "95% CI")]
    dots = [
        Dot(row, _shown(names, m["model"]), g["score"], *_ends(g, "score"))
        for row in ["overall", *abilities]
        for m in models
        if (g := m if row == "overall" else m["abilities"].get(row)) and g["score"] is not None
    ]
    chart = ""
    if dots:
        lo, hi = _padded([d.low for d in dots], [d.high for d in dots])
        title = "TouchStone score ×100 per ability (95% CI over items; none from one item)"
        chart = dot_interval_chart(dots, title, max(0.0, lo), min(1000.0, hi), "")
    title = f"TouchStone scores — judge {entry['label']}"
    against = entry["reference"]
    if against == "reference":  # the item's own reference field
        against = "the dataset's own reference (TouchStone: gpt4_ha_answer)"
    note = (
        f'<p class="note">1–10 scores ×100 against {escape(against)}, both '
        "presentation orders averaged; an item not scored in both orders is unscored; an "
        "item in several comma-separated abilities counts in each. The score is the mean over "
        "the scored items; <i>covers</i> says how many of the benchmark's abilities they "
        "span.</p>"
    )
    return f"<h3>{escape(title)}</h3>" + note + table(head, body, "score") + chart


def touchstone_section(bench: BenchmarkSummary) -> str:
    """TouchStone score-judge results, overall and per ability, per (judge, reference)."""
    names = names_of(bench)
    return "".join(_touchstone_one(entry, names) for entry in bench.get("touchstone") or [])


def _hallucination_one(entry: dict[str, Any], names: Mapping[str, str]) -> str:
    models = entry["models"]
    body = [
        [
            td(_shown(names, m["model"])),
            td(fmt(m["mean"], 2), model=m["model"], hallucination=entry["judge"]),
            td(ci(m["ci_low"], m["ci_high"], 2)),
            td(str(m["rated"])),
            td(str(m["unscored"])),
        ]
        for m in models
    ]
    head = ["model", "mean (0 none – 10 all)", "95% CI", "rated", "unscored"]
    dots = [
        Dot(_shown(names, m["model"]), "hallucination", m["mean"], *_ends(m, "mean"))
        for m in models
        if m["mean"] is not None
    ]
    title = "hallucination rating, lower is better (95% CI over items)"
    chart = dot_interval_chart(dots, title, 0.0, 10.0, "") if dots else ""
    heading = f"Hallucination — judge {entry['judge']}"
    return f"<h3>{escape(heading)}</h3>" + table(head, body, "halluc") + chart


def hallucination_section(bench: BenchmarkSummary) -> str:
    """Mean hallucination rating per model and judge, with bootstrap intervals."""
    names = names_of(bench)
    return "".join(_hallucination_one(entry, names) for entry in bench.get("hallucination") or [])
