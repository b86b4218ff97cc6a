"""Weighted matches: one of K epochs' verdicts on an item weighs 1/K in win rates, Bradley-Terry
and online Elo, so the item is the unit (``judge --epochs K``); unweighted figures are as
they were."""

from __future__ import annotations

import pytest

from lvlmbench.ratings import (
    bradley_terry_bootstrap,
    category_win_rates,
    elo_ratings,
    win_rates_vs_reference,
)

REF = "reference"


def test_weighted_win_rate_counts_items_and_its_interval_is_over_items() -> None:
    # Two items, two epochs each: item 1 won once and lost once, item 2 won twice.
    matches = [("m", REF, 1.0), ("m", REF, 0.0), ("m", REF, 1.0), (REF, "m", 0.0)]
    rate = win_rates_vs_reference(matches, REF, weights=[0.5] * 4)["m"]
    assert (rate.wins, rate.losses, rate.ties, rate.matches) == (1.5, 0.5, 0, 2)
    assert rate.rate == 0.75
    # Wilson at p = 0.75 over n = 2 items (z 1.96): centre (0.75 + 0.9604) / 2.9208,
    # half 1.96 * sqrt(0.75 * 0.25 / 2 + 0.2401) / 2.9208.
    assert rate.interval.low == pytest.approx(0.19786, abs=1e-5)
    assert rate.interval.high == pytest.approx(0.97332, abs=1e-5)
    # Unweighted, the four verdicts would pass for four items: a narrower interval.
    as_items = win_rates_vs_reference(matches, REF)["m"]
    assert (as_items.wins, as_items.matches) == (3, 4)
    assert as_items.interval.low == pytest.approx(0.30064, abs=1e-5)


def test_category_win_rates_carry_each_match_weight() -> None:
    matches = [("m", REF, 1.0, "x"), ("m", REF, 0.0, "x"), ("m", REF, 1.0, "y")]
    rates = category_win_rates(matches, REF, weights=[0.5, 0.5, 1.0])
    assert (rates["x"]["m"].rate, rates["x"]["m"].matches) == (0.5, 1)
    assert (rates["y"]["m"].rate, rates["y"]["m"].matches) == (1.0, 1)


def test_unweighted_win_counts_stay_whole_numbers() -> None:
    rate = win_rates_vs_reference([("m", REF, 1.0), ("m", REF, 0.5)], REF)["m"]
    assert (rate.wins, rate.ties, rate.matches) == (1, 1, 2)
    assert all(isinstance(n, int) for n in (rate.wins, rate.losses, rate.ties))


def test_k_agreeing_epochs_weighted_one_over_k_are_one_match_in_bradley_terry() -> None:
    once = [("a", "b", 1.0), ("a", "b", 0.0), ("a", "b", 1.0), ("b", "c", 1.0), ("c", "b", 1.0)]
    once += [("a", "c", 1.0), ("c", "a", 1.0), ("a", "c", 0.5)]
    twice = [m for m in once for _ in range(2)]
    single = bradley_terry_bootstrap(once, rounds=50, seed=3, l2=1.0)
    halves = bradley_terry_bootstrap(twice, rounds=50, seed=3, l2=1.0, weights=[0.5] * len(twice))
    assert halves.ratings == pytest.approx(single.ratings)
    # The bootstrap draws as many matches as the weights sum to: the same draws.
    for player in single.ratings:
        assert halves.intervals[player].low == pytest.approx(single.intervals[player].low)
        assert halves.intervals[player].high == pytest.approx(single.intervals[player].high)
    # Unweighted, the copies would pass for twice the evidence: narrower intervals.
    doubled = bradley_terry_bootstrap(twice, rounds=50, seed=3, l2=1.0)
    width = {p: i.high - i.low for p, i in single.intervals.items()}
    assert all(doubled.intervals[p].high - doubled.intervals[p].low < width[p] for p in width)


def test_a_weighted_match_moves_online_elo_by_its_share_of_k() -> None:
    # Even ratings: expected 0.5, so a full match moves 4 * 0.5 = 2 points, half a match 1.
    assert elo_ratings([("a", "b", 1.0)], weights=[0.5]) == {"a": 1001.0, "b": 999.0}
    assert elo_ratings([("a", "b", 1.0)]) == {"a": 1002.0, "b": 998.0}


@pytest.mark.parametrize("weights", [[0.5], [0.5, 0.0], [0.5, 1.5]])
def test_weights_must_be_one_per_match_within_0_and_1(weights: list[float]) -> None:
    matches = [("m", REF, 1.0), ("m", REF, 0.0)]
    with pytest.raises(ValueError, match="match weights"):
        win_rates_vs_reference(matches, REF, weights=weights)
    with pytest.raises(ValueError, match="match weights"):
        bradley_terry_bootstrap(matches, rounds=2, weights=weights, l2=1.0)
    with pytest.raises(ValueError, match="match weights"):
        elo_ratings(matches, weights=weights)
