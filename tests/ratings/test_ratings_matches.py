import pytest

from lvlmbench.ratings import Match, validate_matches


def test_plain_tuples_become_matches():
    assert validate_matches([("a", "b", 1), ("b", "a", 0.5)]) == [
        Match("a", "b", 1.0),
        Match("b", "a", 0.5),
    ]


@pytest.mark.parametrize(
    ("matches", "message"),
    [
        ([], "empty"),
        ([("a", "b", 1), ("a", "c", -1)], r"match 1 \('a' vs 'c'\): outcome must be 0, 0.5 or 1"),
        ([("a", "b")], "must be \\(player_a, player_b, outcome\\)"),
        ([("a", "a", 0)], "'a' is matched against itself"),
    ],
)
def test_bad_matches_name_the_problem(matches, message):
    with pytest.raises(ValueError, match=message):
        validate_matches(matches)
