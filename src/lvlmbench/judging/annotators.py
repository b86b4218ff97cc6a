"""Votes per annotator and the flags that point at stuffed or careless votes (Chatbot Arena's
anomaly checks, on the votes of one store).

For each annotator: votes, ties, which side their decisive votes took, their agreement with the
other annotators and, for votes cast in the web app, how fast they voted. Sides come in two
kinds: web votes record which answer was shown first (*Answer 1* / *Answer 2*); imported votes
and web votes stored before that record existed have only the stored *A* / *B* (an imported
file's own sides; old web votes stored the players sorted by name).

Flags (each needs :data:`MIN_VOTES` votes behind it, so a newcomer is never flagged on three):

* **one side** — at least :data:`ONE_SIDE` of the decisive votes of one kind on one side;
* **all ties** — at least :data:`ALL_TIES` of the votes are ties;
* **disagrees** — agreement with the other annotators' majority on shared pairs more than
  :data:`DISAGREE_GAP` below the pooled agreement of the rest (each of them against the majority
  of everyone but themselves). Pairs where the others split evenly, and tie votes, compare
  nothing. Excluded annotators are left out of every majority and of the rest;
* **fast** — a median under :data:`FAST_S` seconds from ballot to vote (web votes only).

The flags point; the owner decides (`lvlmbench annotators exclude NAME`).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field

from lvlmbench.judging.counted_votes import annotator_of
from lvlmbench.judging.protocol import HUMAN
from lvlmbench.judging.verdict import ParsedVerdict
from lvlmbench.store import (
    Store,
    WebVote,
    benchmark_item_ids,
    excluded_annotators,
    iter_judgments,
    iter_web_votes,
    judgment_id,
    list_annotators,
)
from lvlmbench.types import Judgment, Status

__all__ = [
    "ALL_TIES",
    "DISAGREE_GAP",
    "FAST_S",
    "MIN_VOTES",
    "ONE_SIDE",
    "AnnotatorReport",
    "AnnotatorRow",
    "Sides",
    "annotator_report",
]

MIN_VOTES = 10
"""Votes (decisive ones for the side flag, compared ones for agreement) before a flag."""
ONE_SIDE = 0.9
ALL_TIES = 0.9
DISAGREE_GAP = 0.25
FAST_S = 3.0

_Pair = tuple[str, str, str]  # item, first player, second player (sorted)


@dataclass(frozen=True)
class Sides:
    """Decisive votes for the answer shown first and for the one shown second."""

    first: int = 0
    second: int = 0

    @property
    def total(self) -> int:
        return self.first + self.second

    def one_sided(self) -> str | None:
        """'first' or 'second' when :data:`ONE_SIDE` of at least :data:`MIN_VOTES` votes went
        there, else None."""
        if self.total < MIN_VOTES:
            return None
        if self.first >= ONE_SIDE * self.total:
            return "first"
        return "second" if self.second >= ONE_SIDE * self.total else None


@dataclass(frozen=True)
class AnnotatorRow:
    """One annotator's votes and flags."""

    annotator: str
    votes: int
    ties: int
    shown: Sides
    """Web votes: Answer 1 vs Answer 2 as shown."""
    stored: Sides
    """Other votes: A vs B as stored."""
    compared: int
    """Decisive votes on pairs where the other annotators' majority is decisive."""
    agreed: int
    """Of those, votes on the majority's side."""
    median_s: float | None
    """Median seconds from ballot to vote (web votes), None without any."""
    clients: int
    """Distinct clients the web votes came from (0 without web votes)."""
    invite: str
    """``active``, ``revoked``, or ``""`` when never invited (owner, imported votes)."""
    excluded: bool
    flags: tuple[str, ...] = ()

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.compared if self.compared else None


@dataclass(frozen=True)
class AnnotatorReport:
    """Every annotator with votes (and every invited one), by name."""

    rows: list[AnnotatorRow] = field(default_factory=list)


@dataclass
class _Tally:
    votes: int = 0
    ties: int = 0
    shown: list[int] = field(default_factory=lambda: [0, 0])
    stored: list[int] = field(default_factory=lambda: [0, 0])
    seconds: list[float] = field(default_factory=list)
    clients: set[str] = field(default_factory=set)
    decisive: list[tuple[_Pair, str]] = field(default_factory=list)
    """(pair, winner 'a' or 'b' in sorted-player terms)."""


def _sorted_winner(vote: Judgment, verdict: str) -> str:
    winner = vote.model_a if verdict == "a" else vote.model_b
    return "a" if winner == min(vote.model_a, vote.model_b or "") else "b"


def _count(tally: _Tally, vote: Judgment, cast: WebVote | None) -> None:
    verdict = ParsedVerdict.of(vote).verdict
    if vote.model_b is None or vote.status is not Status.OK or verdict is None:
        return
    tally.votes += 1
    if cast is not None:
        tally.seconds.append(max(0.0, cast.cast_at - cast.issued_at))
        tally.clients.add(cast.client)
    if verdict == "tie":
        tally.ties += 1
        return
    if cast is not None and cast.choice in ("left", "right"):
        tally.shown[cast.choice == "right"] += 1
    else:
        tally.stored[verdict == "b"] += 1
    p1, p2 = sorted((vote.model_a, vote.model_b))
    tally.decisive.append(((vote.item_id, p1, p2), _sorted_winner(vote, verdict)))


def _tallies(store: Store, benchmark: str | None) -> dict[str, _Tally]:
    ids = set(benchmark_item_ids(store, benchmark)) if benchmark is not None else None
    cast = {vote.id: vote for vote in iter_web_votes(store)}
    tallies: dict[str, _Tally] = {}
    for vote in iter_judgments(store, protocol=HUMAN):
        if ids is None or vote.item_id in ids:
            tally = tallies.setdefault(annotator_of(vote.judge), _Tally())
            _count(tally, vote, cast.get(judgment_id(vote)))
    return tallies


def _agreement(tallies: dict[str, _Tally], counted: Iterable[str]) -> dict[str, tuple[int, int]]:
    """annotator → (agreed, compared) against the majority of the counted annotators other
    than themselves."""
    counted = set(counted)
    wins: dict[_Pair, dict[str, int]] = {}
    for name in counted:
        for pair, winner in tallies[name].decisive:
            side = wins.setdefault(pair, {"a": 0, "b": 0})
            side[winner] += 1
    result: dict[str, tuple[int, int]] = {}
    for name, tally in tallies.items():
        agreed = compared = 0
        for pair, winner in tally.decisive:
            side = dict(wins.get(pair, {"a": 0, "b": 0}))
            if name in counted:
                side[winner] -= 1  # the majority of the *others*
            if side["a"] == side["b"]:
                continue
            compared += 1
            agreed += winner == ("a" if side["a"] > side["b"] else "b")
        result[name] = (agreed, compared)
    return result


def _flags(tally: _Tally, mine: tuple[int, int], rest: tuple[int, int]) -> tuple[str, ...]:
    flags = []
    for sides, labels in ((tally.shown, ("Answer 1", "Answer 2")), (tally.stored, ("A", "B"))):
        side = Sides(*sides).one_sided()
        if side is not None:
            picked = sides[side == "second"]
            label = labels[side == "second"]
            flags.append(f"one side: {label} in {picked} of {sum(sides)} decisive votes")
    if tally.votes >= MIN_VOTES and tally.ties >= ALL_TIES * tally.votes:
        flags.append(f"all ties: {tally.ties} of {tally.votes} votes")
    (agreed, compared), (rest_agreed, rest_compared) = mine, rest
    if compared >= MIN_VOTES and rest_compared >= MIN_VOTES:
        rest_rate = rest_agreed / rest_compared
        if agreed / compared < rest_rate - DISAGREE_GAP:
            flags.append(
                f"disagrees: {agreed} of {compared} with the others' majority "
                f"(the rest: {rest_agreed} of {rest_compared}, {100 * rest_rate:.0f}%)"
            )
    if len(tally.seconds) >= MIN_VOTES and statistics.median(tally.seconds) < FAST_S:
        flags.append(f"fast: median {statistics.median(tally.seconds):.1f} s from ballot to vote")
    return tuple(flags)


def annotator_report(store: Store, benchmark: str | None = None) -> AnnotatorReport:
    """Votes and flags per annotator on ``benchmark``'s items (every item when None)."""
    tallies = _tallies(store, benchmark)
    invites = {a.name: "active" if a.active else "revoked" for a in list_annotators(store)}
    for name in invites:
        tallies.setdefault(name, _Tally())
    excluded = excluded_annotators(store)
    counted = [name for name in tallies if name not in excluded]
    agreement = _agreement(tallies, counted)
    rows = []
    for name, tally in sorted(tallies.items()):
        others = [agreement[o] for o in counted if o != name]
        rest = (sum(a for a, _ in others), sum(c for _, c in others))
        rows.append(
            AnnotatorRow(
                annotator=name,
                votes=tally.votes,
                ties=tally.ties,
                shown=Sides(*tally.shown),
                stored=Sides(*tally.stored),
                compared=agreement[name][1],
                agreed=agreement[name][0],
                median_s=statistics.median(tally.seconds) if tally.seconds else None,
                clients=len(tally.clients),
                invite=invites.get(name, ""),
                excluded=name in excluded,
                flags=_flags(tally, agreement[name], rest),
            )
        )
    return AnnotatorReport(rows)
