"""Cluster-robust PPI: a hand-worked case and its coverage in simulation (fixed seeds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lvlmbench.stats import CLUSTERED_T, PPI_PLUS_PLUS, NotEnoughClusters, ppi_mean
from lvlmbench.stats.simulate import simulate_clustered_judged

# Ten items in three clusters, four of them labelled by people:
#   labelled (cluster, human, judge): (A,1,1) (A,0,0) (B,1,1) (C,1,0)
#   unlabelled judge scores:          A: 1,1   B: 1,0   C: 0,1
HUMAN = [1.0, 0.0, 1.0, 1.0]
JUDGE_LABELLED = [1.0, 0.0, 1.0, 0.0]
JUDGE_REST = [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
CLUSTERS = (["A", "A", "B", "C"], ["A", "A", "B", "B", "C", "C"])


def test_clustered_ppi_by_hand() -> None:
    # ȳ = 0.75, f̄_L = 0.5, f̄_U = 4/6. λ (item-level PPI++): Cov(y, f) = 0.5/3 = 1/6,
    # Var(f) = 1/3, λ = (1/6) / ((1 + 4/6) · 1/3) = 0.3. θ̂ = 0.75 + 0.3 · (2/3 − 1/2) = 0.8.
    # Per cluster A_g = Σ(y − ȳ)/4: A −0.125, B 0.0625, C 0.0625;
    # B_g = Σ_L(f − f̄_L)/4 − Σ_U(f − f̄_U)/6: A 0 − 1/9, B 0.125 + 1/18, C −0.125 + 1/18;
    # A_g − λB_g = −11/120, 1/120, 10/120; Σ² = 222/14400; × G_L/(G_L − 1) = 3/2 → 333/14400;
    # se = 0.1520691, half width t(0.975, 2 df) · se = 4.3026527 · 0.1520691 = 0.6543006.
    got = ppi_mean(HUMAN, JUDGE_LABELLED, JUDGE_REST, clusters=CLUSTERS, cluster="fine aspect")
    assert got.weight == pytest.approx(0.3)
    assert got.corrected.estimate == pytest.approx(0.8)
    assert got.corrected.std_error == pytest.approx(math.sqrt(333 / 14400))
    assert got.corrected.high - 0.8 == pytest.approx(0.6543006, abs=1e-6)
    corrected = got.corrected
    assert (corrected.method, corrected.cluster) == (PPI_PLUS_PLUS, "fine aspect")
    assert (corrected.n_items, corrected.n_clusters, got.labels) == (10, 3, 4)
    # Judge only: 6/10 with cluster sums of deviations 0.6, 0.2, −0.8:
    # Var = 3/2 · 1.04 / 100 = 0.0156. People only: 0.75, sums −0.5, 0.25, 0.25:
    # Var = 3/2 · 0.375 / 16 = 0.03515625. Both clustered-t, named alike.
    assert got.judge_only.estimate == pytest.approx(0.6)
    assert got.judge_only.std_error == pytest.approx(math.sqrt(0.0156))
    assert got.human_only.std_error == pytest.approx(math.sqrt(0.03515625))
    assert got.human_only.method == got.judge_only.method == CLUSTERED_T
    # The item-level interval on the same numbers: Var(y − 0.3f)/4 + 0.09 · Var(f_u)/6
    # = 0.18/4 + 0.09 · (4/15)/6 = 0.049.
    plain = ppi_mean(HUMAN, JUDGE_LABELLED, JUDGE_REST)
    assert plain.corrected.estimate == pytest.approx(0.8)
    assert plain.corrected.std_error == pytest.approx(math.sqrt(0.049))


def test_clustered_ppi_refuses_labels_in_one_cluster() -> None:
    with pytest.raises(NotEnoughClusters, match="at least 2 clusters"):
        ppi_mean([1, 0], [1, 1], [0, 1, 1], clusters=(["A", "A"], ["A", "B", "B"]))
    with pytest.raises(ValueError, match="one cluster per labelled"):
        ppi_mean([1, 0], [1, 1], [0, 1], clusters=(["A", "B"], ["A"]))


def test_clustered_ppi_covers_where_the_item_level_one_does_not() -> None:
    # 40 fine aspects × 50 items, intra-cluster correlation 0.5, 100 labels at random, a judge
    # right 85 % of the time whose errors lean alike within an aspect.
    rng = np.random.default_rng(3)
    datasets = 400
    clustered = item_level = 0
    for _ in range(datasets):
        s = simulate_clustered_judged(rng)
        clusters = (s.clusters_labelled, s.clusters_unlabelled)
        got = ppi_mean(s.human, s.judge_labelled, s.judge_unlabelled, clusters=clusters)
        clustered += got.corrected.low <= 0.6 <= got.corrected.high
        naive = ppi_mean(s.human, s.judge_labelled, s.judge_unlabelled)
        item_level += naive.corrected.low <= 0.6 <= naive.corrected.high
    assert 0.93 <= clustered / datasets <= 0.98
    assert item_level / datasets < 0.75  # the judge's mean over clustered items is not N-precise
