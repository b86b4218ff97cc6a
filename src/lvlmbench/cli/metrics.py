"""`lvlmbench judge metrics BENCH --model M --metric rougeL ...`: text metrics as judges.

Scores the stored responses of each model to the benchmark's open items against their
references, stores one ``metric:<name>`` judgment per response (a re-run computes only what is
missing) and prints per-model means with bootstrap 95% intervals and the ratings derived from
per-item matches (higher score wins).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    console,
    friendly_errors,
    open_store,
    print_json,
)
from lvlmbench.judging.metrics import (
    DEFAULT_METRICS,
    METRICS,
    MetricRating,
    MetricScore,
    MetricUnavailable,
    judge_with_metrics,
    summarise_metrics,
)
from lvlmbench.models import model_identity
from lvlmbench.ratings import Interval
from lvlmbench.runner import VARIANTS
from lvlmbench.stats import format_interval
from lvlmbench.store import require_benchmark

__all__ = ["judge_metrics", "metric_tables", "open_ended_tables"]


def metric_tables(scores: list[MetricScore], ratings: list[MetricRating]) -> list[Table]:
    """Means with intervals (models × metrics) and Bradley-Terry ratings with win rates."""
    metrics = list(dict.fromkeys(s.metric for s in scores))
    models = list(dict.fromkeys(s.model for s in scores))
    cells = {(s.model, s.metric): s for s in scores}
    means = Table(
        title="metric scores: mean ± half-width of the bootstrap 95% CI", title_justify="left"
    )
    means.add_column("model", no_wrap=True)
    for metric in metrics:
        means.add_column(f"{metric}\n[dim]{METRICS[metric].scale}[/]", justify="right")
    means.add_column("n", justify="right")
    means.add_column("skipped", justify="right")
    for model in models:
        row = [cells[(model, m)] for m in metrics]
        means.add_row(
            model,
            *(_mean_cell(s) for s in row),
            str(max(s.n for s in row)),
            str(row[0].skipped),
        )
    rated = Table(
        title="ratings from per-item matches: Bradley-Terry [95% CI] (win rate %)",
        title_justify="left",
    )
    rated.add_column("model", no_wrap=True)
    for rating in ratings:
        rated.add_column(rating.metric, justify="right")
    for model in models:
        rated.add_row(
            model,
            *(
                f"{r.bradley_terry[model]:.0f}{_bt_interval(r, model)} "
                f"[dim]({100 * r.win_rate[model]:.0f}%)[/]"
                if model in r.bradley_terry
                else "-"
                for r in ratings
            ),
        )
    return [means, rated] if ratings else [means]


def _bt_interval(rating: MetricRating, model: str) -> str:
    """The model's Bradley-Terry interval as " [low–high]" ('' when not computed)."""
    interval = rating.bt_intervals.get(model)
    return "" if interval is None else f" \\[{format_interval(interval.low, interval.high)}]"


def open_ended_tables(result: dict[str, Any]) -> list[Table]:
    """The tables of :func:`metric_tables` for the dict that
    :func:`lvlmbench.workflows.run_open_ended` returns."""
    scores = [
        MetricScore(
            metric=row["metric"],
            model=row["model"],
            n=row["n"],
            mean=row["mean"],
            interval=Interval(row["low"], row["high"]),
        )
        for row in result["scores"]
    ]
    ratings = [
        MetricRating(
            metric=metric,
            matches=data["matches"],
            bradley_terry=data["bradley_terry"],
            elo_shuffled_mean=data["online_elo_shuffled_mean"],
            win_rate=data["win_rate"],
            bt_intervals={
                m: Interval(low, high) for m, (low, high) in data.get("bt_intervals", {}).items()
            },
        )
        for metric, data in result["ratings"].items()
    ]
    return metric_tables(scores, ratings)


def _mean_cell(score: MetricScore) -> str:
    if score.n == 0:
        return "-"
    digits = 1 if abs(score.mean) >= 10 else 3
    half = (score.interval.high - score.interval.low) / 2
    return f"{score.mean:.{digits}f} [dim]±{half:.{digits}f}[/]"


@friendly_errors
def judge_metrics(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    model: Annotated[list[str], typer.Option("--model", "-m", help="Examinee spec; repeatable.")],
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            help=f"Metric; repeatable. One of {', '.join(METRICS)}. "
            f"Default: {', '.join(DEFAULT_METRICS)}.",
        ),
    ] = None,
    variant: Annotated[str, typer.Option(help=f"One of {', '.join(VARIANTS)}.")] = "default",
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Judge stored responses to open items with text metrics against the references."""
    chosen = list(dict.fromkeys(metric or DEFAULT_METRICS))
    unknown = [m for m in chosen if m not in METRICS]
    if unknown:
        raise BadInput(f"--metric {unknown[0]!r}: choose from {', '.join(METRICS)}")
    if variant not in VARIANTS:
        raise BadInput(f"--variant {variant!r}: choose from {', '.join(VARIANTS)}")
    model = [model_identity(m) for m in model]  # rows are stored under identities
    opened = open_store(store)
    require_benchmark(opened, benchmark)
    try:
        runs = judge_with_metrics(opened, benchmark, model, chosen, variant=variant)
    except MetricUnavailable as exc:
        raise BadInput(str(exc)) from None
    answered = sum(r.computed + r.existing for r in runs)
    if answered == 0:
        raise BadInput(
            f"no ok responses of {', '.join(model)} to open items of {benchmark!r} with a "
            "reference; `lvlmbench evaluate` asks the examinees first"
        )
    scores, ratings = summarise_metrics(opened, benchmark, model, chosen, variant=variant)
    if as_json:
        print_json(
            {
                "benchmark": benchmark,
                "runs": [
                    {"metric": r.metric, "computed": r.computed, "existing": r.existing}
                    for r in runs
                ],
                "scores": [s.as_dict() for s in scores],
                "ratings": {r.metric: r.as_dict() for r in ratings},
            }
        )
        return
    for table in metric_tables(scores, ratings):
        console.print(table)
    computed = sum(r.computed for r in runs)
    console.print(f"{computed} scores computed, {answered - computed} already stored")
