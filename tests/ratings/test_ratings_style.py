"""Style-controlled Bradley–Terry: features, covariates, the fit and its bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from lvlmbench.ratings import (
    STYLE_FEATURES,
    StyleCounts,
    bradley_terry,
    bradley_terry_bootstrap,
    style_bradley_terry,
    style_differences,
    style_features,
)

MARKDOWN = """# Answer

Some **bold** words, __more bold__ and a stray ** pair.
## Details
- first
  * nested
+ third
1. one
2) two
#not a header (no space)
-not a list item

```python
# a comment, not a header
- not a list item either
x = "**not bold**"
```
Final **point**.
"""


def test_features_count_markdown_outside_code_fences() -> None:
    counts = style_features(MARKDOWN)
    assert counts == StyleCounts(tokens=len(MARKDOWN.split()), headers=2, list_items=5, bold=3)


def test_features_of_plain_text_and_an_unclosed_fence() -> None:
    assert style_features("just words here") == StyleCounts(3, 0, 0, 0)
    assert style_features("") == StyleCounts(0, 0, 0, 0)
    # An unclosed fence runs to the end: nothing after it counts as formatting.
    assert style_features("**a**\n```\n# h\n- i\n**b**") == StyleCounts(7, 0, 0, 1)


def test_differences_are_normalised_and_antisymmetric() -> None:
    a = np.array([[300, 0, 2, 1], [100, 0, 0, 0]])
    b = np.array([[100, 0, 0, 3], [100, 0, 4, 0]])
    diff = style_differences(a, b)
    assert diff == pytest.approx(np.array([[0.5, 0.0, 1.0, -0.5], [0.0, 0.0, -1.0, 0.0]]))
    assert style_differences(b, a) == pytest.approx(-diff)


@pytest.mark.parametrize(
    ("a", "b"),
    [([[1, 2]], [[1, 2, 3]]), ([[-1, 0]], [[1, 0]]), ([[np.nan, 0]], [[1, 0]]), ([1], [2])],
)
def test_differences_reject_bad_counts(a: list[float], b: list[float]) -> None:
    with pytest.raises(ValueError, match="style features"):
        style_differences(a, b)


def _random_matches(
    seed: int, players: int = 5, n: int = 3000, bias: float = 0.0
) -> tuple[list[tuple[str, str, float]], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = np.linspace(-1.0, 1.0, players)
    a = rng.integers(0, players, n)
    b = (a + rng.integers(1, players, n)) % players
    fa = np.column_stack([rng.integers(20, 400, n), rng.poisson(1.0, (n, 3))])
    fb = np.column_stack([rng.integers(20, 400, n), rng.poisson(1.0, (n, 3))])
    diff = (fa[:, 0] - fb[:, 0]) / (fa[:, 0] + fb[:, 0])
    p = 1.0 / (1.0 + np.exp(-(theta[a] - theta[b] + bias * diff)))
    u = rng.random(n)
    outcome = np.where(u < p - 0.05, 1.0, np.where(u < p + 0.05, 0.5, 0.0))
    names = [f"p{i}" for i in range(players)]
    matches = [
        (names[i], names[j], float(o))
        for i, j, o in zip(a.tolist(), b.tolist(), outcome.tolist(), strict=True)
    ]
    return matches, fa, fb


def test_no_style_variation_gives_the_raw_bradley_terry_ratings() -> None:
    """Same scale, same anchor convention, same half-win ties as the raw fit."""
    matches, fa, _ = _random_matches(1)
    same = fa.copy()
    for anchor in (None, "p2"):
        fitted = style_bradley_terry(matches, same, same, rounds=20, anchor=anchor)
        raw = bradley_terry(matches, anchor=anchor)
        assert fitted.constant_features == STYLE_FEATURES
        assert fitted.coefficients == {}
        assert fitted.ratings == pytest.approx(raw, abs=1e-6)
    penalised = style_bradley_terry(matches, same, same, rounds=20, l2=2.0)
    assert penalised.ratings == pytest.approx(bradley_terry(matches, l2=2.0), abs=1e-6)


def test_a_constant_feature_is_left_out_and_the_rest_fitted() -> None:
    matches, fa, fb = _random_matches(2, bias=1.0)
    fa[:, 1] = 0
    fb[:, 1] = 0
    fitted = style_bradley_terry(matches, fa, fb, rounds=50)
    assert fitted.constant_features == ("headers",)
    assert set(fitted.coefficients) == {"tokens", "list_items", "bold"}
    assert set(fitted.feature_scales) == {"tokens", "list_items", "bold"}


def test_swapping_the_sides_of_every_match_changes_nothing() -> None:
    """No intercept: listing a player first must not help it (Arena-style mean-centring would)."""
    matches, fa, fb = _random_matches(3, bias=1.5)
    swapped = [(b, a, 1.0 - o) for a, b, o in matches]
    one = style_bradley_terry(matches, fa, fb, rounds=50, seed=4)
    other = style_bradley_terry(swapped, fb, fa, rounds=50, seed=4)
    assert other.ratings == pytest.approx(one.ratings, abs=1e-6)
    assert other.coefficients == pytest.approx(one.coefficients, abs=1e-9)


def test_duplicate_matches_weigh_as_their_count() -> None:
    """Aggregated rows: every match listed twice gives the same point fit."""
    matches, fa, fb = _random_matches(5, n=800, bias=1.0)
    once = style_bradley_terry(matches, fa, fb, rounds=10)
    twice = style_bradley_terry(
        matches + matches, np.vstack([fa, fa]), np.vstack([fb, fb]), rounds=10
    )
    assert twice.matches == 2 * once.matches == 1600
    assert twice.ratings == pytest.approx(once.ratings, abs=1e-6)
    assert twice.coefficients == pytest.approx(once.coefficients, abs=1e-8)


def test_bootstrap_is_seeded_and_brackets_the_fit() -> None:
    matches, fa, fb = _random_matches(6, bias=1.0)
    one = style_bradley_terry(matches, fa, fb, rounds=200, seed=7)
    again = style_bradley_terry(matches, fa, fb, rounds=200, seed=7)
    other = style_bradley_terry(matches, fa, fb, rounds=200, seed=8)
    assert one == again
    assert one.intervals != other.intervals
    for player, rating in one.ratings.items():
        assert one.intervals[player].low < rating < one.intervals[player].high
    for feature, value in one.coefficients.items():
        interval = one.coefficient_intervals[feature]
        assert interval.low < value < interval.high


def test_chord_bootstrap_matches_exact_refits_on_the_same_resamples() -> None:
    matches, fa, fb = _random_matches(9, n=2000, bias=1.5)
    chord = style_bradley_terry(matches, fa, fb, rounds=60, seed=1)
    exact = style_bradley_terry(matches, fa, fb, rounds=60, seed=1, exact_refit=True)
    assert exact.max_last_step == 0.0
    assert chord.max_last_step < 1e-3
    for player in chord.ratings:
        assert chord.intervals[player].low == pytest.approx(exact.intervals[player].low, abs=0.2)
        assert chord.intervals[player].high == pytest.approx(exact.intervals[player].high, abs=0.2)
        assert chord.std_errors[player] == pytest.approx(exact.std_errors[player], rel=0.01)


def test_bootstrap_intervals_are_as_wide_as_the_raw_ones_without_style() -> None:
    """With the style columns constant the Poisson bootstrap measures the same uncertainty as
    the raw multinomial bootstrap (same data, different draws: widths agree within 20%)."""
    matches, fa, _ = _random_matches(10)
    fitted = style_bradley_terry(matches, fa, fa, rounds=400)
    raw = bradley_terry_bootstrap(matches, rounds=400)
    for player in raw.ratings:
        wide = fitted.intervals[player].high - fitted.intervals[player].low
        raw_wide = raw.intervals[player].high - raw.intervals[player].low
        if raw_wide > 0:
            assert wide == pytest.approx(raw_wide, rel=0.2)


def test_bad_input_raises_a_clear_error() -> None:
    matches, fa, fb = _random_matches(11, n=50)
    with pytest.raises(ValueError, match="one row per match"):
        style_bradley_terry(matches, fa[:-1], fb[:-1])
    with pytest.raises(ValueError, match="rounds"):
        style_bradley_terry(matches, fa, fb, rounds=0)
    with pytest.raises(ValueError, match="unknown anchor"):
        style_bradley_terry(matches, fa, fb, anchor="nobody")
    one_sided = [("x", "y", 1.0), ("x", "y", 1.0)]
    with pytest.raises(ValueError, match="strongly connected"):
        style_bradley_terry(one_sided, [[10, 0, 0, 0]] * 2, [[5, 0, 0, 0]] * 2)
    regularised = style_bradley_terry(
        one_sided, [[10, 0, 0, 0]] * 2, [[5, 0, 0, 0]] * 2, l2=1.0, rounds=5
    )
    assert regularised.ratings["x"] > regularised.ratings["y"]
