"""TouchStone score-judge and hallucination-judge figures for the report, with intervals.

The point figures are exactly what :func:`~lvlmbench.judging.score_report` and
:func:`~lvlmbench.judging.hallucination_report` return (the numbers ``lvlmbench judge`` prints).
Neither function keeps per-item values, so for the 95% intervals each is also called on one
item's rows at a time: that gives every item's figure by the same pairing and averaging rules,
and a percentile bootstrap over those items gives the interval.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lvlmbench.judging.hallucination import HALLUCINATION, hallucination_report
from lvlmbench.judging.pairwise_report import judges_for
from lvlmbench.judging.reference import REFERENCE, REFERENCE_PREFIX, reference_name
from lvlmbench.judging.score import SCORE, ScoreGroup, item_abilities, score_report
from lvlmbench.store import Store, iter_judgments
from lvlmbench.types import BenchmarkItem, Judgment

__all__ = ["BOOTSTRAP_ROUNDS", "bootstrap_mean", "hallucination_scores", "touchstone_scores"]

BOOTSTRAP_ROUNDS = 1000


def bootstrap_mean(
    values: Sequence[float], rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0
) -> tuple[float, float]:
    """Percentile 95% interval of the mean of ``values`` (a single value: that value twice)."""
    if len(values) < 2:
        value = values[0] if values else float("nan")
        return value, value
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(rounds, len(data)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def _by_item(rows: Sequence[Judgment]) -> dict[str, list[Judgment]]:
    grouped: dict[str, list[Judgment]] = defaultdict(list)
    for row in rows:
        grouped[row.item_id].append(row)
    return grouped


def _references(rows: Sequence[Judgment]) -> list[str]:
    players = {p for j in rows for p in (j.model_a, j.model_b) if p}
    return sorted(p for p in players if p == REFERENCE or p.startswith(REFERENCE_PREFIX))


def _item_scores(
    rows: Sequence[Judgment], reference: str, items: Mapping[str, BenchmarkItem]
) -> dict[str, dict[str, float]]:
    """{model: {item id: the item's mean score}} for the items scored in both orders."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for item_id, item_rows in _by_item(rows).items():
        one = score_report(item_rows, reference, {item_id: items[item_id]})
        for model, score in one.items():
            if score.overall.mean is not None:
                out[model][item_id] = score.overall.mean
    return out


def _group(group: ScoreGroup, per_item: Sequence[float]) -> dict[str, Any]:
    low: float | None = None
    high: float | None = None
    if per_item:  # no item scored in both orders: no interval (and no NaN in summary.json)
        low, high = bootstrap_mean([100.0 * v for v in per_item])
    return {
        "score": group.x100,
        "ci_low": low,
        "ci_high": high,
        "items": group.items,
        "reference": group.reference_x100,
        "relative": group.relative,
    }


def _score_entry(
    judge: str, reference: str, rows: Sequence[Judgment], items: Mapping[str, BenchmarkItem]
) -> dict[str, Any]:
    per_item = _item_scores(rows, reference, items)
    models = []
    for model, score in score_report(rows, reference, items).items():
        mine = per_item.get(model, {})
        abilities = {
            name: _group(group, [v for i, v in mine.items() if name in item_abilities(items[i])])
            for name, group in sorted(score.abilities.items())
        }
        models.append(
            {
                "model": model,
                **_group(score.overall, list(mine.values())),
                "covers": None if score.covers is None else score.covers.as_dict(),
                "unscored": score.unscored,
                "abilities": abilities,
                "tasks": {name: group.x100 for name, group in sorted(score.tasks.items())},
            }
        )
    models.sort(key=lambda m: -(m["score"] if m["score"] is not None else -1.0))
    # A reference written by the judge itself is the usual case: name only the judge then.
    label = judge if reference == reference_name(judge) else f"{judge} vs {reference}"
    return {"judge": judge, "reference": reference, "label": label, "models": models}


def touchstone_scores(store: Store, items: Mapping[str, BenchmarkItem]) -> list[dict[str, Any]]:
    """One entry per (score judge, reference) with rows on ``items`` (by id)."""
    out = []
    for judge in judges_for(store, SCORE):
        rows = [j for j in iter_judgments(store, judge=judge, protocol=SCORE) if j.item_id in items]
        for reference in _references(rows):
            entry = _score_entry(judge, reference, rows, items)
            if entry["models"]:
                out.append(entry)
    return out


def _hallucination_entry(judge: str, rows: Sequence[Judgment], ids: set[str]) -> dict[str, Any]:
    per_item: dict[str, list[float]] = defaultdict(list)
    for item_id, item_rows in _by_item(rows).items():
        for model, one in hallucination_report(item_rows, {item_id}).items():
            if one.mean is not None:
                per_item[model].append(one.mean)
    models = []
    for model, score in hallucination_report(rows, ids).items():
        low, high = bootstrap_mean(per_item.get(model, []))
        models.append(
            {
                "model": model,
                "mean": score.mean,
                "ci_low": None if score.mean is None else low,
                "ci_high": None if score.mean is None else high,
                "rated": score.rated,
                "unscored": score.unscored,
            }
        )
    return {"judge": judge, "models": models}


def hallucination_scores(store: Store, ids: set[str]) -> list[dict[str, Any]]:
    """One entry per hallucination judge with rows on the items ``ids``."""
    out = []
    for judge in judges_for(store, HALLUCINATION):
        rows = [
            j
            for j in iter_judgments(store, judge=judge, protocol=HALLUCINATION)
            if j.item_id in ids
        ]
        if rows:
            out.append(_hallucination_entry(judge, rows, ids))
    return out
