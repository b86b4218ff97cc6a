"""`lvlmbench rate` and `lvlmbench agreement`: what stored pairwise judgments say. Both only
read the store; `lvlmbench judge ...` makes the judgments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.table import Table

from lvlmbench.cli._common import StoreOption, console, friendly_errors, open_store, print_json
from lvlmbench.cli._judge_tables import agreement_table, print_pairwise_report
from lvlmbench.cli._style_tables import print_style_control
from lvlmbench.cli.judge import AsJson, Bench, Combine, JudgeSpec
from lvlmbench.judging import (
    ALL_ANNOTATORS,
    HUMAN,
    RATING_ROUNDS,
    REFERENCE,
    SELF_CHECK,
    Annotators,
    CorrectedFigure,
    HumanAgreement,
    VoteAgreement,
)
from lvlmbench.ratings.agreement import AgreementLevel
from lvlmbench.stats import Estimate
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
    each other (every two votes on a pair). ``-j self-check`` (AutoBench-V): the self-check's
    alignment against people's image checks. Where a judge scored every item and people some,
    the judge's figure is shown corrected by them (PPI++) beside both."""
    options = AgreementOptions(judge=judge, protocol=protocol, seed=seed, annotators=annotators)
    found = agreement_of(open_store(store), benchmark, options)
    if found.judge == SELF_CHECK:
        _print_self_check(found.corrected, as_json)
        return
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
                "ppi": [figure.as_dict() for figure in found.corrected],
            }
        )
        return
    console.print(agreement_table(rows, f"{found.judge} vs human majority ({found.protocol})"))
    console.print(chosen.describe(), markup=False, highlight=False)
    _print_agreement_lines(result, votes)
    _print_win_rates(found.corrected)


def _print_win_rates(figures: Sequence[CorrectedFigure]) -> None:
    """The judge's, the people's and the PPI++ win rates vs the reference (nothing without)."""
    if not figures:
        return
    console.print(corrected_table(figures, WIN_RATE_TITLE, "model"))
    console.print(PPI_NOTE, markup=False, highlight=False)
    for figure in figures:
        if figure.labels_unjudged:
            console.print(
                f"{figure.subject}: {figure.labels_unjudged} voted item(s) the judge did not "
                "judge against the reference, left out",
                markup=False,
                highlight=False,
            )


def _print_self_check(figures: Sequence[CorrectedFigure], as_json: bool) -> None:
    if as_json:
        print_json({"judge": SELF_CHECK, "ppi": [figure.as_dict() for figure in figures]})
        return
    console.print(corrected_table(figures, SELF_CHECK_TITLE, "benchmark"))
    console.print(SELF_CHECK_NOTE, markup=False, highlight=False)


WIN_RATE_TITLE = "win rate vs reference: judge, people, judge corrected by people (PPI++)"
SELF_CHECK_TITLE = (
    "image matches its description: self-check alignment, people's checks, self-check "
    "corrected by people (PPI++)"
)
SELF_CHECK_NOTE = (
    "The self-check's alignment (the share of its checks an accepted image passed) on every "
    "item; people: yes 1, no 0 (unsure left out), per item averaged; PPI++: the self-check "
    "corrected by the gap on the checked items, valid when they are a random sample. 95% "
    "intervals, cluster-robust by the items' clusters (fine aspect), clipped to 0-100%."
)


PPI_NOTE = (
    "PPI++: the judge's figure on every item corrected by the judge-human gap on the voted "
    "items (Angelopoulos et al. 2023), valid when the voted items are a random sample of the "
    "judged ones; people: the share of an item's votes the model wins, averaged over items; "
    "95% intervals, clipped to 0-100%."
)


def _interval(estimate: Estimate) -> str:
    return f"{100 * estimate.estimate:.1f}% [{100 * estimate.low:.1f}, {100 * estimate.high:.1f}]"


def corrected_table(figures: Sequence[CorrectedFigure], title: str, subject: str) -> Table:
    """Per figure (``subject``: a model, a benchmark): the judge's figure on every item, the
    people's on the labelled ones, and PPI++ with its λ (or why there is none)."""
    table = Table(title=title, title_justify="left")
    for name in (subject, "items", "judge", "labels", "people", "PPI++", "lambda"):
        table.add_column(name, justify="left" if name == subject else "right")
    for figure in figures:
        result = figure.result
        judge = "-" if figure.judge_only is None else _interval(figure.judge_only)
        head = [figure.subject, str(figure.items), judge, str(figure.labels)]
        if result is None:
            table.add_row(*head, "-", figure.refused or "-", "-")
            continue
        people, corrected = _interval(result.human_only), _interval(result.corrected)
        table.add_row(*head, people, corrected, f"{result.weight:.2f}")
    return table


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
