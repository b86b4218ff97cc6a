"""The cluster as the sequential test's unit: whole clusters drawn in a stratified order, one
bounded value per cluster, unclustered runs unchanged bit for bit, and by simulation (ICC 0.5,
two equal models) the per-item rule's false claims above α where the cluster rule's stay
below it."""

from __future__ import annotations

import math
import random
import re

import pytest

from lvlmbench.budget import (
    MIXED,
    ClusterOrder,
    CompareRule,
    RankRule,
    cluster_order,
    clustered_scores,
    simulate_run,
    simulated_scores,
    stratified_order,
)

ALPHA = 0.05
RUNS = 300
CLUSTERS, SIZE = 150, 10


def _aspects() -> tuple[dict[str, tuple[str, str, str]], dict[str, str]]:
    """AutoBench-V-like items: 12 fine aspects (3 per general aspect of 2 capabilities), each
    with 2 items per level of 3; the cluster is the fine aspect, so levels vary within it."""
    strata, clusters = {}, {}
    for cap in ("count", "space"):
        for general in ("objects", "depth"):
            for fine in range(3):
                for level in ("easy", "medium", "hard"):
                    for k in range(2):
                        item = f"{cap}-{general}-{fine}-{level}-{k}"
                        strata[item] = (cap, general, level)
                        clusters[item] = f"{cap}|{general}|{fine}"
    return strata, clusters


def test_clusters_come_whole_in_a_stratified_seeded_order() -> None:
    strata, clusters = _aspects()
    order = cluster_order(strata, clusters, seed=7, unit="fine aspect")
    assert sorted(order.items) == sorted(strata) and len(order.clusters) == 12
    for cluster in order.clusters:  # whole and contiguous: one key per run of items
        assert len(cluster) == 6 and len({clusters[i] for i in cluster}) == 1
    assert order.largest == 6 and order.ends == list(range(6, 73, 6))
    # Stratified by what a cluster's items share (capability, general aspect; levels mixed):
    # every 4 clusters hold one of each of the 4 strata.
    for start in range(0, 12, 4):
        shared = {strata[c[0]][:2] for c in order.clusters[start : start + 4]}
        assert len(shared) == 4
    assert cluster_order(dict(reversed(strata.items())), clusters, 7, "fine aspect") == order
    assert cluster_order(strata, clusters, seed=8, unit="fine aspect") != order
    assert MIXED == "*"


def test_unclustered_items_keep_the_per_item_order() -> None:
    strata = {f"q{i:03d}": ("colour", ("hue", "shade")[i % 2], "easy") for i in range(90)}
    alone = {i: f"item:{i}" for i in strata}
    assert cluster_order(strata, alone, seed=3).items == stratified_order(strata, seed=3)
    assert cluster_order(strata, None, seed=3).items == stratified_order(strata, seed=3)


def test_rounds_end_between_clusters_and_a_budget_buys_whole_clusters() -> None:
    order = ClusterOrder.of_sizes([3, 5, 2, 4, 6])
    assert order.ends == [3, 8, 10, 14, 20]
    assert order.snapped([1, 2, 4, 8, 16, 20]) == [3, 8, 20]
    assert order.whole(13) == 10 and order.whole(2) == 0
    assert order.split(["3", "4", "5", "6", "7", "8", "9"]) == [
        ["3", "4", "5", "6", "7"],
        ["8", "9"],
    ]
    # Every item alone: the rounds are the per-item ones.
    assert ClusterOrder.of_sizes([1] * 9).snapped([2, 4, 8, 9]) == [2, 4, 8, 9]


def test_one_value_per_cluster_hand_worked() -> None:
    """Clusters of 4, 2 and 3 items (largest 4): A − B per item (1, 1, 0, −1), (1, 1), (0, 0, 0).
    The test gets Σ/4 per cluster: 0.25, 0.5, 0.0; the means stay item-weighted (A 6/9)."""
    rule = CompareRule("A", "B", ALPHA, unit="fine aspect", largest=4)
    a = ((1, 1, 1, 0), (1, 1), (1, 0, 0))
    b = ((0, 0, 1, 1), (0, 0), (1, 0, 0))
    rule.observe_clusters(
        [
            [{"A": float(x), "B": float(y)} for x, y in zip(ca, cb, strict=True)]
            for ca, cb in zip(a, b, strict=True)
        ]
    )
    test = rule.tests["A", "B"]
    assert test.n == 3 and test.total == pytest.approx(0.75)
    assert test.squares == pytest.approx(0.25**2 + 0.5**2)
    assert rule.paired["A", "B"] == 9 and rule.clusters == 3
    assert rule.mean("A") == pytest.approx(6 / 9) and rule.mean("B") == pytest.approx(3 / 9)
    decision = rule.decide(remaining=100)
    assert not decision.done and decision.unit == "fine aspect" and decision.clusters == 3
    assert "+33.3 points on 9 paired items (" in decision.text
    assert "anytime-valid paired test over 3 fine-aspect clusters, α = 0.05" in decision.text
    with pytest.raises(ValueError, match="more than the largest"):
        rule.observe_clusters([[{"A": 1.0, "B": 0.0}] * 5])


def test_clusters_of_one_give_the_per_item_run_bit_for_bit() -> None:
    for seed in range(5):
        scores = simulated_scores({"A": 0.72, "B": 0.65, "C": 0.6}, 1200, seed)
        plain = simulate_run(scores, RankRule(["A", "B", "C"], ALPHA), first=40)
        ones = simulate_run(scores, RankRule(["A", "B", "C"], ALPHA), first=40, clusters=[1] * 1200)
        assert ones == plain
        compare = simulate_run(scores, CompareRule("A", "B", ALPHA), first=40, max_items=500)
        assert (
            simulate_run(
                scores, CompareRule("A", "B", ALPHA), first=40, max_items=500, clusters=[1] * 1200
            )
            == compare
        )
        assert "cluster" not in compare.decision.text and compare.decision.unit == "item"


def test_simulated_clusters_correlate_as_asked() -> None:
    """Within-cluster correlation of one model's outcomes ≈ 0.5, accuracy ≈ its own."""
    rows = clustered_scores({"A": 0.7, "B": 0.6}, 4000, 2, seed=1, icc=0.5)
    first = [c[0]["A"] for c in rows]
    second = [c[1]["A"] for c in rows]
    p = (sum(first) + sum(second)) / 8000  # type: ignore[arg-type]
    cov = sum((x - p) * (y - p) for x, y in zip(first, second, strict=True)) / 4000  # type: ignore[operator]
    assert abs(cov / (p * (1 - p)) - 0.5) < 0.05
    assert abs(p - 0.7) < 0.02
    assert abs(sum(c[0]["B"] for c in rows) / 4000 - 0.6) < 0.03  # type: ignore[misc]


def _false_claims(seed: int) -> tuple[bool, bool]:
    """(per-item rule claimed, cluster rule claimed) on one simulated benchmark of two equal
    models: the per-item rule sees the items interleaved as a per-item stratified draw does."""
    rows = clustered_scores({"A": 0.7, "B": 0.7}, CLUSTERS, SIZE, seed, icc=0.5)
    items = [row for cluster in rows for row in cluster]
    interleaved = items[:]
    random.Random(seed).shuffle(interleaved)
    per_item = simulate_run(interleaved, CompareRule("A", "B", ALPHA), first=50)
    clustered = simulate_run(
        items,
        CompareRule("A", "B", ALPHA, unit="fine aspect", largest=SIZE),
        first=50,
        clusters=[SIZE] * CLUSTERS,
    )
    assert clustered.items_used % SIZE == 0  # a stop never leaves a cluster half-asked
    return per_item.decision.answered, clustered.decision.answered


def test_the_cluster_rule_keeps_alpha_where_the_per_item_rule_breaks_it() -> None:
    """ICC 0.5 in clusters of 10: the per-item e-process, whose Ville bound needs independent
    items, claims a difference between equal models about 20 % of the time (4 standard errors
    above 2α over 300 runs); the cluster rule stays at or below α."""
    claims = [_false_claims(seed) for seed in range(RUNS)]
    per_item = sum(p for p, _ in claims) / RUNS
    clustered = sum(c for _, c in claims) / RUNS
    assert per_item > 2 * ALPHA
    assert clustered <= ALPHA


def test_the_cluster_rule_still_finds_a_real_gap() -> None:
    """20 points apart, ICC 0.5: right every time or nearly, on well under the full 1,500
    items (about 850: a clustered benchmark holds fewer independent draws than items)."""
    right = used = 0
    for seed in range(60):
        rows = clustered_scores({"A": 0.8, "B": 0.6}, CLUSTERS, SIZE, seed, icc=0.5)
        outcome = simulate_run(
            [row for cluster in rows for row in cluster],
            CompareRule("A", "B", ALPHA, unit="fine aspect", largest=SIZE),
            first=50,
            clusters=[SIZE] * CLUSTERS,
        )
        right += outcome.decision.answered and outcome.decision.order[0] == "A"
        used += outcome.items_used
    assert right >= 57 and used / 60 < 0.7 * CLUSTERS * SIZE
    assert re.search(r"over \d+ fine-aspect clusters", outcome.decision.text)


def test_futility_projects_over_the_clusters_the_items_left_make() -> None:
    """After 40 clusters of 5 with a tiny difference, 100 items left are 20 clusters: the pair
    is hopeless; with per-item counting the projection would promise 100 more values."""
    rule = CompareRule("A", "B", ALPHA, unit="picture", largest=5)
    same = {"A": 1.0, "B": 1.0}
    rule.observe_clusters(
        [[{"A": 1.0, "B": 0.0}, same, same, same, same]] * 2
        + [[{"A": 0.0, "B": 1.0}, same, same, same, same]]
        + [[same] * 5] * 37
    )
    test = rule.tests["A", "B"]
    assert test.n == 40 and rule.paired["A", "B"] == 200
    assert rule.hopeless("A", "B", remaining=100)
    assert test.projected_log_wealth(20) < test.threshold
    assert math.isfinite(test.projected_log_wealth(100))
