"""Answer letters of a benchmark built in rounds: placed answers keep their letters, new ones
are balanced against them, and with nothing placed the result is the one-shot balancing."""

from __future__ import annotations

from collections import Counter

import pytest

from lvlmbench.autobench.balance import (
    ChoiceDraft,
    balance_positions,
    balance_positions_after,
    letter_counts,
)

DRAFTS = [ChoiceDraft(f"right {i}", [f"w{i}a", f"w{i}b", f"w{i}c"]) for i in range(40)]


def test_one_shot_balancing_of_more_drafts_reshuffles_the_first_ones() -> None:
    # Why rounds need their own balancing: re-balancing all units after a second round would
    # move the answers of items examinees already answered.
    first = balance_positions(DRAFTS[:10], seed=3)
    again = balance_positions(DRAFTS[:25], seed=3)[:10]
    assert first != again


def test_nothing_placed_is_the_one_shot_balancing() -> None:
    assert balance_positions_after(DRAFTS, 3, letter_counts([])) == balance_positions(DRAFTS, 3)


@pytest.mark.parametrize("cuts", [(10, 25, 40), (1, 2, 7, 19, 40), (3, 40)])
def test_rounds_keep_the_counts_within_one(cuts: tuple[int, ...]) -> None:
    answers: list[str] = []
    start = 0
    for end in cuts:
        placed = letter_counts(answers)
        new = balance_positions_after(DRAFTS[start:end], 3, placed)
        for draft, (options, answer) in zip(DRAFTS[start:end], new, strict=True):
            assert options[answer] == draft.correct
            assert sorted(options.values()) == sorted([draft.correct, *draft.distractors])
        answers += [answer for _, answer in new]
        counts = Counter(answers)
        assert max(counts.values()) - min(counts.get(lt, 0) for lt in "ABCD") <= 1, counts
        start = end
    # Deterministic: the same rounds give the same letters.
    assert balance_positions_after(DRAFTS[10:25], 3, letter_counts(answers[:10])) == (
        balance_positions_after(DRAFTS[10:25], 3, letter_counts(answers[:10]))
    )
