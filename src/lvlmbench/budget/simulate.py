"""Simulated models of known accuracy, and a budgeted run over their scores: what the tests
and ``bench/bench_budget.py`` check the stopping rules against (the right decision at the
stated rate, with a fraction of the items), on independent items (:func:`simulated_scores`)
or on clusters of items that share their outcome (:func:`clustered_scores`)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from lvlmbench.budget.draws import ClusterOrder
from lvlmbench.budget.rules import Decision, ItemScores, StoppingRule, round_ends

__all__ = ["Outcome", "clustered_scores", "simulate_run", "simulated_scores"]


def simulated_scores(
    accuracies: Mapping[str, float], items: int, seed: int, shared: float = 0.5
) -> list[dict[str, float | None]]:
    """Right (1) or wrong (0) per model and item. Each model is right with its accuracy; with
    chance ``shared`` an item's outcome for every model comes from one uniform draw (an easy
    item is easy for all), otherwise from the model's own, so models agree on more items than
    independent ones would, as real examinees do."""
    rng = random.Random(seed)
    return [_row(rng, accuracies, shared) for _ in range(items)]


def _row(
    rng: random.Random, accuracies: Mapping[str, float], shared: float
) -> dict[str, float | None]:
    common = rng.random()
    same = rng.random() < shared
    return {
        model: float((common if same else rng.random()) < accuracy)
        for model, accuracy in accuracies.items()
    }


def clustered_scores(
    accuracies: Mapping[str, float],
    clusters: int,
    size: int,
    seed: int,
    icc: float = 0.5,
    shared: float = 0.5,
) -> list[list[dict[str, float | None]]]:
    """``clusters`` clusters of ``size`` items each, scored as :func:`simulated_scores` scores
    an item, whose outcomes correlate ``icc`` within a cluster: each cluster draws one row of
    outcomes (every model's) and each of its items takes that row with chance √icc, else draws
    its own. Two items of a cluster then have the same row with chance icc and independent rows
    otherwise, so any model's outcome, and any pair's difference, correlates exactly ``icc``
    between them; each model is still right with its accuracy on every item."""
    if not 0 <= icc <= 1 or size < 1:
        raise ValueError(f"need 0 ≤ icc ≤ 1 and clusters of at least one item, got {icc}, {size}")
    rng = random.Random(seed)
    keep = math.sqrt(icc)
    rows = []
    for _ in range(clusters):
        own = _row(rng, accuracies, shared)
        rows.append(
            [own if rng.random() < keep else _row(rng, accuracies, shared) for _ in range(size)]
        )
    return rows


@dataclass(frozen=True)
class Outcome:
    """How a simulated budgeted run ended."""

    decision: Decision
    items_used: int
    rounds: int


def simulate_run(
    scores: Sequence[ItemScores],
    rule: StoppingRule,
    first: int,
    growth: float = 2.0,
    max_items: int | None = None,
    clusters: Sequence[int] | None = None,
) -> Outcome:
    """Feed ``scores`` (already in draw order) to ``rule`` in rounds until it stops or
    ``max_items`` (the budget; default all) are used. ``clusters``: the sizes of the
    consecutive clusters ``scores`` falls into (None: every item alone); rounds then end
    between clusters, the budget is the whole clusters it affords, and the rule observes
    whole clusters."""
    sizes = [1] * len(scores) if clusters is None else list(clusters)
    if sum(sizes) != len(scores):
        raise ValueError(f"cluster sizes sum to {sum(sizes)}, not the {len(scores)} items")
    order = ClusterOrder.of_sizes(sizes)
    starts = [0, *order.ends]
    cap = len(scores) if max_items is None else order.whole(min(max_items, len(scores)))
    used = 0
    ends = order.snapped(round_ends(cap, first, growth))
    decision = None
    for end in ends:
        rule.observe_clusters(
            [scores[at:stop] for at, stop in pairwise(starts) if used <= at < end]
        )
        used = end
        decision = rule.decide(cap - used)
        if decision.done:
            break
    if decision is None:
        raise ValueError("no items to run on")
    return Outcome(decision, used, ends.index(used) + 1)
