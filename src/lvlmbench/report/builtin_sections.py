"""The built-in judge protocols' report sections, registered through
:func:`~lvlmbench.report.sections.register_section` as any protocol's may be: VisIT-Bench
pairwise ratings, text metrics, TouchStone scores, hallucination ratings and people's votes.

Each gives its data (collectors here and in :mod:`~lvlmbench.report.scores` and
:mod:`~lvlmbench.report.votes`), its section (:mod:`~lvlmbench.report.render_ratings`,
:mod:`~lvlmbench.report.render_votes`) and its leaderboard columns (below; what they mean is
listed in :mod:`lvlmbench.report.leaderboard`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from lvlmbench.judging import HUMAN, RATING_ROUNDS, metric_name
from lvlmbench.judging.pairwise import PAIRWISE
from lvlmbench.judging.pairwise_report import judges_for, pairwise_report
from lvlmbench.report.board_cells import Cell, interval_cell
from lvlmbench.report.render_ratings import (
    hallucination_section,
    metrics_section,
    pairwise_section,
    touchstone_section,
)
from lvlmbench.report.render_votes import human_section
from lvlmbench.report.scores import hallucination_scores, touchstone_scores
from lvlmbench.report.sections import ReportSection, SectionInput, register_section
from lvlmbench.report.summary import BenchmarkSummary, Row
from lvlmbench.report.votes import human_votes
from lvlmbench.store import iter_judgments

if TYPE_CHECKING:  # only for the annotation: the metrics stay imported where they are used
    from lvlmbench.judging.metrics.run import MetricRating, MetricScore

__all__ = ["BUILTIN_SECTIONS"]

_Cells = Iterator[tuple[str, Mapping[str, Cell]]]
"""(model, {column: cell}) pairs, as a section's ``figures`` yields them."""


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _bt_interval(rating: MetricRating | None, model: str) -> list[float] | None:
    interval = None if rating is None else rating.bt_intervals.get(model)
    return None if interval is None else [interval.low, interval.high]


def _metric_entry(s: MetricScore, rating: MetricRating | None) -> Row:
    from lvlmbench.judging.metrics import METRICS

    return {
        "metric": s.metric,
        "model": s.model,
        "n": s.n,
        "mean": _finite(s.mean),
        "ci_low": _finite(s.interval.low),
        "ci_high": _finite(s.interval.high),
        "probe": METRICS[s.metric].probe if s.metric in METRICS else False,
        "scale": METRICS[s.metric].scale if s.metric in METRICS else None,
        "bradley_terry": None if rating is None else rating.bradley_terry.get(s.model),
        "bt_interval": _bt_interval(rating, s.model),
        "online_elo_shuffled_mean": None
        if rating is None
        else rating.elo_shuffled_mean.get(s.model),
        "win_rate": None if rating is None else rating.win_rate.get(s.model),
    }


def _metrics(source: SectionInput) -> list[Row]:
    from lvlmbench.judging.metrics.run import summarise_metrics

    found: dict[str, set[str]] = {}
    for j in iter_judgments(source.store, status="ok"):
        metric = metric_name(j.protocol)
        if metric is not None and j.item_id in source.items:
            found.setdefault(metric, set()).add(j.model_a)
    if not found:
        return []
    models = sorted(set().union(*found.values()))
    try:
        scores, ratings = summarise_metrics(
            source.store, source.benchmark, models, sorted(found), rounds=200
        )
    except ValueError:  # a metric this build does not know: show nothing rather than fail
        return []
    by_metric = {r.metric: r for r in ratings}
    return [_metric_entry(s, by_metric.get(s.metric)) for s in scores if s.n != 0]


def _pairwise(source: SectionInput) -> list[Row]:
    out = []
    for judge in judges_for(source.store, PAIRWISE):
        report = pairwise_report(
            source.store, source.benchmark, judge, rounds=RATING_ROUNDS, style=True
        )
        if report.pairs:
            # A section's entries are JSON rows, the registry's contract for every protocol.
            out.append(dict(report.as_dict()))
    return out


def _metric_figures(bench: BenchmarkSummary) -> _Cells:
    for r in bench["metrics"]:
        yield (
            r["model"],
            {f"metric:{r['metric']}": interval_cell(r["mean"], r["ci_low"], r["ci_high"])},
        )


def _rating_figures(rep: Row, combined: bool) -> _Cells:
    """One ratings dict's columns: Bradley-Terry first (the headline rating, as in the report
    and `lvlmbench rate`), style-controlled BT, win rate vs the reference, online Elo."""
    judge = rep["judge"]
    for model, b in (rep.get("bradley_terry") or {}).items():
        yield model, {f"bt:{judge}": interval_cell(b["rating"], b["low"], b["high"])}
    style = (rep.get("style_control") or {}).get("ratings") or {}
    for model, b in style.items():
        yield model, {f"bt_style:{judge}": interval_cell(b["rating"], b["low"], b["high"])}
    for model, w in (rep.get("win_rate_vs_reference") or {}).items():
        scaled = interval_cell(100 * w["rate"], 100 * w["low"], 100 * w["high"])
        yield model, {f"win_rate:{judge}": scaled}
    elo = rep.get("online_elo") or {}
    for model, in_order in (elo.get("in_order") or {}).items():
        combine = {f"combine:{judge}": Cell(rep.get("combine"))} if combined else {}
        yield (
            model,
            {
                f"online_elo_in_order:{judge}": Cell(round(in_order, 1)),
                f"online_elo_order:{judge}": Cell(elo["order"]),
                f"online_elo_shuffled_mean:{judge}": Cell(round(elo["shuffled_mean"][model], 1)),
                **combine,
            },
        )


def _pairwise_figures(bench: BenchmarkSummary) -> _Cells:
    for rep in bench["pairwise"]:
        yield from _rating_figures(rep, combined=True)


def _human_figures(bench: BenchmarkSummary) -> _Cells:
    # People's votes rate like a judge named "human" (one match per vote: nothing combined).
    for entry in bench.get("human", []):
        yield from _rating_figures(entry["ratings"], combined=False)


def _touchstone_figures(bench: BenchmarkSummary) -> _Cells:
    for entry in bench.get("touchstone") or []:
        name = f"touchstone:{entry['label']}"
        for m in entry["models"]:
            yield (
                m["model"],
                {
                    name: interval_cell(m["score"], m["ci_low"], m["ci_high"]),
                    f"touchstone_rel:{entry['label']}": Cell(m["relative"]),
                },
            )
            for ability, g in m["abilities"].items():
                yield (
                    m["model"],
                    {f"{name}:{ability}": interval_cell(g["score"], g["ci_low"], g["ci_high"])},
                )


def _hallucination_figures(bench: BenchmarkSummary) -> _Cells:
    for entry in bench.get("hallucination") or []:
        name = f"hallucination:{entry['judge']}"
        for m in entry["models"]:
            yield m["model"], {name: interval_cell(m["mean"], m["ci_low"], m["ci_high"])}


def _touchstone(source: SectionInput) -> list[Row]:
    return touchstone_scores(source.store, source.items)


def _hallucination(source: SectionInput) -> list[Row]:
    return hallucination_scores(source.store, set(source.items))


def _human(source: SectionInput) -> list[Row]:
    return human_votes(source.store, source.benchmark)


# The leaderboard's column groups: metrics, model judges' pairwise ratings and people's
# (rated alike), then TouchStone's scores and hallucination ratings; any other protocol's after.
BUILTIN_SECTIONS = {
    "pairwise": register_section(
        "pairwise", ReportSection(_pairwise, pairwise_section, _pairwise_figures, 20)
    ),
    "metrics": register_section(
        "metrics", ReportSection(_metrics, metrics_section, _metric_figures, 10)
    ),
    "touchstone": register_section(
        "touchstone", ReportSection(_touchstone, touchstone_section, _touchstone_figures, 40)
    ),
    "hallucination": register_section(
        "hallucination",
        ReportSection(_hallucination, hallucination_section, _hallucination_figures, 50),
    ),
    HUMAN: register_section(HUMAN, ReportSection(_human, human_section, _human_figures, 30)),
}
"""The built-in sections by report key, registered on import."""
