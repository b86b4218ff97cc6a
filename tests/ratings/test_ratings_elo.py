import pytest

from lvlmbench.ratings import FoughtMatch, Match, elo_ratings, fought_order, online_elo


def test_always_winner_ends_above_always_loser():
    matches = [("strong", "weak", 1.0), ("weak", "strong", 0.0)] * 50
    matches += [("strong", "mid", 1.0), ("mid", "weak", 1.0)] * 20
    ratings = elo_ratings(matches)
    assert ratings["strong"] > ratings["mid"] > ratings["weak"]
    assert sum(ratings.values()) == pytest.approx(3 * 1000.0)  # Elo conserves the total


def test_hand_computed_two_matches_with_default_base_and_scale():
    # a beats b: expected 0.5, so a gains 32 * 0.5 = 16.
    # a ties b at 1516 vs 1484: expected = 1 / (1 + 10 ** (-32 / 400)) = 0.54592192...,
    # delta = 32 * (0.5 - 0.54592192) = -1.46950153.
    ratings = elo_ratings([("a", "b", 1), Match("a", "b", 0.5)], k=32, init=1500)
    assert ratings["a"] == pytest.approx(1514.5304984710244, abs=1e-9)
    assert ratings["b"] == pytest.approx(1485.4695015289756, abs=1e-9)


def test_hand_computed_with_custom_base_scale_and_init():
    # b beats a: each moves 10 * 0.5 = 5 from 0. Then a beats b at -5 vs 5:
    # expected = 1 / (1 + 2 ** (10 / 100)) = 0.48267826, delta = 10 * (1 - 0.48267826).
    ratings = elo_ratings([("a", "b", 0), ("a", "b", 1)], k=10, base=2, scale=100, init=0)
    assert ratings["a"] == pytest.approx(0.17321744832185182, abs=1e-9)
    assert ratings["b"] == pytest.approx(-0.17321744832185182, abs=1e-9)


def test_ties_count_half():
    assert elo_ratings([("a", "b", 0.5)]) == {"a": 1000.0, "b": 1000.0}
    after = elo_ratings([("a", "b", 1), ("a", "b", 0.5)], k=32)
    assert 1000 < after["a"] < 1016  # a tie against a weaker player costs the stronger one


def test_order_matters_and_shuffles_are_seeded_averages():
    matches = [("a", "b", 1)] * 5 + [("a", "b", 0)] * 5
    in_order = elo_ratings(matches, k=32)
    assert in_order["a"] < 1000  # the recent losses weigh more
    shuffled = elo_ratings(matches, k=32, shuffles=20, seed=3)
    assert shuffled == elo_ratings(matches, k=32, shuffles=20, seed=3)
    assert shuffled != elo_ratings(matches, k=32, shuffles=20, seed=4)
    assert abs(shuffled["a"] - 1000) < abs(in_order["a"] - 1000)
    assert shuffled["a"] + shuffled["b"] == pytest.approx(2000)


@pytest.mark.parametrize(
    ("matches", "message"),
    [
        ([], "empty"),
        ([("a", "b", 0.7)], "outcome must be 0, 0.5 or 1"),
        ([("a", "b", float("nan"))], "outcome"),
        ([("a", "b", "win")], "outcome"),
        ([("a", "a", 1)], "against itself"),
    ],
)
def test_bad_input_raises(matches, message):
    with pytest.raises(ValueError, match=message):
        elo_ratings(matches)


def test_bad_parameters_raise():
    with pytest.raises(ValueError, match="k > 0"):
        elo_ratings([("a", "b", 1)], k=0)
    with pytest.raises(ValueError, match="shuffles"):
        elo_ratings([("a", "b", 1)], shuffles=-1)


def test_continues_from_existing_ratings_for_a_dynamic_leaderboard():
    before = {"old-a": 1100.0, "old-b": 950.0}
    after = elo_ratings([("new", "old-a", 1)], k=32, start=before)
    # new (1000) beats old-a (1100): expected 1 / (1 + 10 ** (100 / 400)) = 0.35993500.
    assert after["new"] == pytest.approx(1000 + 32 * (1 - 0.3599350001971149))
    assert after["old-a"] == pytest.approx(1100 - 32 * (1 - 0.3599350001971149))
    assert after["old-b"] == 950.0  # did not play, keeps its rating
    assert before == {"old-a": 1100.0, "old-b": 950.0}  # the input is not modified


BATTLES = [("x", "y", 1.0), ("y", "z", 0.5), ("z", "x", 1.0), ("x", "y", 0.0), ("x", "z", 1.0)]


def _replay_by_hand(battles: list[tuple[str, str, float]]) -> dict[str, float]:
    """The online Elo update written out: K 4, base 10, scale 400, everyone from 1000."""
    rating = {"x": 1000.0, "y": 1000.0, "z": 1000.0}
    for a, b, score in battles:
        expected = 1 / (1 + 10 ** ((rating[b] - rating[a]) / 400))
        rating[a] += 4 * (score - expected)
        rating[b] -= 4 * (score - expected)
    return rating


def test_online_elo_in_the_order_fought_is_that_order_replayed_exactly():
    elo = online_elo(BATTLES, order="the order fought", seed=5)
    assert elo.in_order == _replay_by_hand(BATTLES)  # exactly, not approximately
    # The first battle by hand: both at 1000, expected 0.5, x gains 4 * 0.5.
    assert online_elo(BATTLES[:1], order="the order fought").in_order == {"x": 1002.0, "y": 998.0}
    assert elo.in_order_label == "online Elo, in the order fought"
    assert elo.shuffled_label == "online Elo, mean of 100 shuffled orders"
    assert elo.shuffled == elo_ratings(BATTLES, shuffles=100, seed=5)
    assert elo.shuffled != elo.in_order  # two different numbers, never one for the other
    backwards = online_elo(BATTLES[::-1], order="the order fought", seed=5)
    assert backwards.in_order == _replay_by_hand(BATTLES[::-1]) != elo.in_order
    # The mean over shuffles starts from a canonical order when given one: the same matches
    # fought in another order have the same mean.
    canonical = sorted(BATTLES)
    one = online_elo(BATTLES, order="o", shuffle_from=canonical, seed=5)
    other = online_elo(BATTLES[::-1], order="o", shuffle_from=canonical, seed=5)
    assert one.shuffled == other.shuffled and one.in_order != other.in_order
    assert one.as_dict()["in_order_label"] == "online Elo, in o"
    with pytest.raises(ValueError, match="same matches"):
        online_elo(BATTLES, order="o", shuffle_from=BATTLES[1:])


def test_fought_order_replays_recorded_battles_first_and_says_so():
    recorded = [FoughtMatch(7, 0, ("x", "y", 1.0)), FoughtMatch(2, 1, ("y", "z", 0.5))]
    unknown = [FoughtMatch(None, 1, ("x", "z", 0.0)), FoughtMatch(None, 0, ("y", "z", 1.0))]
    assert fought_order(recorded) == ([("y", "z", 0.5), ("x", "y", 1.0)], "the order fought")
    matches, order = fought_order(unknown)
    assert matches == [("y", "z", 1.0), ("x", "z", 0.0)]  # item order
    assert order == "benchmark item order (no battle order recorded)"
    matches, order = fought_order(unknown + recorded)
    assert matches == [("y", "z", 0.5), ("x", "y", 1.0), ("y", "z", 1.0), ("x", "z", 0.0)]
    assert order == "the order fought, then item order for 2 without one"
