"""TouchStone score-judge and hallucination-judge figures for the report, with intervals.

The point figures are exactly what :func:`~lvlmbench.judging.score_report` and
:func:`~lvlmbench.judging.hallucination_report` return (the numbers ``lvlmbench judge`` prints).
Neither function keeps per-item values, so for the 95% intervals each is also called on one
item's rows at a time: that gives every item's figure by the same pairing and averaging rules,
and the interval is the mean's over those items with their clusters
(:func:`lvlmbench.stats.clustered_mean`: Student's t with the cluster-robust standard error; a
TouchStone question and a hallucination item are each their own cluster, so it is the t interval
over items). Never Wilson: these are scores on a scale, not 0/1 outcomes, even where every score
happens to be 0 or 1. One item gives no interval.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from lvlmbench.judging.hallucination import (
    HALLUCINATION,
    HALLUCINATION_SCALE,
    hallucination_report,
)
from lvlmbench.judging.pairwise_report import judges_for
from lvlmbench.judging.reference import REFERENCE, REFERENCE_PREFIX, reference_name
from lvlmbench.judging.score import (
    SCORE,
    SCORE_SCALE,
    ScoreGroup,
    item_abilities,
    score_report,
)
from lvlmbench.stats import NotEnoughClusters, cluster_keys, clustered_mean, estimate_fields
from lvlmbench.store import Store, iter_judgments
from lvlmbench.types import BenchmarkItem, Judgment

__all__ = ["hallucination_scores", "score_interval", "touchstone_scores"]


_SCORE_X100 = (100.0 * SCORE_SCALE.low, 100.0 * SCORE_SCALE.high)
_HALLUCINATION_BOUNDS = (HALLUCINATION_SCALE.low, HALLUCINATION_SCALE.high)


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


def score_interval(
    per_item: Mapping[str, float],
    bounds: tuple[float, float],
    items: Mapping[str, BenchmarkItem] | None = None,
) -> dict[str, Any]:
    """The 95% interval of the mean of ``per_item`` (item id → score) clustered by the items'
    sources (each its own cluster without ``items``), kept within the scale's ``bounds`` (a
    mean cannot leave them), as ``estimate_fields`` (ci_low/ci_high None with fewer than two
    clusters: no NaN in summary.json)."""
    ids = list(per_item)
    if items is None:
        name, keys = "item", ids
    else:
        name, keys = cluster_keys([items[i] for i in ids])
    try:
        found = clustered_mean([per_item[i] for i in ids], keys, cluster=name)
    except (NotEnoughClusters, ValueError):
        return {"ci_low": None, "ci_high": None, "clusters": len(set(keys)), "cluster": name}
    fields = estimate_fields(found)
    fields["ci_low"], fields["ci_high"] = max(bounds[0], found.low), min(bounds[1], found.high)
    return fields


def _group(
    group: ScoreGroup, per_item: Mapping[str, float], items: Mapping[str, BenchmarkItem]
) -> dict[str, Any]:
    return {
        "score": group.x100,
        **score_interval({i: 100.0 * v for i, v in per_item.items()}, _SCORE_X100, items),
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
            name: _group(
                group,
                {i: v for i, v in mine.items() if name in item_abilities(items[i])},
                items,
            )
            for name, group in sorted(score.abilities.items())
        }
        models.append(
            {
                "model": model,
                **_group(score.overall, mine, items),
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
    per_item: dict[str, dict[str, float]] = defaultdict(dict)
    for item_id, item_rows in _by_item(rows).items():
        for model, one in hallucination_report(item_rows, {item_id}).items():
            if one.mean is not None:
                per_item[model][item_id] = one.mean
    models = []
    for model, score in hallucination_report(rows, ids).items():
        interval = score_interval(per_item.get(model, {}), _HALLUCINATION_BOUNDS)
        models.append(
            {
                "model": model,
                "mean": score.mean,
                **interval,
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
