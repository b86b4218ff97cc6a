"""Read everything the report shows from the store into the typed, JSON-able summary
(:mod:`lvlmbench.report.summary`).

The same data feeds the HTML and ``summary.json``, so the two always agree.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any, cast

from lvlmbench.choice.accuracy import (
    AccuracyRow,
    ScoredAnswers,
    carries_facet,
    facet_value,
    group_coverage,
    scored_answers,
)
from lvlmbench.choice.vlmeval_scores import (
    CircularRowJSON,
    MMERowJSON,
    circular_table,
    mme_table,
)
from lvlmbench.judging import HUMAN
from lvlmbench.report._common import LEVELS, pct
from lvlmbench.report.experiments import leakage_summary, position_bias_summary, rekeyed_sources
from lvlmbench.report.experiments_design import design_experiments_summary
from lvlmbench.report.judged import judged_data
from lvlmbench.report.leaderboard import board_names
from lvlmbench.report.ranks import with_ranks
from lvlmbench.report.sections import SectionInput
from lvlmbench.report.summary import BenchmarkSummary, ReportData
from lvlmbench.stats import estimate_fields
from lvlmbench.store import (
    GenerationReport,
    Store,
    StoredBenchmark,
    get_benchmark,
    iter_items,
    list_benchmarks,
)
from lvlmbench.types import BenchmarkItem

__all__ = [
    "LEVELS",
    "benchmark_summary",
    "chance_by_group",
    "collect",
    "level_spread",
    "pct",
]


def _item_chance(item: BenchmarkItem) -> float | None:
    """The chance of a uniform guess being right: 1/options for MC, 1/2 for TF."""
    if item.kind == "tf":
        return 0.5
    if item.kind == "mc" and item.options:
        return 1.0 / len(item.options)
    return None


def chance_by_group(
    items: Iterable[BenchmarkItem], by: Sequence[str]
) -> dict[tuple[str, ...], float]:
    """Chance accuracy (%) per group of scored items: the mean of the items' guessing odds, so
    a group mixing 4- and 2-option items gets the rate a uniform guesser would score on it."""
    odds: dict[tuple[str, ...], list[float]] = {}
    for item in items:
        chance = _item_chance(item)
        if chance is not None and item.answer is not None:
            odds.setdefault(tuple(facet_value(item, b) for b in by), []).append(chance)
    return {group: pct(sum(v) / len(v)) for group, v in odds.items()}


def _rows(
    rows: list[AccuracyRow], by: Sequence[str], chance: dict[tuple[str, ...], float] | None = None
) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        low, high = row.interval
        out.append(
            {
                "model": row.model,
                **dict(zip(by, row.group, strict=True)),
                "accuracy": pct(row.accuracy),
                **estimate_fields(row.estimate),
                "ci_low": pct(low),
                "ci_high": pct(high),
                "epochs": row.epochs,
                "correct": row.correct,
                "answered": row.answered,
                "unparseable": row.unparseable,
                "failed": row.failed,
                "chance": (chance or {}).get(row.group),
            }
        )
    return out


def _facet_rows(
    answers: ScoredAnswers, items: Iterable[BenchmarkItem], facet: str
) -> list[dict[str, Any]]:
    """Accuracy per ``facet`` group with each group's chance rate (none where no item has the
    facet)."""
    items = list(items)
    if not carries_facet(items, facet):
        return []
    chance = chance_by_group(items, [facet])
    return _rows(answers.table([facet]), [facet], chance)


_COVERED = (("capability", "capabilities"), ("difficulty", "difficulty levels"))
"""The facets an overall accuracy is said to cover part of, when it does."""


def _with_coverage(overall: list[dict[str, Any]], answers: ScoredAnswers) -> list[dict[str, Any]]:
    """The overall rows, each with ``covers``: "1 of 3 difficulty levels" for every facet
    whose groups the model's scored items do not all reach (empty: it covers them all)."""
    partial: dict[str, list[str]] = {}
    for facet, noun in _COVERED:
        covered = group_coverage(answers.table([facet]), answers.groups([facet]), noun)
        for (model, _variant), found in covered.items():
            if not found.complete:
                partial.setdefault(model, []).append(found.text())
    return [{**row, "covers": partial.get(row["model"], [])} for row in overall]


def _ranked(
    overall: list[dict[str, Any]], answers: ScoredAnswers, items: Iterable[BenchmarkItem]
) -> list[dict[str, Any]]:
    """The overall rows with ``keyed`` (accuracy's n: the items with a key; an unkeyed item is
    never scored, so never "missed") and rank intervals for the rows over all of them only,
    ranked on the items they all answered."""
    keyed = sum(1 for i in items if i.answer is not None)
    full = {r["model"] for r in overall if r["items"] >= keyed}
    return [{**r, "keyed": keyed} for r in with_ranks(overall, answers, full)]


def level_spread(rows: list[AccuracyRow]) -> list[dict[str, Any]]:
    """Per difficulty level, how far apart the models are: lowest, highest, range and population
    standard deviation of their accuracies (AutoBench-V: harder levels separate models more)."""
    by_level: dict[str, dict[str, float]] = {}
    for row in rows:
        by_level.setdefault(row.group[0], {})[row.model] = row.accuracy
    order = sorted(by_level, key=lambda g: (LEVELS.index(g) if g in LEVELS else len(LEVELS), g))
    out = []
    for level in order:
        accs = by_level[level]
        low, high = min(accs.values()), max(accs.values())
        out.append(
            {
                "difficulty": level,
                "models": len(accs),
                "min": pct(low),
                "max": pct(high),
                "range": pct(high - low),
                "std": pct(statistics.pstdev(accs.values())),
                "lowest": min(accs, key=lambda m: (accs[m], m)),
                "highest": max(accs, key=lambda m: (accs[m], m)),
                "accuracy": {m: pct(v) for m, v in accs.items()},
            }
        )
    return out


def _vlmeval_scores(
    store: Store, name: str, row: StoredBenchmark | None, items: list[BenchmarkItem]
) -> tuple[list[CircularRowJSON], list[MMERowJSON]]:
    """CircularEval and MME tables of a benchmark imported from VLMEvalKit (empty lists for
    any other: generated benchmarks have neither rotated copies nor MME's picture pairs)."""
    if row is None or row.kind != "vlmeval":
        return [], []
    return (
        [r.as_dict() for r in circular_table(store, name, items=items)],
        [r.as_dict() for r in mme_table(store, name, items=items)],
    )


def benchmark_summary(
    store: Store, name: str, benchmarks: list[StoredBenchmark] | None = None
) -> BenchmarkSummary:
    """Every figure of one benchmark (sections without data are empty or None).

    ``benchmarks`` is the store's ``list_benchmarks`` (read when None); it names the
    position-bias experiment's re-keyed copies of ``name``.
    """
    row = get_benchmark(store, name)
    # Generation figures exist for AutoBench-V's benchmarks only: the others report them empty.
    generated = row.data if row and isinstance(row.data, GenerationReport) else GenerationReport()
    items = {i.id: i for i in iter_items(store, name)}
    # One pass over the responses for every accuracy table below.
    answers = scored_answers(store, name, items=items.values())
    overall = _rows(answers.table(), (), chance_by_group(items.values(), ()))
    overall = _ranked(_with_coverage(overall, answers), answers, items.values())
    # Every protocol's entries, each from its report section (built-in or not alike).
    judged = judged_data(SectionInput(store, name, items))
    metrics = judged.get("metrics", [])
    models = [r["model"] for r in overall] or sorted({m["model"] for m in metrics})
    by_level = answers.table(["difficulty"]) if carries_facet(items.values(), "difficulty") else []
    level_chance = chance_by_group(items.values(), ["difficulty"])
    listed = list_benchmarks(store) if benchmarks is None else benchmarks
    circular, mme = _vlmeval_scores(store, name, row, list(items.values()))
    summary: BenchmarkSummary = {
        "name": name,
        "kind": row.kind if row else None,
        "items": len(items),
        "capability_note": generated.plan.note if generated.plan else None,
        "models": models,
        "overall": overall,
        "circular": circular,
        "mme": mme,
        "capability": _facet_rows(answers, items.values(), "capability"),
        "difficulty": _rows(by_level, ["difficulty"], level_chance),
        "spread": level_spread(by_level),
        "fine_aspect": _facet_rows(answers, items.values(), "fine_aspect"),
        "self_check": generated.self_check,
        "key_check": generated.key_check,
        "diversity": generated.diversity,
        "answer_letters": generated.answer_letters,
        "pairwise": judged.get("pairwise", []),
        "metrics": judged.get("metrics", []),
        "touchstone": judged.get("touchstone", []),
        "hallucination": judged.get("hallucination", []),
        "position_bias": position_bias_summary(store, name, listed),
        "leakage": leakage_summary(store, name),
        "ab_experiments": design_experiments_summary(store, name, by_level),
    }
    # People's votes only where there are some: a store without votes reports as before.
    if judged.get(HUMAN):
        summary["human"] = judged[HUMAN]
    # A registered protocol's entries go under its own report key, which the type cannot name.
    extra = {key: entries for key, entries in judged.items() if key not in (*summary, HUMAN)}
    cast(dict[str, Any], summary).update(extra)
    # Named once for the whole benchmark, so every table, chart and file agrees.
    summary["display"] = board_names(summary)
    return summary


def collect(store: Store, benchmarks: Sequence[str] | None = None) -> ReportData:
    """The report's data for ``benchmarks`` (all of the store's when None).

    By default a position-bias copy is left out when its source benchmark is shown: its
    figures appear in the source's section, and a section per copy would only repeat them.
    """
    listed = list_benchmarks(store)
    known = [b.name for b in listed]
    copies = rekeyed_sources(listed)
    names = list(benchmarks) if benchmarks else [n for n in known if copies.get(n) not in known]
    missing = [n for n in names if n not in known]
    if missing:
        raise ValueError(f"unknown benchmark {missing[0]!r}; known: {', '.join(known) or 'none'}")
    return {
        "store": store.url,
        "benchmarks": [benchmark_summary(store, n, listed) for n in names],
    }
