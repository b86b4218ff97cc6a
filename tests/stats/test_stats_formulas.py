"""Each estimator on a small case worked by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lvlmbench.ratings import bradley_terry
from lvlmbench.stats import (
    CLUSTER_BOOTSTRAP,
    CLUSTERED_T,
    MCNEMAR_CHI2,
    MCNEMAR_EXACT,
    PAIRED_BOOTSTRAP,
    PAIRED_CLUSTERED_T,
    PPI,
    PPI_PLUS_PLUS,
    WILSON,
    NotEnoughClusters,
    adjust_p_values,
    benjamini_hochberg,
    cluster_bootstrap,
    clustered_mean,
    holm,
    item_means,
    items_needed,
    mcnemar,
    mean_interval,
    paired_bootstrap,
    paired_difference,
    ppi_mean,
    rank_intervals,
)
from lvlmbench.stats._distributions import t_quantile


def test_t_quantiles_match_the_printed_tables() -> None:
    # Student t 97.5 % points from any table: df 1, 2, 4, 29.
    assert t_quantile(0.975, 1) == pytest.approx(12.7062047, abs=1e-6)
    assert t_quantile(0.975, 2) == pytest.approx(4.3026527, abs=1e-6)
    assert t_quantile(0.975, 4) == pytest.approx(2.7764451, abs=1e-6)
    assert t_quantile(0.025, 29) == pytest.approx(-2.0452296, abs=1e-6)


def test_clustered_mean_three_clusters_by_hand() -> None:
    # Items 1,0 | 1,1 | 0 in clusters A, B, C. Mean 3/5 = 0.6. Residual sums per cluster:
    # A: 0.4 - 0.6 = -0.2; B: 0.4 + 0.4 = 0.8; C: -0.6. Σ² = 0.04 + 0.64 + 0.36 = 1.04.
    # CR1 variance = G/(G-1) · Σ² / N² = 3/2 · 1.04 / 25 = 0.0624; se = 0.2497999.
    # t(0.975, df=2) = 4.3026527, half width = 1.0748017.
    got = clustered_mean([1, 0, 1, 1, 0], list("AABBC"), cluster="picture")
    assert got.estimate == pytest.approx(0.6)
    assert got.std_error == pytest.approx(math.sqrt(0.0624))
    assert (got.low, got.high) == pytest.approx((0.6 - 1.0748017, 0.6 + 1.0748017), abs=1e-6)
    assert (got.n_items, got.n_clusters, got.method, got.cluster) == (5, 3, CLUSTERED_T, "picture")


def test_clustered_interval_is_wider_than_the_item_one_when_clusters_agree_within() -> None:
    scores = [1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    clustered = clustered_mean(scores, [i // 3 for i in range(12)])
    alone = clustered_mean(scores, None)
    assert clustered.high - clustered.low > 2 * (alone.high - alone.low)
    assert alone.n_clusters == 12 and clustered.n_clusters == 4


def test_one_cluster_is_refused_not_given_a_zero_width_interval() -> None:
    with pytest.raises(NotEnoughClusters, match="at least 2 clusters"):
        clustered_mean([1, 0, 1], ["x", "x", "x"])


def test_mean_interval_is_wilson_for_unclustered_binary_scores() -> None:
    # 3 of 5, z = 1.959964: centre (0.6 + z²/10)/(1 + z²/5) = 0.556546,
    # half z·sqrt(0.24/5 + z²/100)/(1 + z²/5) = 0.325828.
    got = mean_interval([1, 1, 1, 0, 0])
    assert got.method == WILSON
    assert (got.low, got.high) == pytest.approx((0.230718, 0.882374), abs=1e-5)
    assert mean_interval([1, 0.5, 0]).method == CLUSTERED_T  # not binary: the t interval
    assert mean_interval([1, 1, 0, 0], ["a", "a", "b", "b"]).method == CLUSTERED_T


def test_epochs_average_within_the_item_before_anything_else() -> None:
    # Item a answered right 1 of 2 epochs, b 2 of 2: two items, means 0.5 and 1.
    assert item_means([("a", 1.0), ("b", 1.0), ("a", 0.0), ("b", 1.0)]) == {"a": 0.5, "b": 1.0}


def test_mcnemar_exact_and_chi_square_by_hand() -> None:
    # 2 against 8 discordant: 2 · P(X ≤ 2 | n=10, ½) = 2 · (1 + 10 + 45)/1024 = 0.109375.
    exact = mcnemar(2, 8)
    assert (exact.p_value, exact.method) == (pytest.approx(0.109375), MCNEMAR_EXACT)
    # 20 against 10: (|20 - 10| - 1)² / 30 = 2.7; P(χ²₁ > 2.7) = erfc(√1.35) = 0.1003482.
    chi = mcnemar(20, 10)
    assert (chi.p_value, chi.method) == (pytest.approx(0.1003482, abs=1e-6), MCNEMAR_CHI2)


def test_paired_difference_counts_the_items_only_one_model_answered() -> None:
    a = {"q1": 1.0, "q2": 1.0, "q3": 0.0, "q4": 1.0, "only_a": 1.0}
    b = {"q1": 0.0, "q2": 1.0, "q3": 0.0, "q4": 0.0, "only_b": 0.0, "only_b2": 1.0}
    got = paired_difference(a, b)
    # Shared q1..q4: differences 1, 0, 0, 1, mean 0.5; discordant 2 vs 0: p = 2 · 1/4 = 0.5.
    assert got.difference.estimate == pytest.approx(0.5)
    assert (got.only_a, got.only_b, got.difference.n_items) == (1, 2, 4)
    assert (got.test, got.p_value) == (MCNEMAR_EXACT, pytest.approx(0.5))


def test_paired_difference_with_clusters_bootstraps_whole_clusters() -> None:
    # Cluster differences: A: (1 + 1)/2, B: (0 + 0)/2, C: (1 + 0)/2 -> mean 3/6 = 0.5. A
    # resample's mean is a share of the cluster sums {2, 0, 1} over 6 items: always one of
    # k/6 in [0, 1]; its deviation from 0.5 is then scaled by √(G/(G-1)) = √1.5.
    a = {f"q{i}": s for i, s in enumerate([1.0, 1.0, 0.0, 1.0, 1.0, 0.0])}
    b = {f"q{i}": s for i, s in enumerate([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])}
    clusters = {f"q{i}": c for i, c in enumerate("AABBCC")}
    got = paired_difference(a, b, clusters, cluster="picture", resamples=500, seed=3)
    assert got.test == PAIRED_BOOTSTRAP and got.difference.cluster == "picture"
    assert got.difference.estimate == pytest.approx(0.5)
    for bound in (got.difference.low, got.difference.high):
        unscaled = 0.5 + (bound - 0.5) / math.sqrt(1.5)
        assert 0.0 <= unscaled <= 1.0
        assert unscaled * 6 == pytest.approx(round(unscaled * 6))
    assert got.difference.low < 0.5 < got.difference.high
    assert got.difference.n_clusters == 3
    assert 0.0 < got.p_value <= 1.0
    again = paired_difference(a, b, clusters, cluster="picture", resamples=500, seed=3)
    assert again == got
    # The analytic test on the same pairs: residual sums A 1, B -1, C 0, Σ² = 2; CR1 variance
    # 3/2 · 2/36 = 1/12, t = 0.5/√(1/12) = √3 on 2 df: P(|T| > √3) = 1 - √3/√5 = 0.2254033.
    analytic = paired_difference(a, b, clusters, test="t")
    assert analytic.test == PAIRED_CLUSTERED_T
    assert analytic.p_value == pytest.approx(1 - math.sqrt(3 / 5), abs=1e-9)


def test_paired_difference_names_an_item_without_a_cluster() -> None:
    with pytest.raises(ValueError, match="item 'q2' has no cluster \\(picture\\)"):
        paired_difference(
            {"q1": 1.0, "q2": 0.5}, {"q1": 0.0, "q2": 0.5}, {"q1": "A"}, cluster="picture"
        )


def test_holm_and_benjamini_hochberg_by_hand() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> max-so-far 0.06.
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # BH: 0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04 (min from the top).
    assert benjamini_hochberg(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert adjust_p_values(p) == holm(p)
    assert adjust_p_values([0.6, 0.7], "holm") == [1.0, 1.0]  # capped at 1
    with pytest.raises(ValueError, match="unknown adjustment"):
        adjust_p_values(p, "bonferroni")  # type: ignore[arg-type]


def test_ppi_by_hand() -> None:
    # Human 1,0,1,1; judge on them 1,0,0,1; judge on 4 unlabelled items 1,1,0,0.
    # PPI: 0.75 + (0.5 - 0.5) = 0.75; Var = Var(y - f)/4 + Var(f_u)/4 = 0.25/4 + (1/3)/4
    #   = 0.1458333, half width t(0.975, 3 df) · 0.3818813 = 3.1824463 · 0.3818813 = 1.2153168.
    plain = ppi_mean([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 0], tuned=False)
    assert plain.corrected.method == PPI and plain.weight == 1.0
    assert plain.corrected.estimate == pytest.approx(0.75)
    assert plain.corrected.high - 0.75 == pytest.approx(1.2153168, abs=1e-6)
    # PPI++: Cov(y, f) = (0.125 + 0.375 - 0.125 + 0.125)/3 = 1/6, Var(f) = 1/3,
    # λ = (1/6) / ((1 + 4/4) · 1/3) = 0.25.
    tuned = ppi_mean([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 0])
    assert tuned.corrected.method == PPI_PLUS_PLUS
    assert tuned.weight == pytest.approx(0.25)
    assert tuned.labels == 4 and tuned.human_only.estimate == pytest.approx(0.75)
    assert tuned.judge_only.estimate == pytest.approx(4 / 8)


def test_cluster_bootstrap_of_a_median_names_its_method() -> None:
    scores = np.array([0.1, 0.2, 0.9, 0.8, 0.5, 0.4])
    got, values = cluster_bootstrap(
        lambda idx: float(np.median(scores[idx])), list("AABBCC"), 6, cluster="picture"
    )
    assert got.estimate == pytest.approx(0.45)
    assert got.method == CLUSTER_BOOTSTRAP and got.n_clusters == 3 and values.size == 2000
    # A resample's median lies within the data's range; the CR1 factor √(3/2) then widens it.
    for bound in (got.low, got.high):
        assert 0.1 <= 0.45 + (bound - 0.45) / math.sqrt(1.5) <= 0.9
    assert got.low < 0.45 < got.high


def test_paired_bootstrap_of_a_bradley_terry_difference_reuses_ratings() -> None:
    matches = [("A", "B", 1.0)] * 6 + [("A", "B", 0.0)] * 3 + [("A", "C", 1.0), ("C", "A", 1.0)]
    matches += [("B", "C", 1.0), ("C", "B", 1.0)]

    def gap(idx: np.ndarray) -> float:
        ratings = bradley_terry([matches[i] for i in idx], l2=1.0)
        return ratings["A"] - ratings["B"]

    clusters = [i // 2 for i in range(len(matches))]  # two matches per item
    got = paired_bootstrap(gap, clusters, len(matches), cluster="item", resamples=200)
    whole = bradley_terry(matches, l2=1.0)
    assert got.difference.estimate == pytest.approx(whole["A"] - whole["B"])
    assert got.difference.method == PAIRED_BOOTSTRAP and got.difference.low < got.difference.high


def test_rank_intervals_separate_clear_models_and_tie_equal_ones() -> None:
    rng = np.random.default_rng(1)
    strong = (rng.random(300) < 0.9).astype(float)
    weak = (rng.random(300) < 0.2).astype(float)
    twin = (rng.random(300) < 0.5).astype(float)
    twin2 = twin.copy()  # the same total, ten items swapped: an even race
    ones, zeros = np.flatnonzero(twin == 1)[:5], np.flatnonzero(twin == 0)[:5]
    twin2[ones], twin2[zeros] = 0.0, 1.0
    got = {r.model: r for r in rank_intervals(["s", "w", "t", "t2"], [strong, weak, twin, twin2])}
    assert (got["s"].low, got["s"].high, got["s"].tied_with) == (1, 1, ())
    assert (got["w"].low, got["w"].high) == (4, 4)
    assert got["t"].tied_with == ("t2",) and got["t2"].tied_with == ("t",)
    assert (got["t"].low, got["t"].high, got["t2"].low, got["t2"].high) == (2, 3, 2, 3)
    assert got["t"].rank == got["t2"].rank == 2  # equal means share a rank


def test_items_needed_by_hand() -> None:
    # Differences 1, 0, -1, 0 unclustered: mean 0, Σe² = 2, CR1 variance = 4/3 · 2/16 = 1/6,
    # one item's share 4 · 1/6 = 2/3. (1.959964 + 0.841621)² = 7.848879; · (2/3) / 0.1² =
    # 523.26 -> 524 items, 520 more than the 4 we have.
    plan = items_needed([1, 0, -1, 0], difference=0.1)
    assert plan.item_variance == pytest.approx(2 / 3)
    assert (plan.items_needed, plan.items_now, plan.more_needed) == (524, 4, 520)
    # The same differences in two clusters that agree within: far more items are needed.
    clustered = items_needed([1, 1, -1, -1], ["a", "a", "b", "b"], difference=0.1)
    assert clustered.items_needed > 2 * plan.items_needed


def test_distributions_agree_with_scipy() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    from lvlmbench.stats._distributions import binomial_two_sided, t_sf

    for df in (1, 3, 7, 30, 500):
        assert t_quantile(0.9, df) == pytest.approx(scipy_stats.t.ppf(0.9, df), rel=1e-9)
        assert t_sf(1.7, df) == pytest.approx(scipy_stats.t.sf(1.7, df), rel=1e-9)
    for k, n in ((0, 5), (3, 17), (11, 24)):
        expected = scipy_stats.binomtest(k, n).pvalue
        assert binomial_two_sided(k, n) == pytest.approx(expected, rel=1e-9)
