"""`lvlmbench rate` and `lvlmbench agreement`: what stored pairwise judgments say. Both only
read the store; `lvlmbench judge ...` makes the judgments.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from lvlmbench.cli._common import StoreOption, console, friendly_errors, open_store, print_json
from lvlmbench.cli._judge_tables import agreement_table, print_pairwise_report
from lvlmbench.cli._style_tables import print_style_control
from lvlmbench.cli.judge import AsJson, Bench, Combine, JudgeSpec
from lvlmbench.judging import (
    ALL_ANNOTATORS,
    HUMAN,
    RATING_ROUNDS,
    REFERENCE,
    Annotators,
    HumanAgreement,
    VoteAgreement,
)
from lvlmbench.ratings.agreement import AgreementLevel
from lvlmbench.workflows import AgreementOptions, RateOptions, combine_rule
from lvlmbench.workflows import agreement as agreement_of
from lvlmbench.workflows import rate as rate_benchmark

__all__ = ["agreement", "rate"]


Protocol = Annotated[
    str | None, typer.Option(help="pairwise or pairwise-ref (default: the one judged).")
]
StyleControl = Annotated[
    bool,
    typer.Option(
        "--style-control",
        help="Also fit Bradley-Terry with answer length and markdown as covariates: style "
        "coefficients with 95% CI and style-controlled ratings beside the raw ones.",
    ),
]
AnnotatorsOption = Annotated[
    str | None,
    typer.Option(
        "--annotators",
        help="Whose votes: a group of annotators as the vote file names them (expert, author, "
        f"crowd, ...) or {ALL_ANNOTATORS}. Default: expert where there are expert votes "
        f"(FastChat's compute_agreement.py), else {ALL_ANNOTATORS}.",
    ),
]


@friendly_errors
def rate(
    benchmark: Bench,
    protocol: Protocol = None,
    judge: Annotated[str | None, typer.Option("--judge", "-j", help="Judge spec.")] = None,
    reference: Annotated[str, typer.Option(help="Reference player.")] = REFERENCE,
    rounds: Annotated[int, typer.Option(help="Bootstrap rounds.")] = RATING_ROUNDS,
    combine: Combine = "majority",
    style_control: StyleControl = False,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Bradley-Terry (95% bootstrap CI; the headline), win rate vs the reference, online Elo,
    judge diagnostics; the two orders of each pair combined by ``--combine``. ``-j human``
    rates from people's votes (every vote a match, nothing to combine;
    ``-j human:<annotator>`` for one annotator). ``--style-control`` adds ratings that do not
    reward longer or more formatted answers."""
    options = RateOptions(
        judge=judge,
        protocol=protocol,
        reference=reference,
        rounds=rounds,
        combine=combine,
        style_control=style_control,
    )
    combine_rule(options.combine)  # before the store is opened
    report = rate_benchmark(open_store(store), benchmark, options)
    if as_json:
        print_json(report.as_dict())
    else:
        print_pairwise_report(report)
        print_style_control(report)


@friendly_errors
def agreement(
    benchmark: Bench,
    judge: JudgeSpec,
    protocol: Protocol = None,
    seed: Annotated[int, typer.Option(help="Seed of the coin flips for judge ties.")] = 0,
    annotators: AnnotatorsOption = None,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Agreement of the judge with the human majority (by level; ties as coin flips or
    excluded) and Cohen's kappa, on pairs people voted on (protocol 'human'), and with each
    single vote (FastChat's rule, with and without ties), over one group of annotators
    (``--annotators``; said in the output). The judge may be a text metric
    (``-j metric/rougeL``): the answer scoring higher wins the pair. ``-j human``: people with
    each other (every two votes on a pair)."""
    options = AgreementOptions(judge=judge, protocol=protocol, seed=seed, annotators=annotators)
    found = agreement_of(open_store(store), benchmark, options)
    if found.majority is None:
        _print_annotator_agreement(found.votes, found.annotators, as_json)
        return
    result, votes, chosen = found.majority, found.votes, found.annotators
    levels = (
        [] if result.report is None else [*result.report.levels.values(), result.report.overall]
    )
    rows = [_level_row(lv) for lv in levels]
    if as_json:
        print_json(
            {
                "judge": found.judge,
                "annotators": chosen.as_dict(),
                "pairs": result.pairs,
                "kappa": result.kappa,
                "ranking_kendall_tau": result.ranking_tau,
                "levels": rows,
                "human_ties_dropped": result.human_ties_dropped,
                "vote_agreement": {
                    "with_ties": votes.with_ties,
                    "votes_with_ties": votes.total_with_ties,
                    "without_ties": votes.without_ties,
                    "votes_without_ties": votes.total_without_ties,
                    "by_turn": _by_turn(votes, "votes"),
                },
            }
        )
        return
    console.print(agreement_table(rows, f"{found.judge} vs human majority ({found.protocol})"))
    console.print(chosen.describe(), markup=False, highlight=False)
    _print_agreement_lines(result, votes)


def _level_row(lv: AgreementLevel) -> dict[str, Any]:
    return {
        "level": lv.level,
        "pairs": lv.pairs,
        "unscored": lv.unscored,
        "judge_ties": lv.judge_ties,
        "coin_flip_rate": lv.coin_flip_rate,
        "ties_excluded_rate": lv.excluded_rate,
    }


def _print_agreement_lines(result: HumanAgreement, votes: VoteAgreement) -> None:
    kappa = "-" if result.kappa is None else f"{result.kappa:.3f}"
    tau = "-" if result.ranking_tau is None else f"{result.ranking_tau:.3f}"
    console.print(
        f"Cohen's kappa {kappa} over {result.pairs} pairs; Kendall tau between the judge's and "
        f"the people's system rankings {tau}; human tie votes dropped: "
        f"{result.human_ties_dropped}"
    )
    console.print(f"judge vs each vote (FastChat): {_shares(votes)}")
    for turn, figures in votes.by_turn:
        console.print(f"  turn {turn}: {_shares(figures)}")


def _print_annotator_agreement(votes: VoteAgreement, chosen: Annotators, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "judge": HUMAN,
                "annotators": chosen.as_dict(),
                "with_ties": votes.with_ties,
                "vote_pairs_with_ties": votes.total_with_ties,
                "without_ties": votes.without_ties,
                "vote_pairs_without_ties": votes.total_without_ties,
                "by_turn": _by_turn(votes, "vote_pairs"),
            }
        )
        return
    console.print(f"people vs people (every two votes on a pair): {_shares(votes)}")
    for turn, figures in votes.by_turn:
        console.print(f"  turn {turn}: {_shares(figures)}")
    console.print(chosen.describe(), markup=False, highlight=False)


def _shares(votes: VoteAgreement) -> str:
    return (
        f"{_share(votes.with_ties)} of {votes.total_with_ties} with ties, "
        f"{_share(votes.without_ties)} of {votes.total_without_ties} without ties"
    )


def _by_turn(votes: VoteAgreement, counted: str) -> list[dict[str, Any]]:
    """Per turn of multi-turn items, as FastChat prints them (empty with one turn)."""
    return [
        {
            "turn": turn,
            "with_ties": figures.with_ties,
            f"{counted}_with_ties": figures.total_with_ties,
            "without_ties": figures.without_ties,
            f"{counted}_without_ties": figures.total_without_ties,
        }
        for turn, figures in votes.by_turn
    ]


def _share(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"
