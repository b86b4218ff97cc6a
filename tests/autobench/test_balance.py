"""Exact position balancing of multiple-choice keys."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lvlmbench.autobench.balance import (
    LETTERS,
    ChoiceDraft,
    balance_positions,
    letter_counts,
)


@st.composite
def drafts(draw: st.DrawFn, max_size: int = 500) -> list[ChoiceDraft]:
    n = draw(st.integers(0, max_size))
    # Distinct texts per question by construction; hypothesis varies count, seed and words.
    stem = draw(st.sampled_from(["red", "cat", "left", "3"]))
    return [
        ChoiceDraft(f"{stem} {i} right", [f"{stem} {i} w{k}" for k in range(3)]) for i in range(n)
    ]


@settings(max_examples=60)
@given(drafts(), st.integers(0, 2**32))
def test_even_counts_differ_by_at_most_one(questions: list[ChoiceDraft], seed: int):
    placed = balance_positions(questions, seed)
    counts = letter_counts(answer for _, answer in placed)
    assert set(counts) == set(LETTERS)
    assert sum(counts.values()) == len(questions)
    assert max(counts.values()) - min(counts.values()) <= 1


@settings(max_examples=60)
@given(drafts(max_size=60), st.integers(0, 2**32), st.sampled_from(["even", "A", "B", "C", "D"]))
def test_each_question_keeps_its_texts_and_key(questions, seed, target):
    placed = balance_positions(questions, seed, target)
    assert len(placed) == len(questions)
    for draft, (options, answer) in zip(questions, placed, strict=True):
        assert sorted(options) == list(LETTERS)
        assert options[answer] == draft.correct
        assert list(options.values()).count(draft.correct) == 1
        assert sorted(t for k, t in options.items() if k != answer) == sorted(draft.distractors)
        if target != "even":
            assert answer == target


@settings(max_examples=30)
@given(drafts(max_size=100), st.integers(0, 2**32))
def test_same_seed_same_output(questions, seed):
    assert balance_positions(questions, seed) == balance_positions(list(questions), seed)


def test_seed_matters_and_keys_are_not_a_fixed_cycle():
    questions = [ChoiceDraft(f"c{i}", [f"x{i}", f"y{i}", f"z{i}"]) for i in range(40)]
    first = [a for _, a in balance_positions(questions, 1)]
    assert first != [a for _, a in balance_positions(questions, 2)]
    assert first != list(LETTERS) * 10
    # Distractor order is shuffled too, not left in the order given.
    patterns = {
        tuple(o[k][0] for k in LETTERS if k != a) for o, a in balance_positions(questions, 1)
    }
    assert len(patterns) > 1


def test_remainder_does_not_always_favour_a():
    questions = [ChoiceDraft(f"c{i}", [f"x{i}", f"y{i}", f"z{i}"]) for i in range(5)]
    heavy = set()
    for seed in range(40):
        counts = letter_counts(a for _, a in balance_positions(questions, seed))
        heavy |= {letter for letter, n in counts.items() if n == 2}
    assert heavy == set(LETTERS)


def test_pinned_target_for_the_position_bias_experiment():
    questions = [ChoiceDraft(f"c{i}", [f"x{i}", f"y{i}", f"z{i}"]) for i in range(9)]
    assert letter_counts(a for _, a in balance_positions(questions, 0, "D")) == {
        "A": 0,
        "B": 0,
        "C": 0,
        "D": 9,
    }


def test_scene_questions_fit_the_protocol():
    from lvlmbench.scenes.questions import Question

    question = Question(
        text="What colour is the ball?",
        kind="mc",
        correct="red",
        distractors=["blue", "green", "yellow"],
    )
    ((options, answer),) = balance_positions([question], 0, "C")
    assert answer == "C" and options["C"] == "red"


def test_bad_drafts_are_rejected():
    with pytest.raises(ValueError, match="exactly 3 distractors"):
        balance_positions([ChoiceDraft("a", ["b", "c"])], 0)
    with pytest.raises(ValueError, match="distinct"):
        balance_positions([ChoiceDraft("a", ["b", "c", "A "])], 0)
    with pytest.raises(ValueError, match="target"):
        balance_positions([], 0, "E")  # type: ignore[arg-type]


def test_letter_counts_keeps_unexpected_letters():
    assert letter_counts(["A", "A", "E"]) == {"A": 2, "B": 0, "C": 0, "D": 0, "E": 1}
