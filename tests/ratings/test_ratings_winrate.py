import pytest

from lvlmbench.ratings import category_win_rates, wilson_interval, win_rates_vs_reference

# m1 against the reference: 2 wins, 5 losses, 1 tie (the reference on either side);
# m2: 1 loss; the m1-m2 match does not involve the reference and is ignored.
MATCHES = [
    ("m1", "ref", 1),
    ("ref", "m1", 0),
    ("m1", "ref", 0),
    ("ref", "m1", 1),
    ("ref", "m1", 1),
    ("m1", "ref", 0),
    ("m1", "ref", 0),
    ("m1", "ref", 0.5),
    ("ref", "m2", 1),
    ("m1", "m2", 1),
]


def test_ties_reported_separately_by_default():
    rates = win_rates_vs_reference(MATCHES, "ref")
    assert set(rates) == {"m1", "m2"}
    m1 = rates["m1"]
    assert (m1.wins, m1.losses, m1.ties, m1.matches) == (2, 5, 1, 8)
    assert m1.rate == 2 / 8
    assert m1.tie_rate == 1 / 8
    assert m1.interval == wilson_interval(2, 8)
    assert rates["m2"].rate == 0.0


def test_ties_as_half_a_win():
    m1 = win_rates_vs_reference(MATCHES, "ref", ties="half")["m1"]
    assert m1.rate == 2.5 / 8
    assert m1.interval == wilson_interval(2.5, 8)
    assert m1.interval.low < m1.rate < m1.interval.high


def test_per_category_win_rates():
    tagged = [(*m, "poems" if i < 4 else "counting") for i, m in enumerate(MATCHES)]
    tagged.append(("m1", "m2", 0, "riddles"))  # no reference: category absent
    by_category = category_win_rates(tagged, "ref")
    assert set(by_category) == {"poems", "counting"}
    assert by_category["poems"]["m1"].wins == 2
    assert by_category["poems"]["m1"].losses == 2
    assert by_category["counting"]["m1"].wins == 0
    assert by_category["counting"]["m2"].losses == 1


def test_bad_input_raises():
    with pytest.raises(ValueError, match="unknown reference 'gold'"):
        win_rates_vs_reference(MATCHES, "gold")
    with pytest.raises(ValueError, match="empty"):
        win_rates_vs_reference([], "ref")
    with pytest.raises(ValueError, match="outcome"):
        win_rates_vs_reference([("m1", "ref", 0.25)], "ref")
    with pytest.raises(ValueError, match="ties must be"):
        win_rates_vs_reference(MATCHES, "ref", ties="quarter")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty"):
        category_win_rates([], "ref")
    with pytest.raises(ValueError, match="unknown reference"):
        category_win_rates([("m1", "m2", 1, "poems")], "ref")
    with pytest.raises(ValueError, match="category"):
        category_win_rates([("m1", "ref", 1)], "ref")  # type: ignore[list-item]
