"""Simulated battles with an injected length bias: style control recovers the truth, raw
Bradley–Terry does not, and the fitted length coefficient recovers the bias."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lvlmbench.ratings import (
    StyleBattles,
    bradley_terry,
    simulate_style_battles,
    style_bradley_terry,
)

STRENGTHS = {"alpha": 1150, "beta": 1100, "gamma": 1050, "delta": 1000, "eps": 950, "verbose": 900}
"""Elo-scale truth; ``verbose`` is the weakest model but writes by far the longest answers."""
LENGTHS = {"alpha": 80, "beta": 100, "gamma": 130, "delta": 160, "eps": 200, "verbose": 600}
BIAS = 2.0
"""Judge log-odds per unit of (len_a − len_b)/(len_a + len_b): 600 vs 100 tokens is +1.4."""


@pytest.fixture(scope="module")
def battles() -> StyleBattles:
    return simulate_style_battles(
        STRENGTHS,
        LENGTHS,
        matches=12_000,
        length_bias=BIAS,
        # The judge ignores markdown, but verbose also bolds a lot: its coefficient stays ~0.
        markdown={"verbose": (0.5, 3.0, 4.0)},
        seed=3,
    )


def _spearman(fitted: dict[str, float], truth: dict[str, float]) -> float:
    names = sorted(truth)
    ranks = [np.argsort(np.argsort([d[n] for n in names])) for d in (fitted, truth)]
    return float(np.corrcoef(ranks[0], ranks[1])[0, 1])


def _rmse(fitted: dict[str, float], truth: dict[str, float]) -> float:
    return math.sqrt(sum((fitted[m] - truth[m]) ** 2 for m in truth) / len(truth))


def test_simulation_is_what_it_claims(battles: StyleBattles) -> None:
    assert len(battles.matches) == 12_000
    assert battles.features_a.shape == (12_000, 4)
    ties = sum(o == 0.5 for _, _, o in battles.matches) / len(battles.matches)
    assert 0.07 < ties < 0.13
    assert sum(battles.true_ratings.values()) / len(STRENGTHS) == pytest.approx(1000.0)
    verbose = [
        fa[0]
        for (a, _, _), fa in zip(battles.matches, battles.features_a, strict=True)
        if a == "verbose"
    ]
    assert np.median(verbose) == pytest.approx(600, rel=0.05)


def test_raw_ratings_are_fooled_by_length(battles: StyleBattles) -> None:
    raw = bradley_terry(battles.matches)
    truth = battles.true_ratings
    assert raw["verbose"] - truth["verbose"] > 100  # the weakest model rises...
    assert raw["verbose"] > raw["gamma"]  # ...past better, shorter ones
    assert _spearman(raw, truth) < 0.9
    assert _rmse(raw, truth) > 50


def test_controlled_ratings_recover_the_true_strengths(battles: StyleBattles) -> None:
    fitted = style_bradley_terry(
        battles.matches, battles.features_a, battles.features_b, rounds=300, seed=1
    )
    truth = battles.true_ratings
    assert _spearman(fitted.ratings, truth) == pytest.approx(1.0)
    assert _rmse(fitted.ratings, truth) < 15
    covered = sum(fitted.intervals[m].low <= truth[m] <= fitted.intervals[m].high for m in truth)
    assert covered >= len(truth) - 1


def test_length_coefficient_recovers_the_injected_bias(battles: StyleBattles) -> None:
    fitted = style_bradley_terry(
        battles.matches, battles.features_a, battles.features_b, rounds=300, seed=2
    )
    scale = fitted.feature_scales["tokens"]
    interval = fitted.coefficient_intervals["tokens"]
    # Coefficients are per RMS difference; the injected bias is per unit difference.
    assert interval.low / scale <= BIAS <= interval.high / scale
    assert fitted.coefficients["tokens"] / scale == pytest.approx(BIAS, rel=0.1)
    for ignored in ("headers", "list_items", "bold"):
        low, high = (
            fitted.coefficient_intervals[ignored].low,
            fitted.coefficient_intervals[ignored].high,
        )
        assert low < 0.1 and high > -0.1
        assert abs(fitted.coefficients[ignored]) < 0.1


def test_without_the_bias_both_fits_agree() -> None:
    fair = simulate_style_battles(STRENGTHS, LENGTHS, matches=6_000, length_bias=0.0, seed=4)
    raw = bradley_terry(fair.matches)
    fitted = style_bradley_terry(fair.matches, fair.features_a, fair.features_b, rounds=100)
    assert (
        fitted.coefficient_intervals["tokens"].low < 0 < fitted.coefficient_intervals["tokens"].high
    )
    for model, rating in raw.items():
        assert fitted.ratings[model] == pytest.approx(rating, abs=25)


def test_simulation_rejects_mismatched_models() -> None:
    with pytest.raises(ValueError, match="two or more models"):
        simulate_style_battles({"a": 1.0, "b": 2.0}, {"a": 10}, matches=10, length_bias=0.0)
