"""The anytime-valid paired test and the stopping rules on simulated models of known accuracy:
wrong decisions at most at the stated rate over 200 runs, right ones with a fraction of the
items, and an early stop that keeps the stratified mix."""

from __future__ import annotations

import math
import random
import re

import pytest

from lvlmbench.budget import (
    CompareRule,
    PairedTest,
    RankRule,
    facet_mix,
    simulate_run,
    simulated_scores,
    stratified_order,
)

RUNS = 200
ALPHA = 0.05
# Binomial noise on a rate measured over RUNS runs: three standard errors at α.
MARGIN = 3 * math.sqrt(ALPHA * (1 - ALPHA) / RUNS)


def _compare(accuracies: dict[str, float], items: int, seed: int) -> tuple[str | None, int]:
    """(the model claimed better, or None) and the items used, for one simulated run."""
    scores = simulated_scores(accuracies, items, seed)
    outcome = simulate_run(scores, CompareRule("A", "B", ALPHA), first=50)
    claimed = outcome.decision.order[0] if outcome.decision.answered else None
    return claimed, outcome.items_used


def test_paired_test_ignores_agreement_and_keeps_its_best_wealth() -> None:
    test = PairedTest(ALPHA)
    test.observe([0.0] * 500)
    assert test.verdict == 0 and test.p_value == 1.0
    test.observe([1.0] * 12)
    assert test.verdict == 1 and test.p_value <= ALPHA
    test.observe([-1.0] * 40)  # the wealth falls, but Ville bounds the supremum: the claim stays
    assert test.verdict == 1 and test.mean < 0
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        test.observe([1.5])
    with pytest.raises(ValueError, match="alpha"):
        PairedTest(0.0)


def test_equal_models_are_claimed_different_at_most_at_alpha() -> None:
    wrong = sum(_compare({"A": 0.7, "B": 0.7}, 1500, seed)[0] is not None for seed in range(RUNS))
    assert wrong / RUNS <= ALPHA + MARGIN


def test_looking_after_every_round_with_a_fixed_test_would_break_alpha() -> None:
    """Why the test is anytime-valid: a z-test on the paired differences checked after each
    doubling round, on the same simulated runs, claims a difference far more often than α."""
    wrong = 0
    for seed in range(RUNS):
        scores = simulated_scores({"A": 0.7, "B": 0.7}, 1500, seed)
        diffs = [s["A"] - s["B"] for s in scores]  # type: ignore[operator]
        for end in (50, 100, 200, 400, 800, 1500):
            part = diffs[:end]
            mean = sum(part) / end
            var = sum((d - mean) ** 2 for d in part) / (end - 1)
            if var and abs(mean) / math.sqrt(var / end) > 1.96:
                wrong += 1
                break
    assert wrong / RUNS > 2 * ALPHA


@pytest.mark.parametrize(("gap", "right_at_least", "share_at_most"), [(0.10, 0.95, 0.35)])
def test_a_real_gap_is_found_with_a_fraction_of_the_items(
    gap: float, right_at_least: float, share_at_most: float
) -> None:
    items = 2000
    results = [_compare({"A": 0.6, "B": 0.6 + gap}, items, seed) for seed in range(RUNS)]
    right = sum(claimed == "B" for claimed, _ in results)
    wrong = sum(claimed == "A" for claimed, _ in results)
    used = sum(n for _, n in results) / RUNS
    assert right / RUNS >= right_at_least
    assert wrong / RUNS <= ALPHA + MARGIN
    assert used / items <= share_at_most


def test_ranking_is_right_at_the_stated_rate() -> None:
    truth = ("hi", "mid", "lo")
    accuracies = {"lo": 0.55, "hi": 0.75, "mid": 0.65}
    answered = wrong = 0
    used = 0
    for seed in range(RUNS):
        scores = simulated_scores(accuracies, 3000, seed)
        outcome = simulate_run(scores, RankRule(list(accuracies), ALPHA), first=50)
        used += outcome.items_used
        if outcome.decision.answered:
            answered += 1
            wrong += outcome.decision.order != truth
    assert answered / RUNS >= 0.95
    assert wrong / RUNS <= ALPHA + MARGIN
    assert used / RUNS / 3000 <= 0.5


def test_inseparable_models_stop_early_without_a_claim() -> None:
    stopped_early = claims = 0
    for seed in range(50):
        scores = simulated_scores({"A": 0.7, "B": 0.7, "C": 0.2}, 6000, seed)
        outcome = simulate_run(scores, RankRule(["A", "B", "C"], ALPHA), first=50)
        claims += outcome.decision.answered
        stopped_early += outcome.items_used < 6000
        if not outcome.decision.answered:
            assert "cannot separate" in outcome.decision.text
            assert outcome.decision.unresolved and outcome.decision.order[-1] == "C"
    assert stopped_early >= 40 and claims <= 5


def test_the_budget_caps_the_items_and_says_so() -> None:
    scores = simulated_scores({"A": 0.7, "B": 0.69}, 5000, seed=1)
    outcome = simulate_run(scores, CompareRule("A", "B", ALPHA), first=50, max_items=300)
    assert outcome.items_used <= 300 and not outcome.decision.answered
    assert re.search(r"cannot separate (A and B|B and A) within budget", outcome.decision.text)
    # One round of the whole budget: nothing is left to project over, the budget is spent.
    spent = simulate_run(scores, CompareRule("A", "B", ALPHA), first=300, max_items=300)
    assert spent.items_used == 300 and spent.rounds == 1
    assert "budget is spent" in spent.decision.text


def test_an_early_stop_keeps_the_full_sets_mix() -> None:
    """Strata of very different sizes and accuracies: the items used at the stop hold each
    stratum's share of the full set to within one item."""
    rng = random.Random(0)
    sizes = {"easy": 900, "medium": 450, "hard": 150}
    skill = {"easy": (0.9, 0.8), "medium": (0.7, 0.6), "hard": (0.4, 0.3)}
    strata = {f"{level}-{i}": level for level, size in sizes.items() for i in range(size)}
    order = stratified_order(strata, seed=5)
    scores = []
    for item_id in order:
        a, b = skill[strata[item_id]]
        u = rng.random()
        scores.append({"A": float(u < a), "B": float(u < b)})
    outcome = simulate_run(scores, CompareRule("A", "B", ALPHA), first=25)
    used = outcome.items_used
    assert outcome.decision.order[0] == "A" and used < len(order) / 2
    full, early = facet_mix(order, strata), facet_mix(order[:used], strata)
    for level in sizes:
        assert abs(early[level] - full[level]) <= 1 / used
