"""Simulated models of known accuracy, and a budgeted run over their scores: what the tests
and ``bench/bench_budget.py`` check the stopping rules against (the right decision at the
stated rate, with a fraction of the items)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lvlmbench.budget.rules import Decision, ItemScores, StoppingRule, round_ends

__all__ = ["Outcome", "simulate_run", "simulated_scores"]


def simulated_scores(
    accuracies: Mapping[str, float], items: int, seed: int, shared: float = 0.5
) -> list[dict[str, float | None]]:
    """Right (1) or wrong (0) per model and item. Each model is right with its accuracy; with
    chance ``shared`` an item's outcome for every model comes from one uniform draw (an easy
    item is easy for all), otherwise from the model's own, so models agree on more items than
    independent ones would, as real examinees do."""
    rng = random.Random(seed)
    rows: list[dict[str, float | None]] = []
    for _ in range(items):
        common = rng.random()
        same = rng.random() < shared
        rows.append(
            {
                model: float((common if same else rng.random()) < accuracy)
                for model, accuracy in accuracies.items()
            }
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
) -> Outcome:
    """Feed ``scores`` (already in draw order) to ``rule`` in rounds until it stops or
    ``max_items`` (the budget; default all) are used."""
    cap = len(scores) if max_items is None else min(max_items, len(scores))
    used = 0
    ends = round_ends(cap, first, growth)
    decision = None
    for end in ends:
        rule.observe(scores[used:end])
        used = end
        decision = rule.decide(cap - used)
        if decision.done:
            break
    if decision is None:
        raise ValueError("no items to run on")
    return Outcome(decision, used, ends.index(used) + 1)
