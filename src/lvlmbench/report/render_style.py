"""The style-control block of a pairwise ratings section: style coefficients with 95%
intervals, and the style-controlled Bradley-Terry ratings beside the raw ones (a table and a
chart with both series), from the ``style_control`` entry of a ratings dict.

The ratings dict is JSON (``summary.json``, the web API: what
:meth:`~lvlmbench.judging.pairwise_report.PairwiseReport.as_dict` gives), so the parts read
here are typed as TypedDicts of that shape (:class:`StyledRatings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import TypedDict

from lvlmbench.report._html import ci, fmt, table, td
from lvlmbench.report.svg import Dot, dot_interval_chart

__all__ = ["RatedModel", "StyleCoefficient", "StyleControlData", "StyledRatings", "style_block"]


class RatedModel(TypedDict):
    """One model's Bradley-Terry rating (Elo scale) with its 95% bootstrap interval."""

    rating: float
    low: float
    high: float


class StyleCoefficient(TypedDict):
    """One style feature's coefficient (log-odds per RMS difference), its interval, and that
    RMS difference (``scale``)."""

    value: float
    low: float
    high: float
    scale: float


class StyleControlData(TypedDict):
    """The ``style_control`` entry (:meth:`~lvlmbench.judging.style_control.StyleControl.as_dict`):
    ``ratings`` and ``coefficients`` are None where the fit was not possible (``note`` says
    why)."""

    matches_used: int
    matches_without_text: int
    note: str | None
    ratings: dict[str, RatedModel] | None
    coefficients: dict[str, StyleCoefficient] | None
    constant_features: list[str]
    rounds: int | None


class StyledRatings(TypedDict, total=False):
    """The parts of a ratings dict the block reads: the style fit and the raw ratings."""

    style_control: StyleControlData | None
    bradley_terry: dict[str, RatedModel] | None


_FEATURES = {
    "tokens": "length (tokens)",
    "headers": "markdown headers",
    "list_items": "markdown list items",
    "bold": "bold spans",
}

_NOTE = (
    "Style control (as Chatbot Arena's): Bradley-Terry refitted with the normalised "
    "differences (a−b)/(a+b) of answer length in tokens and of markdown headers, list items "
    "and bold spans as covariates. A coefficient is the change in log-odds of winning for a "
    "typical (root-mean-square) difference; positive means the judge favours more of it. The "
    "controlled ratings are on the same Elo scale as the raw ones and do not reward style."
)


def _coefficients(coefficients: Mapping[str, StyleCoefficient], tags: Mapping[str, str]) -> str:
    rows = [
        [
            td(_FEATURES.get(f, f)),
            td(f"{c['value']:+.3f}", style_feature=f, **tags),
            td(ci(c["low"], c["high"], 3)),
            td(f"{c['value'] / c['scale']:+.2f}"),
        ]
        for f, c in coefficients.items()
    ]
    head = ["style feature", "coefficient (log-odds)", "95% CI", "per unit of (a−b)/(a+b)"]
    return table(head, rows, "style")


def _ratings(
    controlled: Mapping[str, RatedModel], raw: Mapping[str, RatedModel], tags: Mapping[str, str]
) -> str:
    order = sorted(controlled, key=lambda m: (-controlled[m]["rating"], m))
    rows = []
    for m in order:
        s, r = controlled[m], raw.get(m)
        rows.append(
            [
                td(m),
                td(fmt(s["rating"], 0), model=m, rating="bt-style", **tags),
                td(ci(s["low"], s["high"], 0)),
                td(fmt(r["rating"], 0) if r else "-"),
                td(ci(r["low"], r["high"], 0) if r else "-"),
                td(f"{s['rating'] - r['rating']:+.0f}" if r else "-"),
            ]
        )
    head = ["model", "style-controlled BT", "95% CI", "raw BT", "raw 95% CI", "change"]
    dots = [
        Dot(m, series, v["rating"], v["low"], v["high"])
        for m in order
        for series, v in (("style-controlled", controlled[m]), ("raw", raw.get(m)))
        if v is not None
    ]
    lows, highs = [d.low for d in dots], [d.high for d in dots]
    pad = max(10.0, (max(highs) - min(lows)) * 0.1)
    title = "Bradley-Terry, style-controlled and raw (95% bootstrap interval)"
    chart = dot_interval_chart(dots, title, min(lows) - pad, max(highs) + pad, "")
    return table(head, rows, "style-ratings") + chart


def style_block(rep: StyledRatings, **tags: str) -> str:
    """The block for one ratings dict ('' when style control was not computed); ``tags`` are
    extra ``data-*`` attributes of the number cells (whose ratings they are)."""
    style = rep.get("style_control")
    if not style:
        return ""
    out = ["<h4>Style-controlled ratings</h4>", f'<p class="note">{escape(_NOTE)}</p>']
    controlled, coefficients = style["ratings"], style["coefficients"]
    if controlled is None or coefficients is None:
        out.append(f'<p class="note">{escape(style["note"] or "not fitted")}</p>')
        return "".join(out)
    out.append(_coefficients(coefficients, tags))
    out.append(_ratings(controlled, rep.get("bradley_terry") or {}, tags))
    left = style["matches_without_text"]
    counts = f"{style['matches_used']} matches fitted; {left} left out (an answer text missing)."
    constant = ", ".join(style["constant_features"])
    if constant:
        counts += f" Constant in these answers, not fitted: {constant}."
    out.append(f'<p class="note" data-style-left-out="{left}">{escape(counts)}</p>')
    if style["note"]:
        out.append(f'<p class="note">{escape(style["note"])}</p>')
    return "".join(out)
