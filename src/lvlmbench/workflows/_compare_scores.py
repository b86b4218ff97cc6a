"""What ``lvlmbench compare`` compares: each model's per-item scores on one benchmark, read from
the store by the rule the benchmark's own table uses, so a comparison's means are the table's.

- ``accuracy`` (choice items): each item's mean over its scored answers (epochs average
  within the item, :meth:`lvlmbench.choice.ScoredAnswers.item_scores`).
- ``score`` (TouchStone-style score judge): each item's 1-10 score, both presentation orders
  averaged, by :func:`lvlmbench.judging.score_report` on that item's rows.
- ``win-rate`` (VisIT-Bench-style pairwise judge): each item's outcome against the reference
  player (1 a win, 0.5 a tie, 0 a loss; both orders combined by VisIT-Bench's rule).
- ``bradley-terry``: the same matches, every model against every other; the compared figure is
  a rating difference, not a mean (see :mod:`lvlmbench.workflows.compare`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lvlmbench.choice.accuracy import scored_answers
from lvlmbench.judging import (
    PAIRWISE,
    PAIRWISE_REF,
    REFERENCE,
    SCORE,
    is_human_judge,
    judges_for,
    pair_records,
    score_report,
)
from lvlmbench.models import model_identity
from lvlmbench.store import Store, iter_items, iter_judgments
from lvlmbench.types import BenchmarkItem, Judgment
from lvlmbench.workflows._errors import InvalidOptions

__all__ = ["METRICS", "ItemScores", "Match", "read_scores"]

METRICS = ("accuracy", "score", "win-rate", "bradley-terry")
"""What a comparison can be about, in the order one is picked when none is named."""

_OUTCOME = {"a": 1.0, "b": 0.0, "tie": 0.5}

Match = tuple[str, str, float, str]
"""(first player, second player, the first player's outcome, item id): one scored pair."""


@dataclass(frozen=True)
class ItemScores:
    """Every model's per-item scores on one benchmark under one metric."""

    metric: str
    judge: str | None
    """The judge whose verdicts the scores come from (None for accuracy)."""
    items: dict[str, BenchmarkItem]
    """The items the metric scores, by id."""
    scores: dict[str, dict[str, float]]
    """model → item id → the item's score (epochs averaged)."""
    matches: tuple[Match, ...] = ()
    """For the pairwise metrics: every scored pair, all models included."""

    def players(self) -> set[str]:
        """The models with a score (for ``bradley-terry``: with a scored match)."""
        if self.metric == "bradley-terry":
            return {p for a, b, _o, _i in self.matches for p in (a, b)}
        return {model for model, per_item in self.scores.items() if per_item}


def _accuracy(store: Store, benchmark: str, variant: str) -> ItemScores:
    answers = scored_answers(store, benchmark, variant=variant)
    scores = {
        model: {item: mean.mean for item, mean in per_item.items()}
        for (model, _variant), per_item in answers.item_scores().items()
    }
    return ItemScores("accuracy", None, answers.items, scores)


def _judge(store: Store, protocols: Sequence[str], ids: set[str], wanted: str | None) -> str:
    """The judge with rows on ``ids`` under one of ``protocols``: ``wanted`` (by identity) or
    the only one; InvalidOptions naming the judges there are otherwise."""
    found = sorted(
        {
            judge
            for protocol in protocols
            for judge in judges_for(store, protocol)
            if not is_human_judge(judge)
            and any(j.item_id in ids for j in iter_judgments(store, judge=judge, protocol=protocol))
        }
    )
    if wanted is not None:
        identity = model_identity(wanted)
        if identity in found:
            return identity
        raise InvalidOptions(
            f"--judge {wanted!r} has no {'/'.join(protocols)} judgments on these items; "
            f"judges with rows: {', '.join(found) or 'none'}"
        )
    if len(found) == 1:
        return found[0]
    raise InvalidOptions(
        f"{len(found)} judges have {'/'.join(protocols)} judgments here ({', '.join(found)}): "
        "name one with --judge"
    )


def _score(store: Store, items: dict[str, BenchmarkItem], judge: str | None) -> ItemScores:
    chosen = _judge(store, [SCORE], set(items), judge)
    by_item: dict[str, list[Judgment]] = {}
    for row in iter_judgments(store, judge=chosen, protocol=SCORE):
        if row.item_id in items:
            by_item.setdefault(row.item_id, []).append(row)
    scores: dict[str, dict[str, float]] = {}
    for item_id, rows in by_item.items():
        # score_report on one item's rows: that item's score by the judge table's own rule.
        for model, score in score_report(rows, REFERENCE, {item_id: items[item_id]}).items():
            if score.overall.mean is not None:
                scores.setdefault(model, {})[item_id] = score.overall.mean
    return ItemScores("score", chosen, items, scores)


def _pairwise(
    store: Store, benchmark: str, items: dict[str, BenchmarkItem], judge: str | None, metric: str
) -> ItemScores:
    chosen = _judge(store, [PAIRWISE, PAIRWISE_REF], set(items), judge)
    matches: list[Match] = []
    for protocol in (PAIRWISE, PAIRWISE_REF):
        for record in pair_records(store, benchmark, chosen, protocol):
            result = record.result()
            if result is not None:
                matches.append((*record.players, _OUTCOME[result], record.item_id))
    scores: dict[str, dict[str, float]] = {}
    for a, b, outcome, item_id in matches:
        if REFERENCE in (a, b) and a != b:
            model, won = (b, 1.0 - outcome) if a == REFERENCE else (a, outcome)
            scores.setdefault(model, {})[item_id] = won
    return ItemScores(metric, chosen, items, scores, tuple(matches))


def _read(store: Store, benchmark: str, metric: str, judge: str | None, variant: str) -> ItemScores:
    if metric == "accuracy":
        return _accuracy(store, benchmark, variant)
    items = {item.id: item for item in iter_items(store, benchmark) if item.kind == "open"}
    if metric == "score":
        return _score(store, items, judge)
    return _pairwise(store, benchmark, items, judge, metric)


def _has_rows(store: Store, items: set[str], protocols: Sequence[str]) -> bool:
    return any(
        j.item_id in items
        for protocol in protocols
        for judge in judges_for(store, protocol)
        if not is_human_judge(judge)
        for j in iter_judgments(store, judge=judge, protocol=protocol)
    )


def _pick_metric(store: Store, benchmark: str, variant: str) -> str:
    """The metric of a benchmark when none is named: accuracy where choice items were
    answered, else a score judge's, else a pairwise judge's win rate."""
    if _accuracy(store, benchmark, variant).scores:
        return "accuracy"
    open_ids = {item.id for item in iter_items(store, benchmark) if item.kind == "open"}
    if _has_rows(store, open_ids, [SCORE]):
        return "score"
    if _has_rows(store, open_ids, [PAIRWISE, PAIRWISE_REF]):
        return "win-rate"
    raise InvalidOptions(
        f"nothing to compare on {benchmark!r}: no scored answers to choice items and no "
        "score or pairwise judgments (run `lvlmbench evaluate` or `lvlmbench judge` first)"
    )


def read_scores(
    store: Store, benchmark: str, metric: str | None, judge: str | None, variant: str
) -> ItemScores:
    """Every model's per-item scores under ``metric`` (None: the benchmark's own, see
    :func:`_pick_metric`)."""
    if metric is not None and metric not in METRICS:
        raise InvalidOptions(f"--metric {metric!r}: choose from {', '.join(METRICS)}")
    if metric == "accuracy" and judge is not None:
        raise InvalidOptions("--judge applies to judged metrics (score, win-rate, bradley-terry)")
    chosen = metric or _pick_metric(store, benchmark, variant)
    return _read(store, benchmark, chosen, judge, variant)
