"""The two-order combine rules, over every pair of per-order winners."""

from __future__ import annotations

import pytest

from lvlmbench.ratings import COMBINE_RULES, combine_winners

# (winner in order ab, winner in order ba) -> x's outcome under "majority" and under "both".
# "majority" is VisIT-Bench's released rule: more wins of the two judgements wins, else a tie.
TABLE = [
    ("x", "x", 1.0, 1.0),
    ("y", "y", 0.0, 0.0),
    ("x", "y", 0.5, 0.5),  # one each: a position flip
    ("y", "x", 0.5, 0.5),
    ("x", "tie", 1.0, 0.5),  # win + tie: a win by the count, not by "wins both"
    ("tie", "x", 1.0, 0.5),
    ("y", "tie", 0.0, 0.5),
    ("tie", "y", 0.0, 0.5),
    ("tie", "tie", 0.5, 0.5),
]


@pytest.mark.parametrize(("first", "second", "majority", "both"), TABLE)
def test_combine_table(first: str, second: str, majority: float, both: float) -> None:
    assert combine_winners(first, second, "x", "y", "majority") == majority
    assert combine_winners(first, second, "x", "y", "both") == both
    # Seen from y's side the outcome mirrors.
    assert combine_winners(first, second, "y", "x", "majority") == 1.0 - majority


@pytest.mark.parametrize("rule", COMBINE_RULES)
def test_missing_order_is_unscored(rule: str) -> None:
    assert combine_winners(None, "x", "x", "y", rule) is None  # type: ignore[arg-type]
    assert combine_winners("tie", None, "x", "y", rule) is None  # type: ignore[arg-type]


def test_bad_rule_and_winner() -> None:
    assert COMBINE_RULES == ("majority", "both")
    with pytest.raises(ValueError, match="combine rule"):
        combine_winners("x", "x", "x", "y", "wins-both")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="neither"):
        combine_winners("z", "x", "x", "y", "majority")
