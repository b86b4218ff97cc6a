import pytest

from lvlmbench.ratings import wilson_interval


def test_wilson_known_value():
    ci = wilson_interval(8, 10)
    assert ci.low == pytest.approx(0.490, abs=1e-3)
    assert ci.high == pytest.approx(0.943, abs=1e-3)


def test_wilson_edges_stay_in_range():
    assert wilson_interval(0, 20).low == 0.0
    assert wilson_interval(20, 20).high == 1.0
    assert 0 < wilson_interval(0, 20).high < 0.2
    assert wilson_interval(0, 0) == wilson_interval(0, 0).__class__(0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(5, 3)
