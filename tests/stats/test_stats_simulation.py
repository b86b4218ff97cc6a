"""Coverage and error rates proven on simulated benchmarks with a known truth (fixed seeds).

400 datasets each: a rate's binomial standard error is then about 1.1 points at 95 %, so the
bounds below are about three of them wide; bench/bench_stats.py runs 2,000 with the printed
table the issue asks for.
"""

from __future__ import annotations

import numpy as np

from lvlmbench.stats import (
    adjust_p_values,
    clustered_mean,
    mean_interval,
    paired_difference,
    ppi_mean,
)
from lvlmbench.stats.simulate import simulate_benchmark, simulate_judged

DATASETS = 400


def test_clustered_interval_covers_and_wilson_over_items_does_not() -> None:
    rng = np.random.default_rng(2027)
    clustered = wilson = 0
    for _ in range(DATASETS):
        bench = simulate_benchmark(rng, clusters=30, per_cluster=10, icc=0.5)
        scores, truth = bench.scores[0], bench.truth[0]
        got = clustered_mean(scores, bench.clusters.tolist())
        clustered += got.low <= truth <= got.high
        naive = mean_interval(scores)  # every item its own cluster: Wilson
        wilson += naive.low <= truth <= naive.high
    assert 0.92 <= clustered / DATASETS <= 0.98
    assert wilson / DATASETS < 0.80  # design effect 1 + 9 · 0.5 = 5.5: far too narrow


def test_paired_cluster_bootstrap_keeps_its_false_positive_rate() -> None:
    rng = np.random.default_rng(7)
    rejected = 0
    for seed in range(DATASETS):
        bench = simulate_benchmark(rng, clusters=40, per_cluster=5, differences=(0.0, 0.0))
        ids = [str(i) for i in range(bench.scores.shape[1])]
        a = dict(zip(ids, bench.scores[0].tolist(), strict=True))
        b = dict(zip(ids, bench.scores[1].tolist(), strict=True))
        clusters = dict(zip(ids, bench.clusters.tolist(), strict=True))
        got = paired_difference(a, b, clusters, resamples=1000, seed=seed)
        rejected += got.p_value < 0.05
    assert 0.02 <= rejected / DATASETS <= 0.085


def test_holm_controls_the_family_wise_error_of_ten_equal_models() -> None:
    rng = np.random.default_rng(11)
    any_raw = any_holm = 0
    for _ in range(DATASETS):
        bench = simulate_benchmark(rng, clusters=200, per_cluster=1, differences=(0.0,) * 11)
        ids = [str(i) for i in range(bench.scores.shape[1])]
        baseline = dict(zip(ids, bench.scores[0].tolist(), strict=True))
        p_values = [
            paired_difference(dict(zip(ids, row.tolist(), strict=True)), baseline).p_value
            for row in bench.scores[1:]
        ]
        any_raw += min(p_values) < 0.05
        any_holm += min(adjust_p_values(p_values, "holm")) < 0.05
    assert any_holm / DATASETS <= 0.065
    assert any_raw > 2 * any_holm  # unadjusted, ten tests find "something" far more often


def test_ppi_covers_and_is_narrower_than_humans_alone_with_a_good_judge() -> None:
    rng = np.random.default_rng(5)
    covered = judge_covered = 0
    ppi_width = human_width = 0.0
    for _ in range(DATASETS):
        human, judge_labelled, judge_rest = simulate_judged(rng, items=2000, labels=100)
        got = ppi_mean(human, judge_labelled, judge_rest)
        covered += got.corrected.low <= 0.6 <= got.corrected.high
        judge_covered += got.judge_only.low <= 0.6 <= got.judge_only.high
        ppi_width += got.corrected.high - got.corrected.low
        human_width += got.human_only.high - got.human_only.low
    assert covered / DATASETS >= 0.92
    assert ppi_width < 0.8 * human_width
    assert judge_covered / DATASETS < 0.5  # the raw judge figure is biased: it misses
