"""Metric judging runs: score stored responses to open items, store the scores, summarise them.

:func:`judge_with_metrics` writes one :class:`~lvlmbench.types.Judgment` per (item, model,
metric): ``protocol="metric:<name>"``, ``judge="metric/<name>"``, ``model_a`` the examinee and
``score_a`` the value. It is resumable: a judgment already stored is never computed again.
Responses that are not ok, and items without a reference, are skipped and counted.

:func:`summarise_metrics` reads them back: per model and metric the mean with a seeded
bootstrap 95% interval, and a ranking from pairwise matches derived per item (the higher score
wins, equal scores tie) rated with Bradley-Terry and Elo from :mod:`lvlmbench.ratings`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np

from lvlmbench.judging.metrics._base import METRICS, Metric, load_metric
from lvlmbench.judging.scale import ParsedRating
from lvlmbench.ratings import Interval, bradley_terry_bootstrap, elo_ratings
from lvlmbench.store import (
    Store,
    benchmark_item_ids,
    iter_items,
    iter_judgments,
    iter_responses,
    judgment_id,
    judgment_ids,
    put_judgments,
)
from lvlmbench.types import BenchmarkItem, Judgment, Response, Status

__all__ = [
    "MetricRating",
    "MetricRatingJSON",
    "MetricRunSummary",
    "MetricScore",
    "MetricScoreJSON",
    "judge_name",
    "judge_with_metrics",
    "metric_matches",
    "summarise_metrics",
]

ProgressHook = Callable[[int, int], None]
_BATCH = 512


def judge_name(metric: str, variant: str = "default") -> str:
    """The judge spec stored for a metric (the variant is named when it is not the default)."""
    return f"metric/{metric}" if variant == "default" else f"metric/{metric}@{variant}"


@dataclass
class MetricRunSummary:
    """What one metric judging run did, per metric."""

    benchmark: str
    metric: str
    computed: int = 0
    """Judgments computed and stored in this run."""
    existing: int = 0
    """Judgments found from an earlier run (not computed again)."""
    skipped_responses: int = 0
    """Responses that were not ok (refused, error...): never scored."""
    missing_responses: int = 0
    """(item, model) pairs with no stored response."""
    no_reference: int = 0
    """Items without a reference (not open-ended, or no reference written)."""
    wall_s: float = 0.0


class MetricScoreJSON(TypedDict):
    """:meth:`MetricScore.as_dict`: a score row as ``--json`` and the report keep it."""

    metric: str
    model: str
    n: int
    mean: float
    low: float
    high: float
    skipped: int


@dataclass(frozen=True)
class MetricScore:
    """A model's mean score on a metric with a bootstrap interval."""

    metric: str
    model: str
    n: int
    mean: float
    interval: Interval
    skipped: int = 0
    """Responses of this model that were not ok, hence not scored."""

    def as_dict(self) -> MetricScoreJSON:
        """JSON-ready form (the interval flattened to low/high)."""
        return {
            "metric": self.metric,
            "model": self.model,
            "n": self.n,
            "mean": self.mean,
            "low": self.interval.low,
            "high": self.interval.high,
            "skipped": self.skipped,
        }


METRIC_ELO_SHUFFLES = 20
"""Seeded orders a metric's online Elo is averaged over."""


class MetricRatingJSON(TypedDict):
    """:meth:`MetricRating.as_dict`: one metric's ratings as ``--json`` and the report keep
    them (intervals as ``[low, high]``)."""

    matches: int
    bradley_terry: dict[str, float]
    bt_intervals: dict[str, list[float]]
    online_elo_shuffled_mean: dict[str, float]
    online_elo_label: str
    win_rate: dict[str, float]


@dataclass(frozen=True)
class MetricRating:
    """Ratings from per-item pairwise matches under one metric (higher score wins)."""

    metric: str
    matches: int
    bradley_terry: dict[str, float]
    elo_shuffled_mean: dict[str, float]
    """Online Elo, the mean over :data:`METRIC_ELO_SHUFFLES` seeded shuffled orders (a metric's
    matches were never fought in any order, so none is replayed as such)."""
    win_rate: dict[str, float]
    """Mean match score per model (ties count half)."""
    bt_intervals: dict[str, Interval] = field(default_factory=dict)
    """Bradley-Terry 95% bootstrap interval per model (the same resampling as pairwise ratings)."""

    def as_dict(self) -> MetricRatingJSON:
        """JSON-ready form, without the metric name (the key it is stored under)."""
        return {
            "matches": self.matches,
            "bradley_terry": self.bradley_terry,
            "bt_intervals": {m: [i.low, i.high] for m, i in self.bt_intervals.items()},
            "online_elo_shuffled_mean": self.elo_shuffled_mean,
            "online_elo_label": f"online Elo, mean of {METRIC_ELO_SHUFFLES} shuffled orders",
            "win_rate": self.win_rate,
        }


@dataclass
class _Plan:
    items: dict[str, BenchmarkItem] = field(default_factory=dict)
    responses: dict[tuple[str, str], Response] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


def _plan(store: Store, benchmark: str, models: Sequence[str], variant: str) -> _Plan:
    plan = _Plan()
    plan.items = {i.id: i for i in iter_items(store, benchmark)}
    for model in models:
        plan.skipped[model] = 0
        for response in iter_responses(store, model=model, variant=variant):
            if response.item_id not in plan.items:
                continue
            if response.status is not Status.OK:
                plan.skipped[model] += 1
                continue
            plan.responses[(response.item_id, model)] = response
    return plan


def judge_with_metrics(
    store: Store,
    benchmark: str,
    models: Sequence[str],
    metrics: Sequence[str | Metric],
    *,
    variant: str = "default",
    on_progress: Callable[[str, int, int], None] | None = None,
) -> list[MetricRunSummary]:
    """Score every stored ok response of ``models`` to ``benchmark``'s items that have a
    reference, with each metric, storing a judgment per score; skip what is already stored.

    ``metrics`` are names (:data:`METRICS`) or metric objects. Each metric is fitted on all the
    benchmark's references first, so corpus-level scores (CIDEr) do not depend on what an
    earlier run already stored. ``on_progress(metric, done, total)`` follows each batch.
    Raises ``ValueError`` for an unknown metric and ``MetricUnavailable`` for a missing extra
    before anything is stored.
    """
    loaded = [load_metric(m) if isinstance(m, str) else m for m in metrics]
    plan = _plan(store, benchmark, models, variant)
    references = {i.id: i.reference for i in plan.items.values() if i.reference}
    summaries = []
    for metric in loaded:
        started = time.perf_counter()
        judge = judge_name(metric.name, variant)
        protocol = f"metric:{metric.name}"
        summary = MetricRunSummary(benchmark, metric.name)
        summary.no_reference = len(plan.items) - len(references)
        summary.skipped_responses = sum(plan.skipped.values())
        existing = judgment_ids(store, judge, protocol)
        pending = _pending(plan, references, models, judge, protocol, existing, summary)
        if pending:
            metric.fit(sorted(set(references.values())))
        for start in range(0, len(pending), _BATCH):
            chunk = pending[start : start + _BATCH]
            scores = metric.score([r.text for r, _ in chunk], [ref for _, ref in chunk])
            put_judgments(
                store,
                (
                    Judgment(
                        item_id=r.item_id,
                        judge=judge,
                        protocol=protocol,
                        model_a=r.model,
                        score_a=value,
                    )
                    for (r, _), value in zip(chunk, scores, strict=True)
                ),
            )
            summary.computed += len(chunk)
            if on_progress is not None:
                on_progress(metric.name, summary.computed, len(pending))
        summary.wall_s = time.perf_counter() - started
        summaries.append(summary)
    return summaries


def _pending(
    plan: _Plan,
    references: dict[str, str],
    models: Sequence[str],
    judge: str,
    protocol: str,
    existing: Collection[str],
    summary: MetricRunSummary,
) -> list[tuple[Response, str]]:
    """The (response, reference) pairs still to score; counts the missing responses and the
    judgments already stored on ``summary``."""
    pending: list[tuple[Response, str]] = []
    for item_id, reference in references.items():
        for model in models:
            response = plan.responses.get((item_id, model))
            if response is None:
                summary.missing_responses += 1
                continue
            template = Judgment(
                item_id=item_id, judge=judge, protocol=protocol, model_a=model, score_a=None
            )
            if judgment_id(template) in existing:
                summary.existing += 1
            else:
                pending.append((response, reference))
    return pending


def _scores(
    store: Store, benchmark: str, models: Sequence[str], metric: str, variant: str
) -> dict[str, dict[str, float]]:
    """{model: {item_id: score}} for the benchmark's items."""
    item_ids = set(benchmark_item_ids(store, benchmark))
    wanted = set(models)
    out: dict[str, dict[str, float]] = {m: {} for m in models}
    for j in iter_judgments(
        store, judge=judge_name(metric, variant), protocol=f"metric:{metric}", status="ok"
    ):
        value = ParsedRating.of(j).value
        if j.item_id in item_ids and j.model_a in wanted and value is not None:
            out[j.model_a][j.item_id] = value
    return out


def metric_matches(scores: dict[str, dict[str, float]]) -> list[tuple[str, str, float]]:
    """Per item, every pair of models that both have a score: 1 if the first scored higher,
    0 if lower, 0.5 if equal. Models in sorted order, items in sorted order (deterministic)."""
    matches = []
    models = sorted(scores)
    items = sorted(set().union(*(set(s) for s in scores.values())) if scores else set())
    for item in items:
        for a, b in itertools.combinations(models, 2):
            sa, sb = scores[a].get(item), scores[b].get(item)
            if sa is None or sb is None:
                continue
            matches.append((a, b, 1.0 if sa > sb else 0.0 if sa < sb else 0.5))
    return matches


def _bootstrap_mean(values: list[float], rounds: int, seed: int) -> Interval:
    if len(values) < 2:
        value = values[0] if values else float("nan")
        return Interval(value, value)
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(rounds, len(data)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return Interval(float(low), float(high))


def summarise_metrics(
    store: Store,
    benchmark: str,
    models: Sequence[str],
    metrics: Sequence[str],
    *,
    variant: str = "default",
    rounds: int = 1000,
    seed: int = 0,
) -> tuple[list[MetricScore], list[MetricRating]]:
    """Per (metric, model) mean scores with bootstrap 95% intervals, and per metric the
    ratings derived from per-item matches (Bradley-Terry with a small L2 penalty, so a model
    that wins every match still gets a finite rating, and its bootstrap 95% interval over
    ``rounds`` resamples; online Elo averaged over 20 seeded shuffled orders)."""
    plan_skipped = _plan(store, benchmark, models, variant).skipped
    rows: list[MetricScore] = []
    ratings: list[MetricRating] = []
    for metric in metrics:
        METRICS.get_or_raise(metric)  # UnknownName (a ValueError) naming the known ones
        scores = _scores(store, benchmark, models, metric, variant)
        for model in models:
            values = [scores[model][k] for k in sorted(scores[model])]
            rows.append(
                MetricScore(
                    metric=metric,
                    model=model,
                    n=len(values),
                    mean=float(np.mean(values)) if values else float("nan"),
                    interval=_bootstrap_mean(values, rounds, seed),
                    skipped=plan_skipped.get(model, 0),
                )
            )
        matches = metric_matches(scores)
        if not matches:
            continue
        wins: dict[str, list[float]] = {}
        for a, b, outcome in matches:
            wins.setdefault(a, []).append(outcome)
            wins.setdefault(b, []).append(1.0 - outcome)
        bt = bradley_terry_bootstrap(matches, rounds=rounds, seed=seed, l2=0.01)
        ratings.append(
            MetricRating(
                metric=metric,
                matches=len(matches),
                bradley_terry=bt.ratings,
                elo_shuffled_mean=elo_ratings(matches, shuffles=METRIC_ELO_SHUFFLES, seed=seed),
                win_rate={m: float(np.mean(v)) for m, v in sorted(wins.items())},
                bt_intervals=bt.intervals,
            )
        )
    return rows, ratings
