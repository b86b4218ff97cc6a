"""The human-votes entry of a benchmark's report data: people's votes (imported or cast in the
web app, protocol ``human``) rated as ``lvlmbench rate BENCH -j human --style-control`` rates
them — the same function, rounds and seed — and every judge's agreement with them.

A benchmark without votes has no entry, so the report of a store without votes is unchanged.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from lvlmbench.judging import (
    HUMAN,
    RATING_ROUNDS,
    RATING_SEED,
    REFERENCE,
    Annotators,
    VoteSummary,
    corrected_win_rates,
    human_report,
    pairwise_protocols,
    vote_summary,
)
from lvlmbench.store import Store

__all__ = ["human_votes"]


def human_votes(store: Store, benchmark: str) -> list[dict[str, Any]]:
    """[] without votes on ``benchmark`` (excluded ones included), else one entry for every
    annotator pooled: ``votes`` and ``annotators`` counted, the ``rounds`` and ``seed`` of the
    bootstraps, ``ratings`` (the :class:`~lvlmbench.judging.PairwiseReport` dict `rate -j human
    --style-control --json` prints), ``agreement`` (one row per judge that judged voted pairs),
    ``ppi`` (per pairwise judge, each model's win rate vs the reference by the judge, by the
    people and by PPI++, as `lvlmbench agreement BENCH -j JUDGE --json` prints them), and the
    annotators the owner ``excluded`` with their ``excluded_votes`` (counted in none of the
    figures)."""
    votes = vote_summary(store, benchmark)
    if not votes.votes and not votes.excluded_votes:
        return []
    report = human_report(
        store,
        benchmark,
        HUMAN,
        reference=REFERENCE,
        rounds=RATING_ROUNDS,
        seed=RATING_SEED,
        style=True,
    )
    return [
        {
            "judge": HUMAN,
            "votes": votes.votes,
            "annotators": votes.annotators,
            "rounds": RATING_ROUNDS,
            "seed": RATING_SEED,
            "ratings": report.as_dict(),
            "agreement": [asdict(judge) for judge in votes.judges],
            "ppi": _corrected(store, benchmark, votes),
            "excluded": votes.excluded,
            "excluded_votes": votes.excluded_votes,
            "agreement_annotators": None
            if votes.agreement_annotators is None
            else votes.agreement_annotators.as_dict(),
            "agreement_annotators_said": None
            if votes.agreement_annotators is None
            else votes.agreement_annotators.describe(),
        }
    ]


def _corrected(store: Store, benchmark: str, votes: VoteSummary) -> list[dict[str, object]]:
    """Every pairwise judge's PPI figures over the agreement's annotators (text metrics judge
    no model against the reference)."""
    chosen: Annotators | None = votes.agreement_annotators
    if chosen is None:
        return []
    found = []
    for judge in votes.judges:
        if judge.protocol not in pairwise_protocols():
            continue
        figures = corrected_win_rates(
            store, benchmark, judge.judge, protocol=judge.protocol, annotators=chosen
        )
        found += [figure.as_dict() for figure in figures]
    return found
