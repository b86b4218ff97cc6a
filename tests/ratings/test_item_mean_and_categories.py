"""The two rules every figure follows: the item is the unit (ItemMean), and a sum or mean over
categories exists only over the complete set (category_sum / category_mean), worked by hand."""

from __future__ import annotations

import pytest

from lvlmbench.ratings import ItemMean, category_mean, category_sum, coverage, wilson_interval


def test_items_weigh_the_same_whatever_their_epochs() -> None:
    # Item A: 3 right of 4 answers (0.75); item B: 0 of 1. Mean over items (0.75 + 0) / 2,
    # not 3 of 5 answers; the interval is Wilson's for 0.375 over n = 2 items.
    both = ItemMean.of_item(3, 4) + ItemMean.of_item(0, 1)
    assert (both.mean, both.items, both.samples, both.epochs) == (0.375, 2, 5, 2.5)
    assert both.interval == wilson_interval(0.75, 2)
    # Answered once each, the figure is the plain count.
    once = ItemMean.answered_once(25, 96)
    assert once.interval == wilson_interval(25, 96)
    assert ItemMean.pooled([]) == ItemMean() and ItemMean().interval.high == 1.0
    with pytest.raises(ValueError, match="right <= samples"):
        ItemMean.of_item(5, 4)


def test_a_sum_over_categories_needs_all_of_them() -> None:
    expected = ["a", "b", "c"]
    full = category_sum({"a": 100.0, "b": 50.0, "c": 25.0, "other": 7.0}, expected)
    assert full.value == 175.0 and full.coverage.complete  # "other" is no part of the set
    part = category_sum({"a": 100.0, "b": 50.0}, expected)
    assert part.value is None and part.shown() == "2 of 3 categories"
    assert part.as_dict() == {
        "value": None,
        "text": "2 of 3 categories",
        "present": 2,
        "expected": 3,
        "complete": False,
        "missing": ["c"],
    }
    assert category_mean({"a": 90.0, "b": 60.0, "c": 30.0}, expected).value == 60.0
    assert category_mean({"a": 90.0}, expected, "levels").shown() == "1 of 3 levels"
    assert coverage([], [], "abilities").complete
