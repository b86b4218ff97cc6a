"""Ratings and agreement from people's votes (protocol "human"), whatever file they came from.

``lvlmbench rate BENCH -j human`` rates the systems from human votes exactly as from a model
judge (Elo, Bradley-Terry with bootstrap intervals, win rate vs the reference overall and per
category), with one difference: a model judge's pair is scored from its two presentation
orders, while a person votes once, on one order, so **every vote is a match**. Five crowd votes
on a pair are five matches, as in VisIT-Bench's human Elo.

The matches are sorted (item, players, outcome) before rating, so the numbers depend only on
the votes, not on their file, its row order or the annotators' names: the same votes imported
from VisIT-Bench's preference CSV and typed into our wide format rate identically. The one
exception says so in its label: online Elo *in the order fought* replays the votes in the order
of their files' rows (Chatbot Arena's online Elo), next to the mean over shuffled orders.

:func:`vote_agreement` is FastChat's agreement (``compute_agreement.py``): the judge's verdict
on a pair against every single human vote on it, with ties counted as a verdict, and again with
every tie (the judge's or the person's) left out. :func:`annotator_agreement` is its
human-vs-human counterpart (``agreement BENCH -j human``). Both count one annotator group's
votes (:mod:`lvlmbench.judging.annotator_groups`; by default FastChat's experts where there are
some) and say which. Votes of annotators the owner excluded count in none of them (see
:mod:`~lvlmbench.judging.counted_votes`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from lvlmbench.judging.annotator_groups import Annotators, choose_annotators
from lvlmbench.judging.counted_votes import annotator_of, counted_votes
from lvlmbench.judging.judge_vs_human import judge_verdicts
from lvlmbench.judging.pairwise_report import (
    HUMAN,
    RATING_ROUNDS,
    RATING_SEED,
    PairwiseReport,
    rate_matches,
)
from lvlmbench.judging.reference import REFERENCE, answer_texts
from lvlmbench.judging.style_control import style_control
from lvlmbench.judging.verdict import ParsedVerdict
from lvlmbench.ratings import FoughtMatch
from lvlmbench.store import Store, excluded_annotators, iter_items, iter_judgments
from lvlmbench.types import Judgment, Status

__all__ = ["VoteAgreement", "annotator_agreement", "human_report", "vote_agreement"]

_OUTCOME = {"a": 1.0, "b": 0.0, "tie": 0.5}


def _sorted_vote(j: Judgment) -> tuple[str, str, str] | None:
    """(first sorted player, second, result in their terms: 'a', 'b' or 'tie'), or None for a
    vote that is not a usable a/b/tie verdict."""
    verdict = ParsedVerdict.of(j).verdict
    if j.model_b is None or j.status is not Status.OK or verdict is None:
        return None
    p1, p2 = sorted((j.model_a, j.model_b))
    if verdict == "tie":
        return p1, p2, "tie"
    winner = j.model_a if verdict == "a" else j.model_b
    return p1, p2, "a" if winner == p1 else "b"


def _wanted(judge: str, name: str) -> bool:
    """``human`` pools every annotator; ``human:<annotator>`` is one of them."""
    return judge == HUMAN or name == judge


def human_report(
    store: Store,
    benchmark: str,
    judge: str = HUMAN,
    *,
    reference: str = REFERENCE,
    rounds: int = RATING_ROUNDS,
    seed: int = RATING_SEED,
    style: bool = False,
) -> PairwiseReport:
    """Elo, Bradley-Terry with bootstrap CI and win rate vs ``reference`` from the human votes
    on ``benchmark`` (``judge``: ``human`` for all annotators, or ``human:<annotator>``).
    ``pairs`` counts voted pairs, ``unscored_pairs`` those without one usable vote. With
    ``style``, also the style-controlled Bradley-Terry over the votes."""
    items = list(iter_items(store, benchmark))
    categories = {item.id: item.category for item in items}
    position = {item.id: index for index, item in enumerate(items)}
    report = PairwiseReport(judge=judge, protocol=HUMAN)
    votes: list[tuple[str, str, str, float]] = []
    fought: list[FoughtMatch] = []
    pairs: dict[tuple[str, str, str], bool] = {}
    for j in _votes_of(store, judge, report):
        if j.item_id not in categories or j.model_b is None or not _wanted(judge, j.judge):
            continue
        report.statuses[j.status.value] = report.statuses.get(j.status.value, 0) + 1
        vote = _sorted_vote(j)
        p1, p2 = sorted((j.model_a, j.model_b))
        pairs[(j.item_id, p1, p2)] = pairs.get((j.item_id, p1, p2), False) or vote is not None
        if vote is not None:
            votes.append((j.item_id, vote[0], vote[1], _OUTCOME[vote[2]]))
            fought.append(FoughtMatch(j.sequence, position[j.item_id], votes[-1][1:]))
    report.pairs = len(pairs)
    report.unscored_pairs = sum(not scored for scored in pairs.values())
    votes.sort()
    by_category = [(a, b, o, categories[item] or "(none)") for item, a, b, o in votes]
    if rate_matches(
        report, by_category, reference=reference, rounds=rounds, seed=seed, fought=fought
    ):
        report.warnings.append(
            f"{len(votes)} human votes rated, one match per vote (a vote is one order)"
        )
        if style:
            texts = answer_texts(store, items, {p for _, a, b, _ in votes for p in (a, b)})
            report.style = style_control(votes, texts, rounds=rounds, seed=seed)
    return report


def _votes_of(store: Store, judge: str, report: PairwiseReport) -> Iterator[Judgment]:
    """The pooled votes leave out excluded annotators; one annotator asked for by name is
    rated as asked (the owner looking into them), with a warning when they are excluded."""
    if judge == HUMAN:
        return counted_votes(store)
    if annotator_of(judge) in excluded_annotators(store):
        report.warnings.append(
            f"{judge}'s votes are excluded from the pooled human figures "
            f"(`lvlmbench annotators include {annotator_of(judge)}` counts them again)"
        )
    return iter_judgments(store, protocol=HUMAN)


@dataclass(frozen=True)
class VoteAgreement:
    """FastChat-style agreement: judge verdict vs each human vote on the pairs both judged."""

    agree_with_ties: int
    total_with_ties: int
    agree_without_ties: int
    total_without_ties: int
    annotators: Annotators | None = None
    """Whose votes were counted (None: every vote, the figures given directly)."""
    by_turn: tuple[tuple[int, VoteAgreement], ...] = ()
    """The same figures per turn, where the items are the turns of multi-turn questions
    (``meta.turn``, as a FastChat file imported alone builds them): FastChat's
    ``compute_agreement.py`` prints turn 1 and turn 2 apart. Empty with one turn or none."""

    @property
    def with_ties(self) -> float | None:
        """Share of (judge, vote) pairs that match, a tie matching a tie."""
        return self.agree_with_ties / self.total_with_ties if self.total_with_ties else None

    @property
    def without_ties(self) -> float | None:
        """The same share over the pairs where neither the judge nor the person said tie."""
        return (
            self.agree_without_ties / self.total_without_ties if self.total_without_ties else None
        )


class _Tally:
    """Agreement counts, overall and per turn of the item each comparison is on."""

    def __init__(self, turns: dict[str, int]) -> None:
        self.turns = turns
        self.counts: dict[int, list[int]] = {}

    def add(self, item_id: str, first: str, second: str) -> None:
        counts = self.counts.setdefault(self.turns.get(item_id, 1), [0, 0, 0, 0])
        counts[0] += first == second
        counts[1] += 1
        if "tie" not in (first, second):
            counts[2] += first == second
            counts[3] += 1

    def result(self, annotators: Annotators) -> VoteAgreement:
        by_turn = tuple(
            (turn, _agreement(counts, annotators)) for turn, counts in sorted(self.counts.items())
        )
        total = [sum(c[i] for c in self.counts.values()) for i in range(4)]
        return _agreement(total, annotators, by_turn if len(by_turn) > 1 else ())


def _agreement(
    counts: list[int],
    annotators: Annotators,
    by_turn: tuple[tuple[int, VoteAgreement], ...] = (),
) -> VoteAgreement:
    agree, total, agree_decided, decided = counts
    return VoteAgreement(agree, total, agree_decided, decided, annotators, by_turn)


def _items_and_turns(store: Store, benchmark: str) -> tuple[set[str], dict[str, int]]:
    """The benchmark's item ids, and the turn of those that are a later turn of a question."""
    items: set[str] = set()
    turns: dict[str, int] = {}
    for item in iter_items(store, benchmark):
        items.add(item.id)
        turn = item.meta.get("turn")
        if isinstance(turn, int) and not isinstance(turn, bool):
            turns[item.id] = turn
    return items, turns


def annotator_agreement(
    store: Store, benchmark: str, *, annotators: str | None = None
) -> VoteAgreement:
    """FastChat's human-vs-human agreement: every two votes on the same pair of the same item
    (by different people or not: crowd votes carry no id, and FastChat pairs an expert's two
    votes too), with ties and without, over the votes of ``annotators`` (a group such as
    ``expert``, ``all``, or None for the default: see :func:`choose_annotators`). It is the
    ceiling a judge's agreement with single votes can be read against."""
    chosen = choose_annotators(store, benchmark, annotators)
    items, turns = _items_and_turns(store, benchmark)
    by_pair: dict[tuple[str, str, str], list[str]] = {}
    for j in counted_votes(store):
        vote = _sorted_vote(j) if j.item_id in items and chosen.admits(j.judge) else None
        if vote is not None:
            by_pair.setdefault((j.item_id, vote[0], vote[1]), []).append(vote[2])
    tally = _Tally(turns)
    for (item_id, _, _), votes in by_pair.items():
        for first, second in combinations(votes, 2):
            tally.add(item_id, first, second)
    return tally.result(chosen)


def vote_agreement(
    store: Store, benchmark: str, judge: str, *, protocol: str, annotators: str | None = None
) -> VoteAgreement:
    """The judge's combined verdict on each pair against every human vote on that pair by
    ``annotators`` (as in :func:`annotator_agreement`)."""
    chosen = choose_annotators(store, benchmark, annotators)
    items, turns = _items_and_turns(store, benchmark)
    verdicts = judge_verdicts(store, benchmark, items, judge, protocol)
    tally = _Tally(turns)
    for j in counted_votes(store):
        vote = _sorted_vote(j) if j.item_id in items and chosen.admits(j.judge) else None
        if vote is None:
            continue
        verdict = verdicts.get((j.item_id, vote[0], vote[1]))
        if verdict is not None:  # None: the judge left the pair unscored, or never judged it
            tally.add(j.item_id, verdict, vote[2])
    return tally.result(chosen)
