"""Position balancing of multiple-choice answer keys (AutoBench-V stage 7).

Examiner models put the correct option at "A" far more often than chance, and examinees learn to
exploit position. So the key letters are not drawn at random: a list holding every letter the
same number of times (up to one extra for the remainder) is shuffled, which makes the spread
exact for any benchmark size. The position-bias experiment instead pins every key to one letter.

A benchmark is balanced within each stratum (difficulty level × fine aspect), not only over the
whole: keys spread evenly over the whole benchmark can still sit at "A" for most easy items and
at "D" for most hard ones, and then a position bias alone draws an "accuracy falls with
difficulty" curve. :func:`spread` does that for any symbols (letters, or true/false): every
stratum exact, and its remainder going where the level, then the whole benchmark, has fewest,
so each level and the benchmark are within one per symbol too. A benchmark built in rounds
spreads each round's new keys around the ones examinees have already answered.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import networkx as nx

from lvlmbench.ids import content_id

__all__ = [
    "LETTERS",
    "BalanceTarget",
    "ChoiceDraft",
    "DraftLike",
    "Slot",
    "balance_positions",
    "letter_counts",
    "lettered",
    "spread",
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


def _check(index: object, draft: DraftLike) -> None:
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


def lettered(draft: DraftLike, answer: str, seed: object) -> tuple[dict[str, str], str]:
    """The draft's options under letters, the correct one at ``answer`` and the distractors in
    an order drawn from ``seed`` alone (so a key's options do not depend on other items).
    Raises ValueError for a draft without exactly three distractors or with repeated options."""
    _check(seed, draft)
    if answer not in LETTERS:
        raise ValueError(f"answer letter must be one of {LETTERS}, got {answer!r}")
    return _lettered(draft, answer, random.Random(content_id("distractors", seed)))


def _lettered(draft: DraftLike, answer: str, rng: random.Random) -> tuple[dict[str, str], str]:
    """The draft's options under letters, the correct one at ``answer``, distractors shuffled."""
    others = list(draft.distractors)
    rng.shuffle(others)
    slots = iter(others)
    options = {letter: draft.correct if letter == answer else next(slots) for letter in LETTERS}
    return options, answer


def letter_counts(answers: Iterable[str]) -> dict[str, int]:
    """How many answers sit at each of A-D (letters never used count 0; others are kept)."""
    counts = Counter(answers)
    return {**{letter: counts.pop(letter, 0) for letter in LETTERS}, **dict(sorted(counts.items()))}


@dataclass(frozen=True)
class Slot:
    """One key to place: where it sits (level and stratum) and, if an earlier round already
    placed it, its symbol (which it keeps)."""

    key: str
    """A stable name (a unit key, an item id): the order keys take their symbols in."""
    level: str
    stratum: str
    """The stratum within the level (e.g. the fine aspect)."""
    placed: str | None = None


def _rng(seed: Sequence[object], *parts: object) -> random.Random:
    return random.Random(content_id("spread", *seed, *parts))


@dataclass(frozen=True)
class _Stratum:
    """One stratum's slots: what is placed, what its final counts must at least be, and how
    many more symbols (one per symbol at most) it still takes beyond that."""

    name: str
    fresh: list[str]
    placed: Counter[str]
    floor: dict[str, int]
    extra: int
    room: dict[str, int]
    """How many of the extras each symbol may take."""

    @classmethod
    def of(cls, name: str, slots: list[Slot], symbols: Sequence[str]) -> _Stratum:
        placed = Counter(slot.placed for slot in slots if slot.placed)
        n, width = len(slots), len(symbols)
        floor = {s: max(placed[s], n // width) for s in symbols}
        room = {s: 1 if floor[s] == n // width else 0 for s in symbols}
        if sum(floor.values()) > n:  # placed unevenly (e.g. before strata): only add to them
            floor, room = {s: placed[s] for s in symbols}, dict.fromkeys(symbols, n)
        fresh = sorted(slot.key for slot in slots if slot.placed is None)
        return cls(name, fresh, placed, floor, n - sum(floor.values()), room)


def _extras(
    strata: list[_Stratum], symbols: Sequence[str], level: Counter[str], total: Counter[str]
) -> dict[str, Counter[str]]:
    """Which symbols take each stratum's extras so that the level's counts, then the whole
    benchmark's, are as even as the strata allow: a min-cost flow from strata to symbols where
    a symbol's k-th extra costs more the more the level (first) and the benchmark (second)
    already have, and ties go by the order of ``symbols``."""
    wanted = sum(s.extra for s in strata)
    if not wanted:
        return {s.name: Counter() for s in strata}
    step = len(symbols) + 1
    weight = step * (sum(total.values()) + wanted + step)  # the level's count always dominates
    graph = nx.DiGraph()
    for stratum in strata:
        graph.add_edge("source", ("stratum", stratum.name), capacity=stratum.extra, weight=0)
        for symbol in symbols:
            if stratum.room[symbol]:
                edge = (("stratum", stratum.name), ("symbol", symbol))
                graph.add_edge(*edge, capacity=stratum.room[symbol], weight=0)
    for rank, symbol in enumerate(symbols):
        for k in range(wanted):
            cost = weight * (level[symbol] + k) + step * (total[symbol] + k) + rank
            graph.add_edge(("symbol", symbol), ("unit", symbol, k), capacity=1, weight=cost)
            graph.add_edge(("unit", symbol, k), "sink", capacity=1, weight=0)
    flow = nx.max_flow_min_cost(graph, "source", "sink")
    return {
        s.name: Counter({sym: flow[("stratum", s.name)].get(("symbol", sym), 0) for sym in symbols})
        for s in strata
    }


def spread(slots: Sequence[Slot], symbols: Sequence[str], seed: Sequence[object]) -> dict[str, str]:
    """A symbol for every slot (placed ones keep theirs): within each stratum every symbol the
    same number of times, up to one more for the remainder; which symbols take the strata's
    remainders is chosen so that each level's counts, and then the whole benchmark's, are as
    even as possible (ties in a seeded order per level). Which slot of a stratum gets which
    symbol is a seeded shuffle.

    With nothing placed every stratum is exact and every level and the whole benchmark differ
    by at most one per symbol. Placed slots (items of earlier rounds, which keep their symbols)
    can make a level's ±1 impossible; strata placed evenly stay within one, and the rest is as
    even as the placed symbols allow. ``seed``: what the draws depend on (e.g. capability and
    seed), so two benchmarks of one seed do not share a key sequence. The result depends on the
    slots' keys, not on their order.
    """
    levels: dict[str, dict[str, list[Slot]]] = {}
    for slot in slots:
        levels.setdefault(slot.level, {}).setdefault(slot.stratum, []).append(slot)
    out = {slot.key: slot.placed for slot in slots if slot.placed is not None}
    total = Counter(slot.placed for slot in slots if slot.placed)
    for level, grouped in sorted(levels.items()):
        order = list(symbols)
        _rng(seed, "rank", level).shuffle(order)
        strata = [_Stratum.of(name, group, symbols) for name, group in sorted(grouped.items())]
        forced = Counter[str]()
        for stratum in strata:
            forced.update({s: stratum.floor[s] - stratum.placed[s] for s in symbols})
        level_now = forced + Counter(s for st in strata for s in st.placed.elements())
        extras = _extras(strata, order, level_now, total + forced)
        for stratum in strata:
            final = Counter(stratum.floor) + extras[stratum.name]
            new = list((final - stratum.placed).elements())
            _rng(seed, "shuffle", level, stratum.name).shuffle(new)
            out.update(zip(stratum.fresh, new, strict=True))
            total.update(new)
    return out
