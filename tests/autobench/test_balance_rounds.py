"""Answer keys spread within strata (:func:`lvlmbench.autobench.balance.spread`): every level ×
fine aspect exact, each level and the whole benchmark within one per letter, and in a benchmark
built in rounds the keys placed earlier kept while the new ones are spread around them."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lvlmbench.autobench.balance import LETTERS, Slot, spread

SEED = ("letters", "spatial understanding", 0)


def _slots(sizes: dict[str, list[int]]) -> list[Slot]:
    """Slots for strata of the given sizes per level (stratum names f0, f1, ...)."""
    return [
        Slot(f"{level}|f{s}|{i}", level, f"f{s}")
        for level, strata in sizes.items()
        for s, n in enumerate(strata)
        for i in range(n)
    ]


def _counts(placed: dict[str, str], slots: list[Slot], key: str) -> dict[str, Counter[str]]:
    groups: dict[str, Counter[str]] = {}
    for slot in slots:
        name = {"level": slot.level, "stratum": f"{slot.level}|{slot.stratum}", "all": ""}[key]
        groups.setdefault(name, Counter())[placed[slot.key]] += 1
    return groups


def _spread_of(counts: Counter[str], symbols: tuple[str, ...] = LETTERS) -> int:
    return max(counts[s] for s in symbols) - min(counts[s] for s in symbols)


def test_ten_per_stratum_is_three_three_two_two_and_each_level_within_one() -> None:
    # Hand-worked: ω = 10 per stratum leaves a remainder of 2 in each; three strata in a level
    # give 30 = 8 + 8 + 7 + 7, four give 40 = 10 each, and the benchmark's 70 is 18/18/17/17.
    slots = _slots({"easy": [10, 10, 10], "hard": [10, 10, 10, 10]})
    placed = spread(slots, LETTERS, SEED)
    for counts in _counts(placed, slots, "stratum").values():
        assert sorted(counts.values()) == [2, 2, 3, 3]
    levels = _counts(placed, slots, "level")
    assert sorted(levels["easy"].values()) == [7, 7, 8, 8]
    assert sorted(levels["hard"].values()) == [10, 10, 10, 10]
    assert sorted(_counts(placed, slots, "all")[""].values()) == [17, 17, 18, 18]


def test_a_lone_extra_per_stratum_rotates_over_the_letters() -> None:
    # Four strata of five: each stratum 2/1/1/1, and the four extras on four different letters.
    slots = _slots({"medium": [5, 5, 5, 5]})
    placed = spread(slots, LETTERS, SEED)
    extras = [
        next(k for k, n in counts.items() if n == 2)
        for counts in _counts(placed, slots, "stratum").values()
    ]
    assert sorted(extras) == list(LETTERS)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["easy", "medium", "hard"]),
        st.lists(st.integers(0, 13), min_size=1, max_size=8),
        min_size=1,
    ),
    st.integers(0, 2**16),
)
def test_every_stratum_exact_and_levels_and_whole_within_one(
    sizes: dict[str, list[int]], seed: int
) -> None:
    slots = _slots(sizes)
    placed = spread(slots, LETTERS, ("letters", "x", seed))
    assert set(placed) == {s.key for s in slots} and set(placed.values()) <= set(LETTERS)
    for key in ("stratum", "level", "all"):
        for counts in _counts(placed, slots, key).values():
            assert _spread_of(counts) <= 1, (key, counts)
    # The slots' order does not matter, only their keys.
    assert spread(list(reversed(slots)), LETTERS, ("letters", "x", seed)) == placed


def test_true_false_values_spread_the_same_way() -> None:
    # Three strata of five statements per level: 3/2 in each, 8/7 per level.
    slots = _slots({"easy": [5, 5, 5], "hard": [5, 5, 5]})
    placed = spread(slots, ("true", "false"), ("truths", "x", 0))
    for counts in _counts(placed, slots, "stratum").values():
        assert sorted(counts.values()) == [2, 3]
    for counts in _counts(placed, slots, "level").values():
        assert sorted(counts.values()) == [7, 8]


def test_two_capabilities_of_one_seed_get_their_own_sequences() -> None:
    slots = _slots({"easy": [10, 10], "hard": [10, 10]})
    first = spread(slots, LETTERS, ("letters", "spatial understanding", 0))
    second = spread(slots, LETTERS, ("letters", "reasoning capacity", 0))
    order = sorted(first)
    assert [first[k] for k in order] != [second[k] for k in order]


@pytest.mark.parametrize("cuts", [(9, 27, 40), (1, 3, 7, 15, 31, 40), (20, 40)])
def test_rounds_keep_earlier_keys_and_each_stratum_within_one(cuts: tuple[int, ...]) -> None:
    # Four strata of ten in one level, built in rounds that take slots across the strata.
    slots = _slots({"easy": [10, 10, 10, 10]})
    order = sorted(slots, key=lambda s: (int(s.key.rsplit("|", 1)[1]), s.stratum))
    placed: dict[str, str] = {}
    for end in cuts:
        built = [Slot(s.key, s.level, s.stratum, placed.get(s.key)) for s in order[:end]]
        now = spread(built, LETTERS, SEED)
        assert {k: now[k] for k in placed} == placed  # answered items keep their letters
        placed = now
        for counts in _counts(placed, order[:end], "stratum").values():
            assert _spread_of(counts) <= 1, counts
        (level,) = _counts(placed, order[:end], "level").values()
        assert _spread_of(level) <= 1, level
    # Built in one go, the same plan gets the same per-stratum spread.
    whole = spread(slots, LETTERS, SEED)
    for counts in _counts(whole, slots, "stratum").values():
        assert sorted(counts.values()) == [2, 2, 3, 3]


def test_keys_placed_unevenly_before_strata_are_kept_and_the_rest_filled() -> None:
    # A benchmark balanced over the whole before this change: its stored keys stay.
    old = [Slot(f"s|{i}", "easy", "f0", "A") for i in range(3)]
    new = [Slot(f"s|{i}", "easy", "f0") for i in range(3, 8)]
    placed = spread(old + new, LETTERS, SEED)
    assert [placed[s.key] for s in old] == ["A", "A", "A"]
    # 8 keys cannot be 2 per letter with 3 at A: the 5 new ones go to B, C and D, 2/2/1.
    fresh = Counter(placed[s.key] for s in new)
    assert "A" not in fresh and sorted(fresh.values()) == [1, 2, 2]
