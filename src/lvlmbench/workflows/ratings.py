"""The rate and agreement use cases: ratings from a judge's (or people's) stored pairwise
verdicts, and a judge's agreement with the people's votes. ``lvlmbench rate`` /
``lvlmbench agreement`` and ``api.rate`` / ``api.agreement`` call these, so both front doors
take the same judges (``human``, ``human:<annotator>``, ``metric/<name>``) and refuse alike.
Both only read the store.
"""

from __future__ import annotations

from dataclasses import dataclass

from lvlmbench.judging import (
    ALL_ANNOTATORS,
    HUMAN,
    METRIC,
    RATING_ROUNDS,
    RATING_SEED,
    REFERENCE,
    SELF_CHECK,
    Annotators,
    CorrectedFigure,
    HumanAgreement,
    PairwiseReport,
    VoteAgreement,
    annotator_agreement,
    choose_annotators,
    corrected_alignment,
    corrected_win_rates,
    human_agreement,
    human_report,
    is_human_judge,
    judges_for,
    pairwise_protocols,
    pairwise_report,
    vote_agreement,
)
from lvlmbench.models import model_identity
from lvlmbench.ratings import COMBINE_RULES, CombineRule
from lvlmbench.store import Store, require_benchmark
from lvlmbench.workflows._errors import InvalidOptions

__all__ = [
    "AgreementOptions",
    "AgreementResult",
    "RateOptions",
    "agreement",
    "combine_rule",
    "rate",
]


@dataclass(frozen=True)
class RateOptions:
    """Every option of ``lvlmbench rate``, with the command's defaults."""

    judge: str | None = None
    """A judge spec, ``human`` (people's votes) or ``human:<annotator>``; None: the one judge
    with rows."""
    protocol: str | None = None
    """pairwise or pairwise-ref; None: the one this judge used."""
    reference: str = REFERENCE
    rounds: int = RATING_ROUNDS
    """Bootstrap rounds of the intervals."""
    seed: int = RATING_SEED
    combine: str = "majority"
    """How a pair's two orders combine (``majority``: VisIT-Bench's rule; ``both``)."""
    style_control: bool = False
    """Also fit Bradley-Terry with answer length and markdown as covariates."""


@dataclass(frozen=True)
class AgreementOptions:
    """Every option of ``lvlmbench agreement``, with the command's defaults."""

    judge: str
    """A judge spec with pairwise rows, ``metric/<name>``, ``human`` (people with each
    other), or ``self-check`` (AutoBench-V's self-check against people's image checks)."""
    protocol: str | None = None
    seed: int = 0
    """Seed of the coin flips for judge ties."""
    annotators: str | None = None
    """A group of annotators as the vote file names it, or ``all``; None: ``expert`` where
    there are expert votes (FastChat's compute_agreement.py), else ``all``."""


@dataclass(frozen=True)
class AgreementResult:
    """What :func:`agreement` found: the judge against the people's votes, over the votes of
    ``annotators`` (which group, and what it left out)."""

    judge: str
    protocol: str | None
    """The judge's protocol (None for ``human``: people with each other)."""
    annotators: Annotators
    votes: VoteAgreement
    """Against each single vote, with and without ties (FastChat's rule); for ``human``,
    every two votes on a pair."""
    majority: HumanAgreement | None
    """Against the majority of the votes per pair, by level (None for ``human``)."""
    corrected: tuple[CorrectedFigure, ...] = ()
    """Each model's win rate vs the reference by the judge on every item, by the votes on
    some, and by PPI++ (the judge corrected by the votes); () for ``human`` and text
    metrics (they judge no model against the reference). For ``self-check``: the one
    alignment figure, and ``votes`` counts nothing (people checked images, not pairs)."""


def combine_rule(value: str) -> CombineRule:
    """``combine`` checked: one of :data:`COMBINE_RULES`."""
    for rule in COMBINE_RULES:
        if value == rule:
            return rule
    raise InvalidOptions(f"--combine must be one of {', '.join(COMBINE_RULES)}, got {value!r}")


def rate(store: Store, benchmark: str, options: RateOptions) -> PairwiseReport:
    """Bradley-Terry (bootstrap 95% intervals), win rate vs the reference, online Elo and
    judge diagnostics from the stored verdicts; InvalidOptions when there is nothing to rate."""
    rule = combine_rule(options.combine)
    require_benchmark(store, benchmark)
    judge = options.judge
    if judge is not None and (judge == HUMAN or judge.startswith(HUMAN + ":")):
        report = human_report(
            store,
            benchmark,
            judge,
            reference=options.reference,
            rounds=options.rounds,
            seed=options.seed,
            style=options.style_control,
        )
        if report.pairs == 0:
            with_votes = ", ".join(judges_for(store, HUMAN)) or "none"
            raise InvalidOptions(
                f"no human votes on benchmark {benchmark!r} by {judge!r}; annotators with "
                f"votes: {with_votes}"
            )
        return report
    chosen, protocol = pick_judge(store, benchmark, options.protocol, judge)
    report = pairwise_report(
        store,
        benchmark,
        chosen,
        protocol=protocol,
        reference=options.reference,
        combine=rule,
        rounds=options.rounds,
        seed=options.seed,
        style=options.style_control,
    )
    if report.pairs == 0:
        raise InvalidOptions(f"no {protocol} judgments by {chosen} on benchmark {benchmark!r}")
    return report


def agreement(store: Store, benchmark: str, options: AgreementOptions) -> AgreementResult:
    """The judge (or, for ``human``, people with each other) against the votes of one group
    of annotators; InvalidOptions for an unknown group or judge, or no voted pair it judged."""
    require_benchmark(store, benchmark)
    if options.judge == SELF_CHECK:
        return _self_check(store, benchmark)
    try:
        chosen = choose_annotators(store, benchmark, options.annotators)
    except ValueError as exc:
        raise InvalidOptions(str(exc)) from None
    group = chosen.group
    if options.judge == HUMAN:
        people = annotator_agreement(store, benchmark, annotators=group)
        return AgreementResult(HUMAN, None, chosen, people, None)
    judge, protocol = pick_judge(store, benchmark, options.protocol, options.judge, metrics=True)
    majority = human_agreement(
        store, benchmark, judge, protocol=protocol, seed=options.seed, annotators=group
    )
    votes = vote_agreement(store, benchmark, judge, protocol=protocol, annotators=group)
    if majority.report is None and not votes.total_with_ties:
        raise InvalidOptions(
            f"no pairs with human votes that {judge} judged under {protocol!r} on {benchmark!r}"
        )
    corrected: tuple[CorrectedFigure, ...] = ()
    if protocol in pairwise_protocols():
        found = corrected_win_rates(store, benchmark, judge, protocol=protocol, annotators=chosen)
        corrected = tuple(found)
    return AgreementResult(judge, protocol, chosen, votes, majority, corrected)


def _self_check(store: Store, benchmark: str) -> AgreementResult:
    """AutoBench-V's self-check alignment corrected by people's image checks."""
    figure = corrected_alignment(store, benchmark)
    if figure is None:
        raise InvalidOptions(
            f"no person answered the image check on {benchmark!r} (the web app's check page "
            "asks it): there is nothing to correct the self-check with"
        )
    every = Annotators(ALL_ANNOTATORS, True, figure.labels, {})
    nothing = VoteAgreement(0, 0, 0, 0, every)
    return AgreementResult(SELF_CHECK, None, every, nothing, None, (figure,))


def pick_judge(
    store: Store, benchmark: str, protocol: str | None, judge: str | None, *, metrics: bool = False
) -> tuple[str, str]:
    """(judge, protocol) with stored rows: ``judge`` is looked up by its identity (the
    endpoint and output-changing options are part of it), and without ``protocol`` the one
    this judge used is taken (``judge pairwise`` stores pairwise-ref when items have
    references). With ``metrics``, a text metric (``metric/rougeL``) is a judge too."""
    protocols = [protocol] if protocol else pairwise_protocols()
    if metrics and protocol is None and (judge or "").startswith("metric/"):
        protocols = [METRIC + (judge or "").removeprefix("metric/").partition("@")[0]]
    wanted = None if judge is None else model_identity(judge)
    seen: dict[str, list[str]] = {}
    for candidate in protocols:
        judges = [j for j in judges_for(store, candidate) if not is_human_judge(j)]
        seen[candidate] = judges
        if wanted is None and len(judges) == 1:
            return judges[0], candidate
        if wanted is not None and wanted in judges:
            return wanted, candidate
    found = "; ".join(f"{p}: {', '.join(j) or 'none'}" for p, j in seen.items())
    kind = "pairwise" if set(protocols) <= set(pairwise_protocols()) else " or ".join(protocols)
    who = f"judge {judge!r} (it has no rows)" if judge else "a single judge (--judge is needed)"
    raise InvalidOptions(
        f"no {kind} judgments by {who} on benchmark {benchmark!r}; judges with rows: {found}"
    )
