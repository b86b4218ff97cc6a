"""Files in and out from Python: report, export, import_file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lvlmbench.report import ReportFiles
from lvlmbench.workflows import (
    ExportOptions,
    ExportResult,
    StoreLike,
    check_export_options,
    export_benchmark,
    opened_store,
    run_sync,
)
from lvlmbench.workflows.importing import ImportOptions, ImportResult, import_format
from lvlmbench.workflows.importing import import_file as _import_file
from lvlmbench.workflows.reporting import ReportOptions, make_report

__all__ = ["export", "import_file", "report"]

_opened = opened_store

_run = run_sync
"""Run a coroutine to completion from sync code, also under a running loop (Jupyter)."""


def report(
    out: str | Path = "report.html",
    *,
    store: StoreLike = None,
    benchmarks: Sequence[str] | None = None,
    gallery: int = 24,
    baseline: str | None = None,
) -> ReportFiles:
    """Write the self-contained HTML report with summary.json and leaderboard.csv/.md beside
    it; returns their paths. As ``lvlmbench report`` (:class:`~lvlmbench.workflows.ReportOptions`;
    ``baseline``: the model each Comparisons section compares against, else the best):
    InvalidOptions, and nothing written, when there is nothing to report on."""
    with _opened(store) as opened:
        return make_report(opened, ReportOptions(Path(out), benchmarks, gallery, baseline))


def export(
    benchmark: str,
    out: str | Path,
    *,
    store: StoreLike = None,
    parquet: bool = True,
    license: str | None = None,
    format: str = "lvlmbench",
    model: str | None = None,
) -> ExportResult:
    """``lvlmbench export``: the benchmark as a Hugging Face dataset folder (parquet + dataset
    card + items.jsonl + images/; ``parquet=False``: items.jsonl + images/ only), or with
    ``format="vlmeval"`` ``model``'s answers as a VLMEvalKit prediction file. The same use
    case and defaults as the command (:func:`lvlmbench.workflows.export_benchmark`); refused
    options raise InvalidOptions before the store is opened."""
    options = ExportOptions(
        out=Path(out), parquet=parquet, license=license, format=format, model=model
    )
    check_export_options(options)
    with _opened(store) as opened:
        return export_benchmark(opened, benchmark, options)


def import_file(
    options: ImportOptions | str | Path, *, store: StoreLike = None, **fields: Any
) -> ImportResult:
    """``lvlmbench import``: a dataset, vote or prediction file into the store, with the
    command's options and defaults (:class:`lvlmbench.workflows.ImportOptions`; a path plus
    its fields as keywords, e.g. ``import_file("bench.tsv", format="vlmeval", name="mmb")``).
    Bad options raise :class:`lvlmbench.workflows.InvalidOptions` before the store is opened,
    a bad file :class:`lvlmbench.datasets.DatasetError`; nothing is written then."""
    if not isinstance(options, ImportOptions):
        options = ImportOptions(Path(options), **fields)
    elif fields:
        raise TypeError("give ImportOptions or a path with keywords, not both")
    fmt = import_format(options)
    with _opened(store) as opened:
        return _import_file(opened, options, fmt)
