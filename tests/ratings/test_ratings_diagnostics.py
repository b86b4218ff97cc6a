import pytest

from lvlmbench.ratings import (
    TwoOrderVerdict,
    first_position_preference,
    judge_diagnostics,
    length_preference,
    position_consistency,
    self_preference,
)

R1 = TwoOrderVerdict("a", "b", 10, 20, "A", "B")  # a both times: consistent; a is shorter
R2 = TwoOrderVerdict("a", "c", 30, 5, "A", "A")  # always position A: reversed
R3 = TwoOrderVerdict("b", "c", 5, 5, "tie", "A")  # tie, then c: half flip; equal lengths
R4 = TwoOrderVerdict("a", "b", 8, 4, None, "B")  # unparseable in order ab
RECORDS = [R1, R2, R3, R4]
FAMILIES = {"a": "fam-a", "b": "fam-b", "c": "fam-c"}


def test_winners_and_combined_outcome():
    assert (R1.winner_ab, R1.winner_ba) == ("a", "a")
    assert (R2.winner_ab, R2.winner_ba) == ("a", "c")
    assert (R3.winner_ab, R3.winner_ba) == ("tie", "c")
    assert R4.winner_ab is None
    # VisIT-Bench's released rule by default: R3 (tie, then c) is a win for c, i.e. 0 for b.
    assert [r.outcome() for r in RECORDS] == [1.0, 0.5, 0.0, None]
    assert [r.outcome("both") for r in RECORDS] == [1.0, 0.5, 0.5, None]
    assert TwoOrderVerdict("a", "b", 1, 1, "B", "A").outcome() == 0.0
    with pytest.raises(ValueError, match="combine rule"):
        R1.outcome("strict")  # type: ignore[arg-type]


def test_position_flip_rate():
    result = position_consistency(RECORDS)
    assert (result.records, result.unscored, result.scored) == (4, 1, 3)
    assert (result.consistent, result.reversed, result.half_flips) == (1, 1, 1)
    assert result.flip_rate == pytest.approx(2 / 3)
    assert result.reversal_rate == pytest.approx(1 / 3)


def test_first_position_win_rate():
    # verdicts A,B | A,A | tie,A | None,B -> A 4 times, B twice, one tie, one unparseable.
    result = first_position_preference(RECORDS)
    assert (result.favoured, result.disfavoured, result.ties, result.unscored) == (4, 2, 1, 1)
    assert result.rate == pytest.approx(4 / 6)
    assert result.interval.low < result.rate < result.interval.high


def test_longer_answer_win_rate():
    # R1: shorter a wins twice; R2: longer a once, shorter c once; R3: equal lengths, skipped;
    # R4: unparseable once, longer a once.
    result = length_preference(RECORDS)
    assert (result.favoured, result.disfavoured, result.skipped, result.unscored) == (2, 3, 2, 1)
    assert result.rate == pytest.approx(2 / 5)


def test_self_preference():
    # Judge of family fam-a: a's matches count (R1, R2, R4); R3 (b vs c) is skipped.
    result = self_preference(RECORDS, "fam-a", FAMILIES)
    assert (result.favoured, result.disfavoured, result.skipped, result.unscored) == (4, 1, 2, 1)
    assert result.rate == pytest.approx(0.8)
    same = self_preference(RECORDS, "fam-a", lambda player: FAMILIES[player])
    assert same == result
    none = self_preference(RECORDS, "fam-z", FAMILIES)
    assert none.rate is None
    assert none.skipped == 8


def test_judge_diagnostics_bundles_everything():
    report = judge_diagnostics(RECORDS, judge_family="fam-a", family_of=FAMILIES)
    assert report.position == position_consistency(RECORDS)
    assert report.first_position == first_position_preference(RECORDS)
    assert report.longer_answer == length_preference(RECORDS)
    assert report.self_preference == self_preference(RECORDS, "fam-a", FAMILIES)
    assert judge_diagnostics(iter(RECORDS)).self_preference is None


def test_bad_input_raises():
    with pytest.raises(ValueError, match="verdict_ab must be"):
        TwoOrderVerdict("a", "b", 1, 1, "a", "B")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="against itself"):
        TwoOrderVerdict("a", "a", 1, 1, "A", "B")
    with pytest.raises(ValueError, match="named 'tie'"):
        TwoOrderVerdict("tie", "a", 1, 1, "A", "B")
    with pytest.raises(ValueError, match="lengths"):
        TwoOrderVerdict("a", "b", -1, 1, "A", "B")
    with pytest.raises(ValueError, match="empty"):
        position_consistency([])
    with pytest.raises(ValueError, match="unknown family for player 'c'"):
        self_preference(RECORDS, "fam-a", {"a": "fam-a", "b": "fam-b"})
    with pytest.raises(ValueError, match="both judge_family and family_of"):
        judge_diagnostics(RECORDS, judge_family="fam-a")
