"""Judges corrected by people: the human-level figure by prediction-powered inference (PPI++)
where a judge scored every item and people labelled some, beside the judge's own figure and
the people-only one, each with its interval and the number of labels used.

- VisIT-Bench pairwise (:func:`corrected_win_rates`): each model's win rate against the
  reference. The judge's two-order verdict (combined by VisIT-Bench's rule) gives 1 for a win
  and 0 for a loss or a tie on every judged item, as ``lvlmbench rate`` counts it; an item's
  people's figure is the share of its votes (imported or cast in the web app, of the
  agreement's annotator group) that the model wins.
- AutoBench-V (:func:`corrected_alignment`): the self-check's alignment (the share of its
  checks the image passed, stored with every accepted item) on every item, against people's
  "does the image match the description?" checks (yes 1, no 0, unsure left out) on some.

PPI is valid when the labelled items are a random sample of the judged ones (people did not
pick them by what the judge said); its interval is then valid however wrong the judge is,
and PPI++'s λ shrinks a useless judge's weight towards 0. Items cluster where they share a
source (an AutoBench-V fine aspect): the interval is then cluster-robust
(:func:`lvlmbench.stats.ppi_mean`). Every rate lies in [0, 1], so intervals are clipped to it
(which cannot lower their coverage).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from lvlmbench.judging.annotator_groups import Annotators
from lvlmbench.judging.counted_votes import counted_votes
from lvlmbench.judging.human_checks import HUMAN_CHECK
from lvlmbench.judging.judge_vs_human import judge_verdicts
from lvlmbench.judging.reference import REFERENCE, answer_texts
from lvlmbench.judging.verdict import ParsedVerdict
from lvlmbench.stats import (
    PPI_PLUS_PLUS,
    Estimate,
    PpiResult,
    cluster_keys,
    mean_interval,
    ppi_mean,
)
from lvlmbench.store import Store, iter_items
from lvlmbench.types import BenchmarkItem, Judgment, Status

__all__ = [
    "IMAGE_CHECK",
    "SELF_CHECK",
    "WIN_RATE",
    "CorrectedFigure",
    "corrected_alignment",
    "corrected_win_rates",
]

WIN_RATE = "win rate vs reference"
IMAGE_CHECK = "image-matches-description"
"""The human check the self-check answers for itself."""
SELF_CHECK = "self-check"
"""The judge of :func:`corrected_alignment`: AutoBench-V's own check of its images."""


@dataclass(frozen=True)
class CorrectedFigure:
    """One figure a judge gives over every item, corrected by people's labels on some."""

    figure: str
    """What is estimated: :data:`WIN_RATE`, or the check (:data:`IMAGE_CHECK`)."""
    subject: str
    """Whose figure: the model (win rate), or the benchmark (alignment)."""
    judge: str
    items: int
    """Items the judge scored: the population the figure is over."""
    labels: int
    """Those people labelled too (PPI's n)."""
    judge_only: Estimate | None
    """The judge's figure over every item (None without an interval: no item, or one
    cluster)."""
    result: PpiResult | None
    """PPI++ beside the people-only figure (and the judge's again), intervals clipped to
    [0, 1]; None when refused."""
    refused: str | None = None
    """Why there is no PPI figure (too few labelled or unlabelled items or clusters)."""
    labels_unjudged: int = 0
    """Items people labelled that the judge did not score (not used)."""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: the estimator (``ppi++``), λ, n_labels and n_items with every figure."""
        result = self.result
        return {
            "figure": self.figure,
            "subject": self.subject,
            "judge": self.judge,
            "estimator": PPI_PLUS_PLUS,
            "lambda": None if result is None else result.weight,
            "n_labels": self.labels,
            "n_items": self.items,
            "labels_unjudged": self.labels_unjudged,
            "corrected": None if result is None else _estimate(result.corrected),
            "judge_only": None if self.judge_only is None else _estimate(self.judge_only),
            "human_only": None if result is None else _estimate(result.human_only),
            "refused": self.refused,
        }


def _estimate(value: Estimate) -> dict[str, object]:
    return {
        "estimate": value.estimate,
        "low": value.low,
        "high": value.high,
        "method": value.method,
        "cluster": value.cluster,
        "n_items": value.n_items,
        "n_clusters": value.n_clusters,
        "confidence": value.confidence,
    }


def _clipped(value: Estimate) -> Estimate:
    return dataclasses.replace(value, low=max(0.0, value.low), high=min(1.0, value.high))


def _corrected(
    figure: tuple[str, str, str],
    judged: Mapping[str, float],
    labelled: Mapping[str, list[float]],
    clusters: tuple[str, Mapping[str, str]],
) -> CorrectedFigure:
    """PPI++ of ``figure`` (what, whose, which judge) from the judge's score per item and
    people's labels per item (an item's labels average to one), over the judged items;
    ``clusters``: the cluster name and each item's key ("item": none shared)."""
    name, key = clusters
    used = [i for i in judged if i in labelled]
    rest = [i for i in judged if i not in labelled]
    made = CorrectedFigure(
        *figure,
        items=len(judged),
        labels=len(used),
        judge_only=_judge_only(judged, clusters),
        result=None,
        labels_unjudged=sum(i not in judged for i in labelled),
    )
    if len(used) < 2 or len(rest) < 2:
        why = f"needs 2 labelled and 2 unlabelled items, has {len(used)} and {len(rest)}"
        return dataclasses.replace(made, refused=why)
    human = [sum(labelled[i]) / len(labelled[i]) for i in used]
    by_cluster = None if name == "item" else ([key[i] for i in used], [key[i] for i in rest])
    try:
        result = ppi_mean(
            human,
            [judged[i] for i in used],
            [judged[i] for i in rest],
            clusters=by_cluster,
            cluster=name,
        )
    except ValueError as exc:  # NotEnoughClusters: labels in one cluster only
        return dataclasses.replace(made, refused=str(exc))
    clipped = PpiResult(
        _clipped(result.corrected),
        _clipped(result.judge_only),
        _clipped(result.human_only),
        result.labels,
        result.weight,
    )
    return dataclasses.replace(made, result=clipped)


def _judge_only(
    judged: Mapping[str, float], clusters: tuple[str, Mapping[str, str]]
) -> Estimate | None:
    name, key = clusters
    keys = None if name == "item" else [key[i] for i in judged]
    try:
        return _clipped(mean_interval(list(judged.values()), keys, cluster=name))
    except ValueError:  # no item, or a single cluster
        return None


def _clusters(items: list[BenchmarkItem]) -> tuple[str, dict[str, str]]:
    name, keys = cluster_keys(items)
    return name, {item.id: k for item, k in zip(items, keys, strict=True)}


def _wins(vote: Judgment, reference: str) -> tuple[str, float] | None:
    """(the model, 1 when it won the vote against ``reference``, 0 for a loss or a tie), or
    None for a vote not against the reference or without a usable verdict."""
    verdict = ParsedVerdict.of(vote).verdict
    if vote.model_b is None or vote.status is not Status.OK or verdict is None:
        return None
    if reference not in (vote.model_a, vote.model_b) or vote.model_a == vote.model_b:
        return None
    model = vote.model_b if vote.model_a == reference else vote.model_a
    winner = {"a": vote.model_a, "b": vote.model_b}.get(verdict)
    return model, float(winner == model)


def corrected_win_rates(
    store: Store,
    benchmark: str,
    judge: str,
    *,
    protocol: str,
    annotators: Annotators,
    reference: str = REFERENCE,
) -> list[CorrectedFigure]:
    """Per model (sorted) the win rate against ``reference`` by ``judge`` on every item with a
    reference answer, by the votes of ``annotators`` on some, and by PPI++; [] when the
    judge judged no model against the reference."""
    items = list(iter_items(store, benchmark))
    texts = answer_texts(store, items, [reference])
    with_reference = {item_id for item_id, answers in texts.items() if reference in answers}
    judged: dict[str, dict[str, float]] = {}
    for (item_id, p1, p2), result in judge_verdicts(
        store, benchmark, with_reference, judge, protocol
    ).items():
        if result is None or reference not in (p1, p2) or item_id not in with_reference:
            continue
        model, model_side = (p2, "b") if p1 == reference else (p1, "a")
        judged.setdefault(model, {})[item_id] = float(result == model_side)
    voted: dict[str, dict[str, list[float]]] = {}
    for vote in counted_votes(store):
        won = _wins(vote, reference) if vote.item_id in with_reference else None
        if won is not None and annotators.admits(vote.judge):
            voted.setdefault(won[0], {}).setdefault(vote.item_id, []).append(won[1])
    clusters = _clusters(items)
    return [
        _corrected((WIN_RATE, model, judge), scores, voted.get(model, {}), clusters)
        for model, scores in sorted(judged.items())
    ]


def corrected_alignment(store: Store, benchmark: str) -> CorrectedFigure | None:
    """AutoBench-V's self-check alignment over its accepted items, corrected by people's
    image checks; None when no person answered the image check on ``benchmark``."""
    answers: dict[str, list[float]] = {}
    for check in counted_votes(store, HUMAN_CHECK):
        if check.model_a == IMAGE_CHECK and check.verdict in ("yes", "no"):
            answers.setdefault(check.item_id, []).append(float(check.verdict == "yes"))
    if not answers:  # the usual case: no item needs parsing
        return None
    items = list(iter_items(store, benchmark))
    if not any(item.id in answers for item in items):
        return None
    judged = {
        item.id: float(score)
        for item in items
        if isinstance(score := item.meta.get("alignment"), int | float)
        and not isinstance(score, bool)
    }
    ids = {item.id for item in items}
    labelled = {item_id: labels for item_id, labels in answers.items() if item_id in ids}
    return _corrected((IMAGE_CHECK, benchmark, SELF_CHECK), judged, labelled, _clusters(items))
