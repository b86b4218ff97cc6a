"""A sum or mean over categories exists only over the complete set (category_sum /
category_mean), worked by hand. (The other rule, the item as the unit, is tested with
lvlmbench.stats.ItemMean in tests/stats/test_item_mean.py.)"""

from __future__ import annotations

from lvlmbench.ratings import category_mean, category_sum, coverage


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
