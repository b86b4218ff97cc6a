"""Human evaluation in the browser: blind pairwise votes and alignment checks.

A ballot shows two answers as "Answer 1" and "Answer 2" in a random order. Which model wrote
which stays on the server (in :class:`BallotBox`, keyed by a random id), so not even the page
source reveals the models before the vote. A ballot is issued to one annotator and only they can
cast it. A vote is stored as a ``human`` judgment with the two players sorted, so voting again on
the same pair replaces the earlier vote instead of adding a second one, and ``lvlmbench
agreement`` reads it like an imported vote; beside it a :class:`~lvlmbench.store.WebVote` keeps
which answer was shown first and how long the vote took, for the annotators' flags.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from itertools import combinations

from lvlmbench.judging.human_checks import CHECKS, HUMAN_CHECK, check_judgment
from lvlmbench.judging.pairwise_report import HUMAN
from lvlmbench.store import (
    Store,
    WebVote,
    iter_benchmark_responses,
    iter_items,
    iter_judgments,
    judgment_id,
    put_judgments,
    put_web_vote,
)
from lvlmbench.types import BenchmarkItem, Judgment, Status

__all__ = [
    "Ballot",
    "BallotBox",
    "check_candidates",
    "new_ballot",
    "pick_check_item",
    "record_checks",
    "record_vote",
    "votable",
]


@dataclass(frozen=True)
class Ballot:
    """One blind comparison: ``left`` is shown as Answer 1, ``right`` as Answer 2."""

    id: str
    benchmark: str
    item: BenchmarkItem
    left: str
    right: str
    left_text: str
    right_text: str
    annotator: str
    """Who it was issued to: the only one who may cast it."""
    issued_at: float


class BallotBox:
    """Open ballots by id, bounded twice: ``per_annotator`` open ballots each (their oldest is
    dropped for a new one, so reloading the vote page cannot crowd the box) and ``capacity``
    in all (the oldest are forgotten first); a dropped ballot asks its voter to take a new one.
    """

    def __init__(self, capacity: int = 10_000, per_annotator: int = 20) -> None:
        self._open: OrderedDict[str, Ballot] = OrderedDict()
        self._mine: dict[str, OrderedDict[str, None]] = {}
        self._capacity = capacity
        self._per_annotator = per_annotator
        self._lock = threading.Lock()

    def _drop(self, ballot_id: str) -> Ballot | None:
        ballot = self._open.pop(ballot_id, None)
        if ballot is not None:
            mine = self._mine[ballot.annotator]
            mine.pop(ballot_id, None)
            if not mine:
                del self._mine[ballot.annotator]
        return ballot

    def add(self, ballot: Ballot) -> None:
        with self._lock:
            self._open[ballot.id] = ballot
            mine = self._mine.setdefault(ballot.annotator, OrderedDict())
            mine[ballot.id] = None
            while len(mine) > self._per_annotator:
                self._drop(next(iter(mine)))
            while len(self._open) > self._capacity:
                self._drop(next(iter(self._open)))

    def take(self, ballot_id: str, annotator: str) -> Ballot | None:
        """The ballot, removed so that it counts once; None when unknown, already used or
        issued to someone else (then it stays open for them)."""
        with self._lock:
            ballot = self._open.get(ballot_id)
            if ballot is None or ballot.annotator != annotator:
                return None
            return self._drop(ballot_id)


def _answers(
    store: Store, benchmark: str, items: dict[str, BenchmarkItem]
) -> dict[str, dict[str, str]]:
    """item id → model → ok default-variant answer text, for open-ended items."""
    answers: dict[str, dict[str, str]] = {}
    ok = Status.OK.value
    for response in iter_benchmark_responses(store, benchmark, variant="default", status=ok):
        if response.item_id in items and response.text.strip():
            answers.setdefault(response.item_id, {})[response.model] = response.text
    return answers


def _voted(store: Store, annotator: str) -> set[tuple[str, str, str]]:
    return {
        (j.item_id, j.model_a, j.model_b or "")
        for j in iter_judgments(store, protocol=HUMAN, judge=f"human:{annotator}")
    }


def votable(store: Store, benchmark: str) -> bool:
    """Whether the benchmark has anything to vote on: an open-ended item with two answers
    (a keyed item is scored against its key, never voted on)."""
    items = {i.id: i for i in iter_items(store, benchmark) if i.kind == "open"}
    if not items:
        return False
    return any(len(by_model) > 1 for by_model in _answers(store, benchmark, items).values())


def new_ballot(store: Store, benchmark: str, annotator: str, rng: random.Random) -> Ballot | None:
    """A random pair this annotator has not voted on, in random order; None when none is left
    (or the benchmark has no open-ended item with two answers)."""
    items = {i.id: i for i in iter_items(store, benchmark) if i.kind == "open"}
    answers = _answers(store, benchmark, items)
    voted = _voted(store, annotator)
    pairs = [
        (item_id, a, b)
        for item_id, by_model in sorted(answers.items())
        for a, b in combinations(sorted(by_model), 2)
        if (item_id, a, b) not in voted
    ]
    if not pairs:
        return None
    item_id, a, b = rng.choice(pairs)
    left, right = (a, b) if rng.random() < 0.5 else (b, a)
    texts = answers[item_id]
    return Ballot(
        id=secrets.token_urlsafe(16),
        benchmark=benchmark,
        item=items[item_id],
        left=left,
        right=right,
        left_text=texts[left],
        right_text=texts[right],
        annotator=annotator,
        issued_at=time.time(),
    )


def record_vote(store: Store, ballot: Ballot, choice: str, client: str = "") -> Judgment:
    """Store the vote (``choice``: left, right or tie) as a human judgment of the ballot's
    annotator, with how it was cast (``client``: a tag of the sender's address); return it."""
    if choice not in ("left", "right", "tie"):
        raise ValueError("choice must be left, right or tie")
    annotator = ballot.annotator
    first, second = sorted((ballot.left, ballot.right))
    winner = {"left": ballot.left, "right": ballot.right}.get(choice)
    verdict = "tie" if winner is None else "a" if winner == first else "b"
    judgment = Judgment(
        item_id=ballot.item.id,
        judge=f"human:{annotator}",
        protocol=HUMAN,
        model_a=first,
        model_b=second,
        verdict=verdict,
    )
    cast = WebVote(
        id=judgment_id(judgment),
        annotator=annotator,
        shown="ab" if ballot.left == first else "ba",
        choice=choice,
        issued_at=ballot.issued_at,
        cast_at=time.time(),
        client=client,
    )
    # The record first: a vote whose record a crash lost would read as an imported one.
    put_web_vote(store, cast)
    put_judgments(store, [judgment])
    return judgment


def check_candidates(item: BenchmarkItem) -> list[str]:
    """The checks that make sense for an item: the image one needs an image and a description,
    the aspect one a description and the fine aspect it was written for, the key one needs a
    key or reference."""
    checks = []
    if item.images and item.caption:
        checks.append("image-matches-description")
    if item.caption and item.meta.get("fine_aspect"):
        checks.append("description-matches-aspect")
    if item.answer is not None or item.reference:
        checks.append("key-is-right")
    return checks


def pick_check_item(
    store: Store, benchmark: str, annotator: str, rng: random.Random
) -> BenchmarkItem | None:
    """A random item with at least one check this annotator has not answered yet."""
    done: dict[str, set[str]] = {}
    for j in iter_judgments(store, protocol=HUMAN_CHECK, judge=f"human:{annotator}"):
        done.setdefault(j.item_id, set()).add(j.model_a)
    open_items = [
        item
        for item in iter_items(store, benchmark)
        if set(check_candidates(item)) - done.get(item.id, set())
    ]
    return rng.choice(open_items) if open_items else None


def record_checks(
    store: Store, item: BenchmarkItem, annotator: str, answers: dict[str, str]
) -> list[Judgment]:
    """Store the answered checks. Every check the item's page asks must be answered: a page
    that silently stored a default would turn a skipped question into a vote. Unknown or
    missing checks and unknown answers raise ValueError naming them, and nothing is stored."""
    allowed = check_candidates(item)
    judgments = []
    for check, answer in answers.items():
        if check not in allowed:
            raise ValueError(f"check {check!r} does not apply to this item ({CHECKS.get(check)})")
        judgments.append(check_judgment(item.id, annotator, check, answer))
    missing = [CHECKS[check] for check in allowed if check not in answers]
    if missing:
        raise ValueError("choose an answer before saving: " + " ".join(missing))
    put_judgments(store, judgments)
    return judgments
