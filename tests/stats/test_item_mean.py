"""ItemMean: the item is the unit and items keep their clusters, so every accuracy's interval is
stats.mean_interval over the items with their clusters. Figures worked by hand below."""

from __future__ import annotations

import pytest

from lvlmbench.ratings import wilson_interval
from lvlmbench.stats import (
    CLUSTERED_T,
    ONE_CLUSTER,
    WILSON,
    WILSON_FLOOR,
    ItemMean,
    estimate_fields,
    format_interval,
    format_ranks,
    interval_note,
    mean_interval,
)


def _aspects(sums: list[int]) -> ItemMean:
    """Two items per fine aspect answered once, ``sums[g]`` of fine aspect g's right."""
    return ItemMean.pooled(
        ItemMean.answered_once(right, 2, f"fine aspect:f{g}") for g, right in enumerate(sums)
    )


def test_items_weigh_the_same_whatever_their_epochs() -> None:
    # Item A: 3 right of 4 answers (0.75); item B: 0 of 1. Mean over items (0.75 + 0) / 2,
    # not 3 of 5 answers.
    both = ItemMean.of_item(3, 4) + ItemMean.of_item(0, 1)
    assert (both.mean, both.items, both.samples, both.epochs) == (0.375, 2, 5, 2.5)
    # Answered once each, the figure is the plain count and the interval Wilson's over items
    # (z exact: 1.959964 rather than 1.96, so within 1e-4 of ratings.wilson_interval).
    once = ItemMean.answered_once(25, 96)
    expected = wilson_interval(25, 96)
    assert once.estimate.method == WILSON and once.estimate.n_clusters == 96
    assert (once.interval.low, once.interval.high) == pytest.approx(
        (expected.low, expected.high), abs=1e-4
    )
    assert ItemMean.pooled([]) == ItemMean() and ItemMean().interval.high == 1.0
    with pytest.raises(ValueError, match="right <= samples"):
        ItemMean.of_item(5, 4)


def test_clustered_interval_worked_by_hand() -> None:
    # 12 items in 6 fine aspects, right per aspect 2, 2, 1, 1, 1, 0: p = 7/12 = 0.583333.
    # Each aspect's sum minus 2p: 0.8333 ×2, −0.1667 ×3, −1.1667: Σ² = 2.833333;
    # CR1 var = 6/5 · 2.833333 / 144 = 0.0236111, se = 0.153659; t(0.975, 5) = 2.570582,
    # half = 0.394993 → 0.188340 – 0.978327. Main's Wilson over 12 independent items gave
    # 0.319507 – 0.806743: 40 % narrower than the items' shared sources allow.
    found = _aspects([2, 2, 1, 1, 1, 0]).estimate
    assert found.estimate == pytest.approx(7 / 12)
    assert (found.low, found.high) == pytest.approx((0.188340, 0.978327), abs=1e-6)
    assert found.std_error == pytest.approx(0.153659, abs=1e-6)
    assert (found.n_items, found.n_clusters) == (12, 6)
    assert (found.method, found.cluster) == (CLUSTERED_T, "fine aspect")


def test_cluster_sums_give_the_interval_of_the_items_themselves() -> None:
    # An ItemMean keeps each shared cluster's sums only; the interval must be the one
    # mean_interval gives over the very item scores (epochs averaged), clusters and all.
    answers = [  # (cluster or None, right, answers)
        ("picture:p1", 3, 4),
        ("picture:p1", 1, 4),
        ("picture:p2", 4, 4),
        ("picture:p2", 2, 4),
        ("picture:p2", 0, 4),
        (None, 2, 4),
        (None, 1, 4),
    ]
    pooled = ItemMean.pooled(ItemMean.of_item(r, n, c) for c, r, n in answers)
    labels = [c or f"alone{i}" for i, (c, _, _) in enumerate(answers)]
    direct = mean_interval([r / n for _, r, n in answers], labels, cluster="picture + item")
    found = pooled.estimate
    assert found.cluster == "item + picture" and found.n_clusters == 4 == direct.n_clusters
    assert (found.low, found.high) == pytest.approx((max(0.0, direct.low), direct.high))
    # Adding in another order, or pooling parts that share a cluster, changes nothing.
    halves = ItemMean.pooled(ItemMean.of_item(r, n, c) for c, r, n in answers[:3]) + (
        ItemMean.pooled(ItemMean.of_item(r, n, c) for c, r, n in answers[3:])
    )
    assert halves == pooled


def test_a_cell_within_one_cluster_is_over_its_items() -> None:
    # All 3 items of one fine aspect (a table cell by fine aspect): the aspect is fixed there,
    # so its items are the units. 2 of 3 right, 0/1 scores: Wilson over 3.
    one = ItemMean.answered_once(2, 3, "fine aspect:f1").estimate
    expected = wilson_interval(2, 3)
    assert one.method == WILSON and one.cluster == "item (one fine aspect)"
    assert (one.low, one.high) == pytest.approx((expected.low, expected.high), abs=1e-4)
    # Epochs within one aspect: scores 1, 0.5, 0.5, 0 (mean 0.5, Σ(y − ȳ)² = 0.5): t over the
    # 4 items, se = √(4/3 · 0.5 / 16) = 0.204124, t(3) = 3.182446 → 0.5 ± 0.649612, in [0, 1].
    epochs = ItemMean.pooled(
        ItemMean.of_item(r, 2, "fine aspect:f1") for r in (2, 1, 1, 0)
    ).estimate
    assert epochs.method == CLUSTERED_T and epochs.std_error == pytest.approx(0.204124, abs=1e-6)
    assert (epochs.low, epochs.high) == (0.0, 1.0)


def test_a_t_interval_over_0_1_scores_is_never_narrower_than_wilson() -> None:
    # 8 of 8 right in 4 fine aspects: every cluster at the mean, a t interval of zero width.
    # 8 of 8 is no proof of 100 %: it is widened to Wilson's over the 8 items,
    # [z²/(n+z²), 1] = [0.675592, 1].
    perfect = _aspects([2, 2, 2, 2]).estimate
    assert perfect.method == WILSON_FLOOR and perfect.high == 1.0
    assert perfect.low == pytest.approx(8 / (8 + 1.959964**2), abs=1e-6)


def test_one_formatter_one_note_one_json_shape() -> None:
    assert format_interval(0.188340, 0.978327, scale=100) == "19–98"
    assert format_interval(18.834, 97.8327, digits=1) == "18.8–97.8"
    assert format_interval(-0.0125, 0.031, scale=100, digits=1, signed=True) == "-1.2 … +3.1"
    assert format_interval(None, 1.0) == "-"
    assert (format_ranks(1, 1), format_ranks(1, 3)) == ("1", "1–3")
    clustered = _aspects([2, 2, 1, 1, 1, 0]).estimate
    alone = ItemMean.answered_once(3, 5).estimate
    assert interval_note([clustered, alone, ItemMean().estimate]) == (
        "95% CI clustered by fine aspect, 6 clusters per cell (t with clusters − 1 df); "
        "over items (Wilson)"
    )
    assert estimate_fields(clustered, 100) == {
        "ci_low": pytest.approx(18.8340, abs=1e-4),
        "ci_high": pytest.approx(97.8327, abs=1e-4),
        "items": 12,
        "clusters": 6,
        "cluster": "fine aspect",
        "estimator": "clustered-t",
        "confidence": 0.95,
        "adjustment": "none",
    }


def test_one_item_over_epochs_gets_the_whole_range_not_a_crash() -> None:
    # One item, 1 right of 2 epochs (score 0.5): a cell of one item whose score is no 0/1 has
    # no spread to estimate. Main raised NotEnoughClusters out of `evaluate --epochs 2` on a
    # benchmark with a one-item level; the cell now says it knows nothing beyond [0, 1].
    found = ItemMean.of_item(1, 2).estimate
    assert (found.estimate, found.low, found.high) == (0.5, 0.0, 1.0)
    assert found.method == ONE_CLUSTER and (found.n_items, found.n_clusters) == (1, 1)
    assert "whole range" in interval_note([found])
