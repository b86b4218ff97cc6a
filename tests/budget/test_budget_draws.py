"""Stratified draws and rounds: every prefix keeps the full set's mix, the same seed gives the
same order, and the rounds double up to what is left."""

from __future__ import annotations

from collections import Counter

import pytest

from lvlmbench.budget import facet_mix, round_ends, stratified_order

# Uneven strata (capability × aspect × difficulty), as a real benchmark has them.
SIZES = {
    ("count", "objects", "easy"): 50,
    ("count", "objects", "hard"): 7,
    ("space", "left-right", "easy"): 23,
    ("space", "depth", "medium"): 120,
}


def _strata() -> dict[str, tuple[str, str, str]]:
    return {f"{'-'.join(s)}-{i}": s for s, size in SIZES.items() for i in range(size)}


def test_order_is_a_seeded_permutation() -> None:
    strata = _strata()
    order = stratified_order(strata, seed=3)
    assert sorted(order) == sorted(strata)
    assert stratified_order(dict(reversed(list(strata.items()))), seed=3) == order
    assert stratified_order(strata, seed=4) != order


def test_every_prefix_keeps_the_mix_within_one_item() -> None:
    strata = _strata()
    order = stratified_order(strata, seed=0)
    total = len(order)
    counts: Counter[tuple[str, str, str]] = Counter()
    for n, item_id in enumerate(order, start=1):
        counts[strata[item_id]] += 1
        for stratum, size in SIZES.items():
            assert abs(counts[stratum] - n * size / total) <= 1.0, (n, stratum)


def test_growing_one_stratum_leaves_the_others_draws_alone() -> None:
    strata = _strata()
    grown = {**strata, **{f"extra-{i}": ("count", "objects", "hard") for i in range(30)}}
    before = [i for i in stratified_order(strata, 1) if strata[i][1] == "depth"]
    after = [i for i in stratified_order(grown, 1) if grown[i][1] == "depth"]
    assert before == after


def test_facet_mix_shares() -> None:
    strata = {"a": "x", "b": "x", "c": "y", "d": "z"}
    assert facet_mix(["a", "b", "c", "d"], strata) == {"x": 0.5, "y": 0.25, "z": 0.25}
    assert facet_mix([], strata) == {}


def test_round_ends_double_and_end_at_the_total() -> None:
    assert round_ends(1000, 50) == [50, 100, 200, 400, 800, 1000]
    assert round_ends(30, 50) == [30]
    assert round_ends(10, 1, growth=1.5) == [1, 2, 3, 5, 8, 10]
    assert round_ends(0, 5) == []
    with pytest.raises(ValueError, match="first round"):
        round_ends(10, 0)
