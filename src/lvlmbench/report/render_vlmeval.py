"""The report's VLMEvalKit sections: CircularEval beside per-row accuracy, and MME's acc / acc+
/ score per category (data from :mod:`lvlmbench.choice.vlmeval_scores`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from lvlmbench.choice.vlmeval_scores import CircularRowJSON, MMERowJSON
from lvlmbench.report._html import fmt, table, td
from lvlmbench.report.leaderboard import board_names
from lvlmbench.report.summary import BenchmarkSummary

__all__ = ["vlmeval_section"]

_TOTALS: tuple[Literal["perception", "reasoning"], ...] = ("perception", "reasoning")


def _circular(rows: list[CircularRowJSON], names: Mapping[str, str]) -> str:
    head = ["model", "per-row %", "rows right", "circular %", "questions right", "incomplete"]
    unasked = any(r["unasked"] for r in rows)
    body = [
        [
            td(names.get(r["model"], r["model"])),
            td(fmt(100 * r["row_accuracy"]), model=r["model"], facet="per-row"),
            td(f"{r['rows_correct']}/{r['rows']}"),
            td(fmt(100 * r["circular_accuracy"]), model=r["model"], facet="circular"),
            td(f"{r['questions_correct']}/{r['questions'] * r['epochs'] - r['unasked']}"),
            td(str(r["incomplete"])),
            *([td(str(r["unasked"]), model=r["model"], facet="unasked")] if unasked else []),
        ]
        for r in rows
    ]
    if unasked:
        head.append("not asked")
    note = (
        '<p class="meta">CircularEval: a question counts right only when every rotated copy is '
        "right; a copy that failed makes it wrong (incomplete); a question with a copy never "
        "asked (a partial run) is left out and counted (not asked).</p>"
    )
    return "<h3>CircularEval</h3>" + note + table(head, body, "circular")


def _total(row: MMERowJSON, name: Literal["perception", "reasoning"]) -> str:
    """A sum's cell: its value, or "5 of 10 categories" where it has none."""
    value = row[name]
    if value is not None:
        return td(fmt(value), model=row["model"], total=name)
    return td(row["totals"][name]["text"], model=row["model"], total=name)


def _mme(rows: list[MMERowJSON], names: Mapping[str, str]) -> str:
    """Categories as rows and models as columns: 14 categories and two sums as columns squeezed
    every cell to a few characters a line."""
    categories = sorted({c["category"] for r in rows for c in r["categories"]})
    found = [{c["category"]: c for c in r["categories"]} for r in rows]
    head = ["", *(f"{names.get(r['model'], r['model'])}: score (acc / acc+)" for r in rows)]
    body = [[td(name), *(_total(r, name) for r in rows)] for name in _TOTALS]
    for name in categories:
        cells = [
            td(
                f"{c['score']:.1f} ({c['acc']:.0f} / {c['acc_plus']:.0f})" if c else "-",
                model=r["model"],
                category=name,
            )
            for r, c in ((r, by_name.get(name)) for r, by_name in zip(rows, found, strict=True))
        ]
        body.append([td(name), *cells])
    if any(r["unasked_images"] for r in rows):
        unasked = [r["unasked_images"] for r in rows]
        body.append([td("pictures not asked"), *(td(str(n)) for n in unasked)])
    note = (
        '<p class="meta">MME: per category, score = acc + acc+ (acc+: both questions of a '
        "picture right); perception and reasoning sum their categories, and only over all of "
        "them (10 and 4): over part of them there is no total, and the cell says how many are "
        "there. A picture with a question never asked (a partial run) is left out of acc and "
        "acc+ and counted (pictures not asked).</p>"
    )
    return "<h3>MME</h3>" + note + table(head, body, "mme")


def vlmeval_section(bench: BenchmarkSummary) -> str:
    """CircularEval and MME tables where the benchmark has them ('' otherwise), models by
    their display names."""
    circular = bench.get("circular") or []
    mme = bench.get("mme") or []
    if not circular and not mme:
        return ""
    names = board_names(bench)
    return (_circular(circular, names) if circular else "") + (_mme(mme, names) if mme else "")
