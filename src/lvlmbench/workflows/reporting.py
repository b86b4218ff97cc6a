"""The report use case: the self-contained HTML report with ``summary.json`` and the
leaderboard CSV/Markdown beside it, under both ``lvlmbench report`` and
:func:`lvlmbench.api.report`. A store with nothing to report on is refused
(:class:`InvalidOptions`) rather than written as a page of empty tables, which would read as
"every model scored nothing"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lvlmbench.report import ReportFiles, write_report
from lvlmbench.store import (
    Store,
    did_you_mean,
    iter_benchmark_responses,
    iter_items,
    iter_judgments,
    list_benchmarks,
)
from lvlmbench.workflows._errors import InvalidOptions
from lvlmbench.workflows.compare import against_the_best

__all__ = ["ReportOptions", "check_reportable", "make_report"]


@dataclass(frozen=True)
class ReportOptions:
    """``lvlmbench report``'s options, same names and defaults."""

    out: Path = Path("report.html")
    benchmarks: Sequence[str] | None = None
    """Only these benchmarks (default: all)."""
    gallery: int = 24
    """Gallery items per benchmark."""
    baseline: str | None = None
    """The model the Comparisons sections compare the others with (default: the best)."""


def check_reportable(store: Store, benchmarks: Sequence[str] | None) -> None:
    """InvalidOptions when the store has no benchmarks, a named benchmark is unknown, or no
    responses or judgments exist on the chosen ones."""
    stored = [b.name for b in list_benchmarks(store)]
    names = [b for b in benchmarks or stored if b in stored]
    if not stored:
        raise InvalidOptions(f"nothing to report: {store.url} has no benchmarks")
    for name in benchmarks or []:
        if name not in stored:
            raise InvalidOptions(
                f"unknown benchmark {name!r}{did_you_mean(name, stored)}; "
                f"`lvlmbench ls` lists those in {store.url}"
            )
    if any(next(iter_benchmark_responses(store, b), None) is not None for b in names):
        return
    items = {item.id for b in names for item in iter_items(store, b)}
    if any(j.item_id in items for j in iter_judgments(store)):
        return
    raise InvalidOptions(
        f"nothing to report: no responses or judgments on {', '.join(names)}; "
        "`lvlmbench evaluate` or `lvlmbench import` first"
    )


def make_report(store: Store, options: ReportOptions) -> ReportFiles:
    """Write the report for ``options`` and return its files' paths; InvalidOptions for
    options refused (see :func:`check_reportable`) before anything is written."""
    if options.gallery < 0:
        raise InvalidOptions(f"gallery: {options.gallery}; expected 0 or more items")
    check_reportable(store, options.benchmarks)
    try:
        names = options.benchmarks or [b.name for b in list_benchmarks(store)]
        tables = {name: against_the_best(store, name, options.baseline) for name in names}
        return write_report(
            store,
            options.out,
            options.benchmarks,
            gallery_size=options.gallery,
            comparisons={name: table for name, table in tables.items() if table is not None},
        )
    except InvalidOptions:
        raise
    except ValueError as exc:
        raise InvalidOptions(str(exc)) from None
