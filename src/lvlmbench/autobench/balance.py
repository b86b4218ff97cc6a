"""Position balancing of multiple-choice answer keys (AutoBench-V stage 7).

Examiner models put the correct option at "A" far more often than chance, and examinees learn to
exploit position. So the key letters are not drawn at random: a list holding every letter the
same number of times (up to one extra for the remainder) is shuffled, which makes the spread
exact for any benchmark size. The position-bias experiment instead pins every key to one letter.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "LETTERS",
    "BalanceTarget",
    "ChoiceDraft",
    "DraftLike",
    "balance_positions",
    "balance_positions_after",
    "letter_counts",
]

LETTERS = ("A", "B", "C", "D")
BalanceTarget = Literal["even", "A", "B", "C", "D"]


class DraftLike(Protocol):
    """Anything with a correct option and its distractors (e.g. ``scenes.questions.Question``)."""

    @property
    def correct(self) -> str: ...

    @property
    def distractors(self) -> Sequence[str]: ...


@dataclass(frozen=True)
class ChoiceDraft:
    """A multiple-choice question before its options get letters."""

    correct: str
    """Text of the correct option."""
    distractors: Sequence[str]
    """Texts of the three wrong options."""


def _key_letters(n: int, rng: random.Random, target: BalanceTarget) -> list[str]:
    if target != "even":
        return [target] * n
    # Which letters get the remainder's extra slot is drawn too, so "A" is not always favoured.
    extra = rng.sample(LETTERS, n % len(LETTERS))
    letters = [letter for letter in LETTERS for _ in range(n // len(LETTERS))] + extra
    rng.shuffle(letters)
    return letters


def _check(index: int, draft: DraftLike) -> None:
    if len(draft.distractors) != len(LETTERS) - 1:
        raise ValueError(
            f"question {index}: needs exactly {len(LETTERS) - 1} distractors, "
            f"got {len(draft.distractors)}"
        )
    texts = [draft.correct, *draft.distractors]
    if len({t.strip().lower() for t in texts}) != len(texts):
        raise ValueError(f"question {index}: options must be distinct, got {texts}")


def balance_positions(
    drafts: Sequence[DraftLike], seed: int, target: BalanceTarget = "even"
) -> list[tuple[dict[str, str], str]]:
    """Lettered options and the answer letter for each draft, in order.

    ``target="even"``: the counts of answer letters over A-D differ by at most one.
    ``target="A"`` (or B, C, D): every answer at that letter. Distractors fill the other slots in
    a seeded random order. The same drafts and seed always give the same result.
    Raises ValueError for a draft without exactly three distractors or with repeated options.
    """
    if target != "even" and target not in LETTERS:
        raise ValueError(f"target must be 'even' or one of {LETTERS}, got {target!r}")
    for index, draft in enumerate(drafts):
        _check(index, draft)
    rng = random.Random(seed)
    letters = _key_letters(len(drafts), rng, target)
    return [_lettered(draft, answer, rng) for draft, answer in zip(drafts, letters, strict=True)]


def _lettered(draft: DraftLike, answer: str, rng: random.Random) -> tuple[dict[str, str], str]:
    """The draft's options under letters, the correct one at ``answer``, distractors shuffled."""
    others = list(draft.distractors)
    rng.shuffle(others)
    slots = iter(others)
    options = {letter: draft.correct if letter == answer else next(slots) for letter in LETTERS}
    return options, answer


def balance_positions_after(
    drafts: Sequence[DraftLike], seed: int, placed: Mapping[str, int]
) -> list[tuple[dict[str, str], str]]:
    """Lettered options for ``drafts`` added after answers already placed (``placed``: how many
    sit at each letter), which keep their letters: a benchmark built in rounds must not reshuffle
    the items examinees have already answered.

    Each new key goes to a least-used letter (ties drawn at random), so if the placed counts
    differ by at most one, so do the counts over placed and new answers together. With nothing
    placed this is exactly :func:`balance_positions` (``target="even"``).
    """
    already = sum(placed.values())
    if not already:
        return balance_positions(drafts, seed)
    for index, draft in enumerate(drafts):
        _check(index, draft)
    # Seeded by what was placed too: each round's new items get draws of their own.
    rng = random.Random(f"{seed}:{already}")
    counts = {letter: placed.get(letter, 0) for letter in LETTERS}
    letters = []
    for _ in drafts:
        fewest = min(counts.values())
        letter = rng.choice([lt for lt in LETTERS if counts[lt] == fewest])
        counts[letter] += 1
        letters.append(letter)
    rng.shuffle(letters)
    return [_lettered(draft, answer, rng) for draft, answer in zip(drafts, letters, strict=True)]


def letter_counts(answers: Iterable[str]) -> dict[str, int]:
    """How many answers sit at each of A-D (letters never used count 0; others are kept)."""
    counts = Counter(answers)
    return {**{letter: counts.pop(letter, 0) for letter in LETTERS}, **dict(sorted(counts.items()))}
