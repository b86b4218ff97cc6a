"""Pairwise verdicts, score pairs and ratings read from real-looking judge replies."""

from __future__ import annotations

import pytest

from lvlmbench.judging import RatingScale, parse_rating, parse_scores, parse_verdict
from lvlmbench.types import Status

OK, REFUSED, UNPARSEABLE = Status.OK, Status.REFUSED, Status.UNPARSEABLE

VERDICTS: list[tuple[str, str | None, Status]] = [
    ("Both answers address the question. Response A is more specific.\n\n[[A]]", "a", OK),
    ("Reasoning: B names the breed correctly.\nVerdict: B", "b", OK),
    ("Output (a) is better because it mentions the red umbrella.", "a", OK),
    ("Both are equally good → tie", "tie", OK),
    ("Neither is good: both miss the second dog.", "tie", OK),
    ("Both responses are bad; neither answers the question.", "tie", OK),
    ("I'm sorry, but I can't help with evaluating this content.", None, REFUSED),
    ("As an AI language model, I cannot compare these responses.", None, REFUSED),
    ("", None, UNPARSEABLE),
    ("The image shows a cat on a sofa.", None, UNPARSEABLE),
    ("Let me think step by step.\n1. Accuracy...\n2. Relevance...\nFinal verdict: [[B]]", "b", OK),
    ("**Final Verdict:** **A**", "a", OK),
    ("My final verdict is tie: [[C]]", "tie", OK),
    ("After comparing, I prefer Response B.", "b", OK),
    ("I would choose Response A since it follows the instruction.", "a", OK),
    ("Response B wins.", "b", OK),
    ("The winner is Response A.", "a", OK),
    ("Better response: (b)", "b", OK),
    ("Assistant A is better: [[A>B]]", "a", OK),
    ("Both are close. [[A=B]]", "tie", OK),
    ("My final verdict is [[B>>A]].", "b", OK),
    ("Response A is not better than B in detail, but overall Response B is better.", "b", OK),
    ("Verdict: A or B, hard to say.", None, UNPARSEABLE),
    ("Response A is better in style. Response B is better in accuracy.", None, UNPARSEABLE),
    ("Response A is more fluent.\nStill, Response B is more accurate, so B is better.", "b", OK),
    ("Analysis...\n\nB", "b", OK),
    ("Analysis...\n\n**Tie**", "tie", OK),
    (
        "A better answer would mention the sign. Response B does so, so Response B is better.",
        "b",
        OK,
    ),
    ("Verdict: a", "a", OK),
    ("The first response is better.", "a", OK),
    ("It's a tie.", "tie", OK),
    ("There is no clear winner here.", "tie", OK),
    ("Neither response is correct; the colour is green.", "tie", OK),
    ("Answer: B", "b", OK),
    ("Both responses are equally helpful and accurate.", "tie", OK),
    ("Decision - Response A", "a", OK),
    ("The man in the photo wears a tie and a hat.", None, UNPARSEABLE),
    ("I cannot determine which is better without seeing the image.", None, REFUSED),
    ("Verdict: Response A.\nWait, on reflection B misses nothing. Verdict: Response B.", "b", OK),
    ("Overall, A is the better response.", "a", OK),
    ("a", None, UNPARSEABLE),
    ("(a)", "a", OK),
    # small models echo the prompt: a list of the verdict forms chooses nothing
    (
        "Which response is better? Reason step by step, then end with [[A]], [[B]] or [[tie]].",
        None,
        UNPARSEABLE,
    ),
    ("Reasoning... end with [[A]], [[B]] or [[tie]].\nB is clearly better. [[B]]", "b", OK),
]


@pytest.mark.parametrize(("text", "verdict", "status"), VERDICTS)
def test_verdict_table(text: str, verdict: str | None, status: Status) -> None:
    parsed = parse_verdict(text)
    assert (parsed.verdict, parsed.status) == (verdict, status), parsed
    if status is not OK:
        assert parsed.reason


def test_table_is_large_enough() -> None:
    assert len(VERDICTS) >= 30


SCORES: list[tuple[str, tuple[float, float] | None, Status]] = [
    ("8 7\nResponse A is more detailed.", (8, 7), OK),
    ("Scores: 6, 9", (6, 9), OK),
    ("Response A: 7/10\nResponse B: 4/10", (7, 4), OK),
    ("Assistant 1 score: 5\nAssistant 2 score: 8", (5, 8), OK),
    ('{"score_a": 3, "score_b": 10}', (3, 10), OK),
    ("Response A gets 12 and Response B gets 3\n12 3", None, UNPARSEABLE),
    ("Both are fine.", None, UNPARSEABLE),
    ("I'm sorry, I can't rate these answers.", None, REFUSED),
    ("", None, UNPARSEABLE),
    (
        "Each assistant receives an overall score on a scale of 1 to 10, where higher is better.",
        None,
        UNPARSEABLE,
    ),
    ("**7 9**\nAssistant 2 is more accurate.", (7, 9), OK),
    ("8/10 6/10", (8, 6), OK),
]


@pytest.mark.parametrize(("text", "pair", "status"), SCORES)
def test_score_table(text: str, pair: tuple[float, float] | None, status: Status) -> None:
    parsed = parse_scores(text)
    got = None if parsed.first is None else (parsed.first, parsed.second)
    assert (got, parsed.status) == (pair, status), parsed


RATINGS: list[tuple[str, float | None, Status]] = [
    ("The description invents a dog.\nHallucination score: 6", 6, OK),
    ("Rating: 2/10", 2, OK),
    ('{"hallucination": 0}', 0, OK),
    ("Mostly faithful.\n\n1", 1, OK),
    ("Hallucination score: 14", None, UNPARSEABLE),
    ("It is fine.", None, UNPARSEABLE),
    ("I am unable to evaluate this description.", None, REFUSED),
]


@pytest.mark.parametrize(("text", "value", "status"), RATINGS)
def test_rating_table(text: str, value: float | None, status: Status) -> None:
    parsed = parse_rating(text)
    assert (parsed.value, parsed.status) == (value, status), parsed


# The scale belongs to the protocol: (reply, low, high) -> rating or why not.
ON_SCALES: list[tuple[str, float, float, float | str]] = [
    ("Rating: 4/10", 1, 5, "rating 4/10 is on a scale out of 10, not the protocol's 1-5"),
    ("4/5", 1, 5, 4),
    ("Brevity is fine.\nRating: 4 out of 5", 1, 5, 4),
    ("Rating: 4", 1, 5, 4),
    ("Rating: 7", 1, 5, "rating 7 outside 1-5"),
    ("4/5", 0, 10, "rating 4/5 is on a scale out of 5, not the protocol's 0-10"),
    ("Rating: 2/10", 0, 10, 2),
    ("Hallucination score: 3 / 10", 0, 10, 3),
    ("Score: 80/100", 0, 100, 80),
]


@pytest.mark.parametrize(("text", "low", "high", "want"), ON_SCALES)
def test_rating_on_the_protocols_scale(text: str, low: float, high: float, want: float | str):
    parsed = RatingScale(low, high).parse(text)
    assert parsed == parse_rating(text, low, high)
    if isinstance(want, str):
        assert (parsed.value, parsed.status, parsed.reason) == (None, UNPARSEABLE, want)
    else:
        assert (parsed.value, parsed.status) == (want, OK)


def test_scores_on_another_scale_are_unparseable() -> None:
    touchstone = RatingScale(1, 10)
    assert touchstone.parse_pair("8/10 7/10") == parse_scores("8/10 7/10")
    assert (touchstone.parse_pair("8/10 7/10").first, touchstone.parse_pair("8 7").second) == (8, 7)
    off = touchstone.parse_pair("4/5 3/5")
    assert (off.first, off.status) == (None, UNPARSEABLE)
    assert off.reason == "scores (4.0, 3.0) on a scale out of 5, not the protocol's 1-10"
    labelled = touchstone.parse_pair("Assistant 1: 4 out of 5\nAssistant 2: 3 out of 5")
    assert labelled.status is UNPARSEABLE and "out of 5" in (labelled.reason or "")
    assert RatingScale(1, 5).parse_pair("Assistant 1: 4/5\nAssistant 2: 3/5").first == 4
