"""`lvlmbench rate` and `lvlmbench agreement`: what stored pairwise judgments say. Both only
read the store; `lvlmbench judge ...` makes the judgments.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    console,
    friendly_errors,
    open_store,
    print_json,
)
from lvlmbench.cli._judge_tables import agreement_table, print_pairwise_report
from lvlmbench.cli._style_tables import print_style_control
from lvlmbench.cli.judge import AsJson, Bench, Combine, JudgeSpec, combine_rule
from lvlmbench.judging import (
    ALL_ANNOTATORS,
    HUMAN,
    METRIC,
    RATING_ROUNDS,
    REFERENCE,
    Annotators,
    VoteAgreement,
    annotator_agreement,
    choose_annotators,
    human_agreement,
    human_report,
    is_human_judge,
    judges_for,
    pairwise_protocols,
    pairwise_report,
    vote_agreement,
)
from lvlmbench.models import model_identity
from lvlmbench.store import Store, require_benchmark

__all__ = ["agreement", "rate"]


def _pick_judge(
    store: Store, protocol: str | None, judge: str | None, *, metrics: bool = False
) -> tuple[str, str]:
    """(judge, protocol) with stored rows: ``--judge`` is looked up by its identity (the
    endpoint and output-changing options are part of it), and without ``--protocol`` the
    one this judge used is taken (``judge pairwise`` stores pairwise-ref when items have
    references). With ``metrics``, a text metric (``metric/rougeL``) is a judge too."""
    protocols = [protocol] if protocol else pairwise_protocols()
    if metrics and protocol is None and (judge or "").startswith("metric/"):
        protocols = [METRIC + (judge or "").removeprefix("metric/").partition("@")[0]]
    seen: dict[str, list[str]] = {}
    for candidate in protocols:
        judges = [j for j in judges_for(store, candidate) if not is_human_judge(j)]
        seen[candidate] = judges
        if judge is None and len(judges) == 1:
            return judges[0], candidate
        if judge is not None and model_identity(judge) in judges:
            return model_identity(judge), candidate
    found = "; ".join(f"{p}: {', '.join(j) or 'none'}" for p, j in seen.items())
    wanted = f"judge {judge!r} has no rows" if judge else "--judge is needed"
    raise BadInput(f"{wanted}; judges with rows: {found}")


@friendly_errors
def rate(
    benchmark: Bench,
    protocol: Annotated[
        str | None, typer.Option(help="pairwise or pairwise-ref (default: the one judged).")
    ] = None,
    judge: Annotated[str | None, typer.Option("--judge", "-j", help="Judge spec.")] = None,
    reference: Annotated[str, typer.Option(help="Reference player.")] = REFERENCE,
    rounds: Annotated[int, typer.Option(help="Bootstrap rounds.")] = RATING_ROUNDS,
    combine: Combine = "majority",
    style_control: Annotated[
        bool,
        typer.Option(
            "--style-control",
            help="Also fit Bradley-Terry with answer length and markdown as covariates: style "
            "coefficients with 95% CI and style-controlled ratings beside the raw ones.",
        ),
    ] = False,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Bradley-Terry (95% bootstrap CI; the headline), win rate vs the reference, online Elo,
    judge diagnostics; the two orders of each pair combined by ``--combine``. ``-j human``
    rates from people's votes (every vote a match, nothing to combine;
    ``-j human:<annotator>`` for one annotator). ``--style-control`` adds ratings that do not
    reward longer or more formatted answers."""
    rule = combine_rule(combine)
    opened = open_store(store)
    require_benchmark(opened, benchmark)
    if judge == HUMAN or (judge or "").startswith(HUMAN + ":"):
        report = human_report(
            opened,
            benchmark,
            judge or HUMAN,
            reference=reference,
            rounds=rounds,
            style=style_control,
        )
        if report.pairs == 0:
            raise BadInput(
                f"no human votes on benchmark {benchmark!r} by {judge!r}; annotators with votes: "
                + (", ".join(judges_for(opened, HUMAN)) or "none")
            )
    else:
        chosen, protocol = _pick_judge(opened, protocol, judge)
        report = pairwise_report(
            opened,
            benchmark,
            chosen,
            protocol=protocol,
            reference=reference,
            combine=rule,
            rounds=rounds,
            style=style_control,
        )
        if report.pairs == 0:
            raise BadInput(f"no {protocol} judgments by {chosen} on benchmark {benchmark!r}")
    if as_json:
        print_json(report.as_dict())
    else:
        print_pairwise_report(report)
        print_style_control(report)


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
def agreement(
    benchmark: Bench,
    judge: JudgeSpec,
    protocol: Annotated[
        str | None, typer.Option(help="pairwise or pairwise-ref (default: the one judged).")
    ] = None,
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
    opened = open_store(store)
    require_benchmark(opened, benchmark)
    try:
        chosen = choose_annotators(opened, benchmark, annotators)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    group = chosen.group
    if judge == HUMAN:
        people = annotator_agreement(opened, benchmark, annotators=group)
        _print_annotator_agreement(people, chosen, as_json)
        return
    judge, protocol = _pick_judge(opened, protocol, judge, metrics=True)
    result = human_agreement(
        opened, benchmark, judge, protocol=protocol, seed=seed, annotators=group
    )
    votes = vote_agreement(opened, benchmark, judge, protocol=protocol, annotators=group)
    if result.report is None and not votes.total_with_ties:
        raise BadInput(
            f"no pairs with human votes that {judge} judged under {protocol!r} on {benchmark!r}"
        )
    levels = (
        [] if result.report is None else [*result.report.levels.values(), result.report.overall]
    )
    rows: list[dict[str, Any]] = [
        {
            "level": lv.level,
            "pairs": lv.pairs,
            "unscored": lv.unscored,
            "judge_ties": lv.judge_ties,
            "coin_flip_rate": lv.coin_flip_rate,
            "ties_excluded_rate": lv.excluded_rate,
        }
        for lv in levels
    ]
    if as_json:
        print_json(
            {
                "judge": judge,
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
                },
            }
        )
        return
    title = f"{judge} vs human majority ({protocol})"
    console.print(agreement_table(rows, title))
    console.print(chosen.describe(), markup=False, highlight=False)
    kappa = "-" if result.kappa is None else f"{result.kappa:.3f}"
    tau = "-" if result.ranking_tau is None else f"{result.ranking_tau:.3f}"
    console.print(
        f"Cohen's kappa {kappa} over {result.pairs} pairs; Kendall tau between the judge's and "
        f"the people's system rankings {tau}; human tie votes dropped: "
        f"{result.human_ties_dropped}"
    )
    console.print(
        f"judge vs each vote (FastChat): {_share(votes.with_ties)} of "
        f"{votes.total_with_ties} with ties, {_share(votes.without_ties)} of "
        f"{votes.total_without_ties} without ties"
    )


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
            }
        )
        return
    console.print(
        f"people vs people (every two votes on a pair): {_share(votes.with_ties)} of "
        f"{votes.total_with_ties} with ties, {_share(votes.without_ties)} of "
        f"{votes.total_without_ties} without ties"
    )
    console.print(chosen.describe(), markup=False, highlight=False)


def _share(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"
