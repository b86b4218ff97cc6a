"""Agreement between annotators: Fleiss' κ and Krippendorff's α (nominal) against values worked
by hand and published ones, and which one :func:`rater_agreement` picks. (statsmodels and the
krippendorff package are not installed here; the published examples are their test cases.)"""

from __future__ import annotations

import pytest

from lvlmbench.stats import (
    FLEISS_KAPPA,
    KRIPPENDORFF_ALPHA,
    fleiss_kappa,
    krippendorff_alpha,
    rater_agreement,
)

FLEISS_EXAMPLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]
"""Fleiss (1971)'s layout as Wikipedia's "Fleiss' kappa" article works it: 10 items, 14 raters,
5 categories; P̄ = 0.378, P̄e = 0.213, κ = 0.210."""

KRIPPENDORFF_EXAMPLE = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
"""Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 observers,
12 units, missing values; nominal α = 0.743 (unit 12 has one value and is left out)."""


def test_fleiss_kappa_by_hand_and_published() -> None:
    # 3 items, 2 raters: (yes, yes), (yes, no), (no, no). P_i = 1, 0, 1 -> P̄ = 2/3;
    # shares 3/6 each -> P̄e = 1/2; κ = (2/3 - 1/2) / (1 - 1/2) = 1/3.
    assert fleiss_kappa([[2, 0], [1, 1], [0, 2]]) == pytest.approx(1 / 3)
    assert fleiss_kappa(FLEISS_EXAMPLE) == pytest.approx(0.20993, abs=5e-6)
    assert fleiss_kappa([[2, 0], [0, 2]]) == pytest.approx(1.0)  # full agreement
    assert fleiss_kappa([[1, 1], [1, 1]]) == pytest.approx(-1.0)  # always split
    assert fleiss_kappa([[3, 0], [3, 0]]) is None  # one category only: undefined
    with pytest.raises(ValueError, match="same number of answers"):
        fleiss_kappa([[2, 0], [2, 1]])


def test_krippendorff_alpha_by_hand_and_published() -> None:
    # (yes, yes, yes), (yes, no), (no, no): coincidences yy 3, yn = ny 1, nn 2; n_yes 4,
    # n_no 3, n 7; α = 1 - (7 - 1)(7 - 5) / (49 - 16 - 9) = 1 - 12 / 24 = 0.5.
    assert krippendorff_alpha([[3, 0], [1, 1], [0, 2]]) == pytest.approx(0.5)
    assert krippendorff_alpha([[1, 0], [0, 1]]) is None  # no item with a pair
    answers = [
        (unit, coder, value)
        for coder, values in KRIPPENDORFF_EXAMPLE.items()
        for unit, value in enumerate(values)
        if value is not None
    ]
    found = rater_agreement(answers)
    assert found.method == KRIPPENDORFF_ALPHA
    assert found.value == pytest.approx(0.743, abs=5e-4)
    assert (found.items, found.annotators, found.answers) == (11, 4, 40)


def test_rater_agreement_picks_kappa_for_equal_counts_and_says_what_it_is_over() -> None:
    answers = [
        ("i1", "ann", "yes"), ("i1", "bo", "yes"),
        ("i2", "ann", "yes"), ("i2", "cy", "no"),
        ("i3", "bo", "no"), ("i3", "cy", "no"),
        ("i4", "ann", "yes"),  # one answer: no pair, left out
    ]  # fmt: skip
    found = rater_agreement(answers)
    assert found.method == FLEISS_KAPPA and found.value == pytest.approx(1 / 3)
    assert (found.items, found.annotators, found.answers) == (3, 3, 6)
    alike = rater_agreement([("i1", "a", "yes"), ("i1", "b", "yes")])
    assert alike.value is None and alike.reason is not None and "same" in alike.reason
    lonely = rater_agreement([("i1", "a", "yes")])
    assert lonely.value is None and lonely.items == 0
