"""What people's votes on a benchmark add up to besides the ratings: how many, by whom, and how
well each judge (model judges and text metrics) agrees with them — the numbers `lvlmbench
agreement` prints, from the same function. The report's human-votes section and the web
leaderboard both show it. Votes of annotators the owner excluded are counted apart."""

from __future__ import annotations

from dataclasses import dataclass, field

from lvlmbench.judging.annotator_groups import Annotators, choose_annotators
from lvlmbench.judging.counted_votes import annotator_of
from lvlmbench.judging.judge_vs_human import human_agreement
from lvlmbench.judging.pairwise_report import HUMAN, judges_for
from lvlmbench.judging.protocol import is_human_judge, metric_name, pairwise_protocols
from lvlmbench.store import (
    Store,
    benchmark_item_ids,
    excluded_annotators,
    iter_judgments,
    judgment_protocols,
)

__all__ = ["JudgeAgreement", "VoteSummary", "vote_summary"]


@dataclass(frozen=True)
class JudgeAgreement:
    """One judge against the human majority on the pairs both judged."""

    judge: str
    protocol: str
    pairs: int
    agreement: float | None
    """Overall agreement with the human majority, judge ties as coin flips."""
    kappa: float | None
    ranking_tau: float | None = None
    """Kendall tau between the judge's and the people's system rankings on those pairs."""


@dataclass
class VoteSummary:
    votes: int = 0
    """Votes counted (those of excluded annotators are not)."""
    annotators: list[str] = field(default_factory=list)
    judges: list[JudgeAgreement] = field(default_factory=list)
    excluded_votes: int = 0
    """Votes on the benchmark by annotators the owner excluded (stored, counted nowhere)."""
    excluded: list[str] = field(default_factory=list)
    """Those annotators."""
    agreement_annotators: Annotators | None = None
    """Whose votes the judges' agreement is over (`agreement`'s default group)."""


def _judges(store: Store) -> list[tuple[str, str]]:
    found = [(j, p) for p in pairwise_protocols() for j in judges_for(store, p)]
    protocols = judgment_protocols(store)
    metric_protocols = sorted(p for p in protocols if metric_name(p) is not None)
    for protocol in metric_protocols:
        found += [(j, protocol) for j in judges_for(store, protocol) if "@" not in j]
    return [(j, p) for j, p in found if not is_human_judge(j)]


def vote_summary(store: Store, benchmark: str) -> VoteSummary:
    """Votes on ``benchmark`` and every judge's agreement with them, over the default group
    of annotators (judges with no overlap with the votes are left out)."""
    ids = set(benchmark_item_ids(store, benchmark))  # ids only: no item is parsed
    left_out = excluded_annotators(store)
    every = [j for j in iter_judgments(store, protocol=HUMAN) if j.item_id in ids]
    votes = [j for j in every if annotator_of(j.judge) not in left_out]
    summary = VoteSummary(len(votes), sorted({annotator_of(v.judge) for v in votes}))
    summary.excluded_votes = len(every) - len(votes)
    summary.excluded = sorted({annotator_of(j.judge) for j in every} & left_out)
    if not votes:
        return summary
    chosen = summary.agreement_annotators = choose_annotators(store, benchmark)
    for judge, protocol in _judges(store):
        result = human_agreement(
            store, benchmark, judge, protocol=protocol, annotators=chosen.group
        )
        if result.report is None:
            continue
        summary.judges.append(
            JudgeAgreement(
                judge,
                protocol,
                result.pairs,
                result.report.overall.coin_flip_rate,
                result.kappa,
                result.ranking_tau,
            )
        )
    return summary
