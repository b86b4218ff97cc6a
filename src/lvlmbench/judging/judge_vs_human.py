"""How far a pairwise judge agrees with people: its two-order verdicts against the majority of
the human votes on the same pairs (per-level agreement, Cohen's kappa, and the Kendall tau
between the two rankings of the systems), and the judge's verdicts per pair that it compares.
Pure reads of the store plus :mod:`lvlmbench.ratings`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from lvlmbench.judging.annotator_groups import Annotators, choose_annotators
from lvlmbench.judging.counted_votes import counted_votes
from lvlmbench.judging.pairwise import PAIRWISE
from lvlmbench.judging.pairwise_report import pair_records
from lvlmbench.judging.protocol import metric_name
from lvlmbench.judging.scale import ParsedRating
from lvlmbench.judging.verdict import ParsedVerdict
from lvlmbench.ratings import (
    MAJORITY,
    AgreementReport,
    CombineRule,
    cohen_kappa,
    judge_human_agreement,
    kendall_tau,
)
from lvlmbench.store import Store, iter_items, iter_judgments
from lvlmbench.types import Status

__all__ = ["HumanAgreement", "human_agreement", "judge_verdicts", "metric_verdicts"]


@dataclass
class HumanAgreement:
    """Judge vs human majority on the pairs both judged."""

    report: AgreementReport | None
    kappa: float | None
    pairs: int
    """Pairs with human votes that the judge also judged."""
    human_ties_dropped: int = 0
    """Human 'tie' votes left out (agreement is measured against forced-choice votes)."""
    ranking_tau: float | None = None
    """Kendall tau-b between the systems ranked by judge wins and by human-majority wins on
    the same pairs (None with fewer than two systems or no decided pair)."""
    annotators: Annotators | None = None
    """Whose votes formed the majorities."""


def _human_votes(
    store: Store, items: set[str], annotators: Annotators
) -> tuple[dict[tuple[str, str, str], list[str]], int]:
    votes: dict[tuple[str, str, str], list[str]] = {}
    ties = 0
    for j in counted_votes(store):
        if j.item_id not in items or j.model_b is None or j.status is not Status.OK:
            continue
        if not annotators.admits(j.judge):
            continue
        verdict = ParsedVerdict.of(j).verdict
        if verdict not in ("a", "b"):
            ties += verdict == "tie"
            continue
        winner = j.model_a if verdict == "a" else j.model_b
        p1, p2 = sorted((j.model_a, j.model_b))
        votes.setdefault((j.item_id, p1, p2), []).append("A" if winner == p1 else "B")
    return votes, ties


def human_agreement(
    store: Store,
    benchmark: str,
    judge: str,
    *,
    protocol: str = PAIRWISE,
    seed: int = 0,
    combine: CombineRule = MAJORITY,
    annotators: str | None = None,
) -> HumanAgreement:
    """Per-level agreement (5/5, 4/5, ...; ties as coin flips and excluded) and Cohen's kappa
    between the judge's two-order verdict (combined by ``combine``) and the majority of the
    votes of ``annotators`` (a group, ``all``, or None for the default: see
    :func:`~lvlmbench.judging.annotator_groups.choose_annotators`)."""
    chosen = choose_annotators(store, benchmark, annotators)
    items = {item.id for item in iter_items(store, benchmark)}
    votes, ties = _human_votes(store, items, chosen)
    verdicts = judge_verdicts(store, benchmark, items, judge, protocol, combine)
    compared: list[tuple[Any, list[str]]] = []
    decided: list[tuple[tuple[str, str, str], tuple[Any, list[str]]]] = []
    for key, human in sorted(votes.items()):
        if key in verdicts:
            result = verdicts[key]
            compared.append(({"a": "A", "b": "B"}.get(result or "", result), human))
            decided.append((key, compared[-1]))
    if not compared:
        return HumanAgreement(None, None, 0, ties, annotators=chosen)
    report = judge_human_agreement(compared, seed=seed)
    judge_labels, human_labels = [], []
    for verdict, human in compared:
        a_votes = human.count("A")
        if verdict is None or 2 * a_votes == len(human):
            continue
        judge_labels.append(verdict)
        human_labels.append("A" if 2 * a_votes > len(human) else "B")
    kappa = cohen_kappa(judge_labels, human_labels) if judge_labels else None
    if kappa is not None and math.isnan(kappa):
        kappa = None
    tau = _ranking_tau([(key[1:], verdict, human) for key, (verdict, human) in decided])
    return HumanAgreement(report, kappa, len(compared), ties, tau, chosen)


def judge_verdicts(
    store: Store,
    benchmark: str,
    items: set[str],
    judge: str,
    protocol: str,
    combine: CombineRule = MAJORITY,
) -> dict[tuple[str, str, str], str | None]:
    """The judge's result per (item, first player, second player) in sorted-player terms:
    'a', 'b', 'tie', or None for a pair it left unscored (two orders combined by
    ``combine``)."""
    if metric_name(protocol) is not None:
        return dict(metric_verdicts(store, items, judge, protocol))
    return {
        (r.item_id, *r.players): r.result(combine)
        for r in pair_records(store, benchmark, judge, protocol)
    }


def metric_verdicts(
    store: Store, items: set[str], judge: str, protocol: str
) -> dict[tuple[str, str, str], str]:
    """A text metric read as a pairwise judge: per item and pair of models (sorted), 'a' when
    the first scored higher against the reference, 'b' when the second did, 'tie' when equal.
    It is the same rule that turns metric scores into rating matches."""
    scores: dict[str, dict[str, float]] = {}
    for j in iter_judgments(store, judge=judge, protocol=protocol, status=Status.OK.value):
        value = ParsedRating.of(j).value
        if j.item_id in items and value is not None:
            scores.setdefault(j.item_id, {})[j.model_a] = value
    verdicts: dict[tuple[str, str, str], str] = {}
    for item_id, by_model in scores.items():
        for p1, p2 in itertools.combinations(sorted(by_model), 2):
            s1, s2 = by_model[p1], by_model[p2]
            verdicts[(item_id, p1, p2)] = "a" if s1 > s2 else "b" if s2 > s1 else "tie"
    return verdicts


def _ranking_tau(pairs: list[tuple[tuple[str, ...], str, list[str]]]) -> float | None:
    """Kendall tau between per-system win rates by the judge and by the human majority."""
    judged: dict[str, list[int]] = {}
    voted: dict[str, list[int]] = {}
    for (p1, p2), verdict, human in pairs:
        a_votes = human.count("A")
        if verdict not in ("A", "B") or 2 * a_votes == len(human):
            continue
        for table, winner_is_first in ((judged, verdict == "A"), (voted, 2 * a_votes > len(human))):
            table.setdefault(p1, [0, 0])[1] += 1
            table.setdefault(p2, [0, 0])[1] += 1
            table[p1 if winner_is_first else p2][0] += 1
    if len(judged) < 2:
        return None
    tau = kendall_tau(
        {m: w / n for m, (w, n) in judged.items()}, {m: w / n for m, (w, n) in voted.items()}
    )
    return None if math.isnan(tau) else tau
