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
from lvlmbench.cli.judge import AsJson, Bench, JudgeSpec
from lvlmbench.judging import (
    PAIRWISE,
    PAIRWISE_REF,
    REFERENCE,
    human_agreement,
    judges_for,
    pairwise_report,
)
from lvlmbench.models import model_identity
from lvlmbench.store import Store

__all__ = ["agreement", "rate"]


def _pick_judge(
    store: Store, protocol: str | None, judge: str | None, *, metrics: bool = False
) -> tuple[str, str]:
    """(judge, protocol) with stored rows: ``--judge`` is looked up by its identity (the
    endpoint and output-changing options are part of it), and without ``--protocol`` the
    one this judge used is taken (``judge pairwise`` stores pairwise-ref when items have
    references). With ``metrics``, a text metric (``metric/rougeL``) is a judge too."""
    protocols = [protocol] if protocol else [PAIRWISE_REF, PAIRWISE]
    if metrics and protocol is None and (judge or "").startswith("metric/"):
        protocols = ["metric:" + (judge or "").removeprefix("metric/").partition("@")[0]]
    seen: dict[str, list[str]] = {}
    for candidate in protocols:
        judges = [j for j in judges_for(store, candidate) if not j.startswith("human")]
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
    rounds: Annotated[int, typer.Option(help="Bootstrap rounds.")] = 200,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Elo and Bradley-Terry (95% bootstrap CI), win rate vs the reference, judge diagnostics."""
    opened = open_store(store)
    chosen, protocol = _pick_judge(opened, protocol, judge)
    report = pairwise_report(
        opened, benchmark, chosen, protocol=protocol, reference=reference, rounds=rounds
    )
    if report.pairs == 0:
        raise BadInput(f"no {protocol} judgments by {chosen} on benchmark {benchmark!r}")
    if as_json:
        print_json(report.as_dict())
    else:
        print_pairwise_report(report)


@friendly_errors
def agreement(
    benchmark: Bench,
    judge: JudgeSpec,
    protocol: Annotated[
        str | None, typer.Option(help="pairwise or pairwise-ref (default: the one judged).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the coin flips for judge ties.")] = 0,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Agreement of the judge with the human majority (by level; ties as coin flips or
    excluded) and Cohen's kappa, on pairs people voted on (protocol 'human'). The judge may
    be a text metric (``-j metric/rougeL``): the answer scoring higher wins the pair."""
    opened = open_store(store)
    judge, protocol = _pick_judge(opened, protocol, judge, metrics=True)
    result = human_agreement(opened, benchmark, judge, protocol=protocol, seed=seed)
    if result.report is None:
        raise BadInput(
            f"no pairs with human votes that {judge} judged under {protocol!r} on {benchmark!r}"
        )
    levels = [*result.report.levels.values(), result.report.overall]
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
                "pairs": result.pairs,
                "kappa": result.kappa,
                "ranking_kendall_tau": result.ranking_tau,
                "levels": rows,
                "human_ties_dropped": result.human_ties_dropped,
            }
        )
        return
    title = f"{judge} vs human majority ({protocol})"
    console.print(agreement_table(rows, title))
    kappa = "-" if result.kappa is None else f"{result.kappa:.3f}"
    tau = "-" if result.ranking_tau is None else f"{result.ranking_tau:.3f}"
    console.print(
        f"Cohen's kappa {kappa} over {result.pairs} pairs; Kendall tau between the judge's and "
        f"the people's system rankings {tau}; human tie votes dropped: "
        f"{result.human_ties_dropped}"
    )
