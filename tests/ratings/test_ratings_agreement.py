import math

import pytest

from lvlmbench.ratings import cohen_kappa, judge_human_agreement, kendall_tau

ITEMS = [
    ("A", "AAAAA"),  # 5/5, agrees
    ("B", "AAAAA"),  # 5/5, disagrees
    ("tie", "AAAAA"),  # 5/5, judge tie
    (None, "BBBBB"),  # 5/5, unparseable: counted, never scored
    ("B", "BBBBA"),  # 4/5, agrees
    ("A", "ABABB"),  # 3/5 (majority B), disagrees
    ("tie", "ABABB"),  # 3/5, judge tie
    ("A", "AABB"),  # no majority
]


def test_agreement_by_level_with_ties_excluded():
    report = judge_human_agreement(ITEMS)
    assert list(report.levels) == ["5/5", "4/5", "3/5"]
    assert report.no_majority == 1
    five = report.levels["5/5"]
    assert (five.pairs, five.unscored, five.judge_ties, five.excluded_agree) == (4, 1, 1, 1)
    assert five.scored == 3
    assert five.excluded_rate == 0.5
    assert report.levels["4/5"].excluded_rate == 1.0
    assert report.levels["3/5"].excluded_rate == 0.0
    overall = report.overall
    assert (overall.pairs, overall.unscored, overall.judge_ties) == (7, 1, 2)
    assert overall.excluded_rate == 2 / 4


def test_coin_flip_ties_are_seeded_and_fair():
    seen = set()
    for seed in range(30):
        five = judge_human_agreement(ITEMS, seed=seed).levels["5/5"]
        assert five == judge_human_agreement(ITEMS, seed=seed).levels["5/5"]
        assert five.coin_flip_agree in (1, 2)  # one agreement plus the tie's coin
        seen.add(five.coin_flip_agree)
    assert seen == {1, 2}
    many_ties = judge_human_agreement([("tie", "AAAAB")] * 2000, seed=1).levels["4/5"]
    assert many_ties.excluded_rate is None
    assert many_ties.coin_flip_rate == pytest.approx(0.5, abs=0.04)


def test_agreement_bad_input_raises():
    with pytest.raises(ValueError, match="empty"):
        judge_human_agreement([])
    with pytest.raises(ValueError, match="no human votes"):
        judge_human_agreement([("A", "")])
    with pytest.raises(ValueError, match="verdict must be"):
        judge_human_agreement([("C", "AAA")])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="human votes must be"):
        judge_human_agreement([("A", "AAX")])


def test_cohen_kappa_textbook_and_edges():
    # Wikipedia's example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> p_o 0.7, p_e 0.5.
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(first, second) == pytest.approx(0.4)
    assert cohen_kappa(["A", "B", "tie", "A"], ["A", "B", "tie", "A"]) == 1.0
    assert cohen_kappa(["A", "B", "A", "B"], ["B", "A", "B", "A"]) == -1.0
    assert math.isnan(cohen_kappa(["A", "A"], ["A", "A"]))
    with pytest.raises(ValueError, match="length"):
        cohen_kappa(["A"], ["A", "B"])
    with pytest.raises(ValueError, match="empty"):
        cohen_kappa([], [])


def test_kendall_tau_known_cases():
    assert kendall_tau(["a", "b", "c", "d"], ["a", "c", "b", "d"]) == pytest.approx(4 / 6)
    assert kendall_tau(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    # One tie on the first side: 5 concordant of 6 pairs, tau-b = 5 / sqrt(5 * 6).
    first = {"a": 1.0, "b": 2.0, "c": 2.0, "d": 3.0}
    second = {"a": 10.0, "b": 20.0, "c": 30.0, "d": 40.0}
    assert kendall_tau(first, second) == pytest.approx(5 / math.sqrt(30))
    assert kendall_tau(first, ["d", "c", "b", "a"]) == pytest.approx(5 / math.sqrt(30))
    assert math.isnan(kendall_tau({"a": 1, "b": 1}, {"a": 1, "b": 2}))


def test_kendall_tau_matches_scipy_with_ties():
    stats = pytest.importorskip("scipy.stats")
    x = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    y = [2, 7, 1, 8, 2, 8, 1, 8, 2, 8]
    names = [f"s{i}" for i in range(len(x))]
    expected = stats.kendalltau(x, y, variant="b").statistic
    assert kendall_tau(
        dict(zip(names, x, strict=True)), dict(zip(names, y, strict=True))
    ) == pytest.approx(expected)


def test_kendall_tau_bad_input_raises():
    with pytest.raises(ValueError, match=r"only in first \['c'\]"):
        kendall_tau(["a", "b", "c"], ["a", "b"])
    with pytest.raises(ValueError, match="at least two"):
        kendall_tau(["a"], ["a"])
    with pytest.raises(ValueError, match="twice"):
        kendall_tau(["a", "a"], ["a", "b"])
    with pytest.raises(ValueError, match="string"):
        kendall_tau("ab", ["a", "b"])
