"""`lvlmbench compare` and `lvlmbench power`: is A better than B on this benchmark, in each
group, and how many items would it take to tell? Both only read the store and print what
:func:`lvlmbench.workflows.compare` computes."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from lvlmbench.cli._common import StoreOption, console, friendly_errors, open_store, print_json
from lvlmbench.cli.judge import AsJson, Bench
from lvlmbench.report.render_comparisons import (
    comparison_cells,
    comparison_heads,
    comparison_note,
)
from lvlmbench.stats import ALL, Comparison, ComparisonTable
from lvlmbench.workflows import CompareOptions
from lvlmbench.workflows import compare as compare_models

__all__ = ["compare", "compare_json", "power"]

Models = Annotated[
    list[str], typer.Option("--model", "-m", help="A model to compare (at least two; repeatable).")
]
By = Annotated[
    list[str] | None,
    typer.Option(
        "--by",
        help="Also compare within each group of this facet (difficulty, general_aspect, "
        "category, ...); repeatable.",
    ),
]
Baseline = Annotated[
    str | None,
    typer.Option(help="Compare every other model with this one (default: every pair)."),
]
Adjust = Annotated[str, typer.Option(help="p-value adjustment across the table: holm, bh or none.")]
Metric = Annotated[
    str | None,
    typer.Option(
        help="accuracy, score (a score judge), win-rate (vs the reference, a pairwise judge) "
        "or bradley-terry (default: the benchmark's own)."
    ),
]
Judge = Annotated[
    str | None,
    typer.Option("--judge", "-j", help="The judge of a judged metric (default: the only one)."),
]
Difference = Annotated[
    float | None,
    typer.Option(
        help="Also say how many items detect this difference (on the scores' scale: 0.03 is "
        "3 accuracy points)."
    ),
]
Alpha = Annotated[float, typer.Option(help="Significance level of the power plan.")]
PowerOption = Annotated[float, typer.Option("--power", help="Power of the power plan.")]
Resamples = Annotated[int, typer.Option(help="Bootstrap resamples.")]


def _row_json(result: ComparisonTable, row: Comparison) -> dict[str, object]:
    paired, plan = row.paired, row.plan
    est = None if paired is None else paired.difference
    return {
        "model_a": row.model_a,
        "model_b": row.model_b,
        "group": "all" if row.group == ALL else dict(zip(result.by, row.group, strict=True)),
        "mean_a": row.mean_a,
        "mean_b": row.mean_b,
        "difference": None if est is None else est.estimate,
        "ci_low": None if est is None else est.low,
        "ci_high": None if est is None else est.high,
        "confidence": None if est is None else est.confidence,
        "estimator": None if est is None else est.method,
        "test": None if paired is None else paired.test,
        "p_value": None if paired is None else paired.p_value,
        "adjusted_p": row.adjusted_p,
        "adjustment": result.adjustment,
        "cluster": result.cluster,
        "n_items": None if est is None else est.n_items,
        "n_clusters": None if est is None else est.n_clusters,
        "n_excluded": row.only_a + row.only_b,
        "only_a": row.only_a,
        "only_b": row.only_b,
        "discordant": None if row.discordant is None else list(row.discordant),
        "note": row.note,
        "power": None
        if plan is None
        else {
            "difference": plan.difference,
            "alpha": plan.alpha,
            "power": plan.power,
            "items_needed": plan.items_needed,
            "items_now": plan.items_now,
            "more_needed": plan.more_needed,
        },
    }


def compare_json(result: ComparisonTable) -> dict[str, object]:
    """What ``--json`` prints: the table's settings and every row with its estimator, cluster,
    adjustment, items compared and excluded."""
    return {
        "benchmark": result.benchmark,
        "metric": result.metric,
        "judge": result.judge,
        "cluster": result.cluster,
        "by": list(result.by),
        "baseline": result.baseline,
        "adjustment": result.adjustment,
        "models": list(result.models),
        "rows": [_row_json(result, row) for row in result.rows],
    }


def _print(result: ComparisonTable, columns: list[int]) -> None:
    heads = comparison_heads(result)
    table = Table(title=f"{result.benchmark}: {result.metric}", title_justify="left")
    for i in columns:
        table.add_column(heads[i], justify="left" if i < 2 else "right")
    for row in result.rows:
        cells = comparison_cells(result, row).cells()
        table.add_row(*(cells[i] for i in columns))
    console.print(table)
    console.print(comparison_note(result), highlight=False)


@friendly_errors
def compare(
    benchmark: Bench,
    model: Models,
    by: By = None,
    baseline: Baseline = None,
    adjust: Adjust = "holm",
    metric: Metric = None,
    judge: Judge = None,
    difference: Difference = None,
    alpha: Alpha = 0.05,
    power: PowerOption = 0.8,
    resamples: Resamples = 2000,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """Paired comparisons of models on the items both answered: A − B with a cluster-aware 95%
    interval and p-value per pair (or per model vs --baseline) and per group of --by,
    p-values adjusted across the table (Holm by default)."""
    options = CompareOptions(
        tuple(model),
        tuple(by or ()),
        baseline,
        adjust,
        metric,
        judge,
        difference,
        alpha,
        power,
        resamples,
    )
    result = compare_models(open_store(store), benchmark, options)
    if as_json:
        print_json(compare_json(result))
        return
    with_power = [11] if difference is not None else []
    _print(result, [*range(11), *with_power])


@friendly_errors
def power(
    benchmark: Bench,
    model: Models,
    difference: Annotated[
        float,
        typer.Option(
            help="The difference to detect, on the scores' scale (0.03 is 3 accuracy points)."
        ),
    ],
    by: By = None,
    baseline: Baseline = None,
    metric: Metric = None,
    judge: Judge = None,
    alpha: Alpha = 0.05,
    power: PowerOption = 0.8,
    store: StoreOption = None,
    as_json: AsJson = False,
) -> None:
    """How many items a paired comparison needs to detect --difference at --alpha with
    --power, from the observed per-item differences and their clusters, and how many more
    this benchmark would need."""
    options = CompareOptions(
        tuple(model),
        tuple(by or ()),
        baseline,
        "holm",
        metric,
        judge,
        difference,
        alpha,
        power,
    )
    result = compare_models(open_store(store), benchmark, options)
    if as_json:
        print_json(compare_json(result))
        return
    _print(result, [0, 1, 4, 9, 11])
