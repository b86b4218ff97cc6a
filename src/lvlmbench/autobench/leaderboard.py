"""Accuracy per model × group over several AutoBench-V benchmarks pooled together, and its CSV /
Markdown / JSON files (what ``lvlmbench demo`` writes beside its store).

This is a *long* table (one row per model × capability × aspect × level, as pandas' groupby
gives it), so its files are ``accuracy_by_group.csv``/``.md``, not ``leaderboard.csv``: the
one ``leaderboard.csv`` schema is the report's wide one (one row per benchmark × model, see
:mod:`lvlmbench.report.leaderboard`), written beside ``report.html``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lvlmbench._csv import write_csv
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.store import Store

__all__ = ["GROUPED", "GroupAccuracy", "leaderboard", "write_leaderboard"]

GROUPED = "accuracy_by_group"
"""Stem of the long table's files (never ``leaderboard``: that name is the report's schema)."""

GroupCell = str | int | float
"""One column of a row in the files: a name, a count or a figure."""


@dataclass(frozen=True)
class GroupAccuracy:
    """One model on one group of one benchmark: accuracy % and its 95% interval over items,
    clustered where they share a source (``clusters`` of ``cluster`` by ``estimator``; rounded
    to 2 decimals, as the files show them) with the answer counts behind them.
    ``group`` is the group's value per grouping column, in the order the table was grouped."""

    benchmark: str
    model: str
    group: Mapping[str, str]
    accuracy: float
    ci_low: float
    ci_high: float
    items: int
    clusters: int
    cluster: str
    estimator: str
    epochs: float
    correct: int
    answered: int
    unparseable: int
    failed: int

    def flat(self) -> dict[str, GroupCell]:
        """The row as the files have it: benchmark, model, each grouping column, the figures."""
        return {
            "benchmark": self.benchmark,
            "model": self.model,
            **self.group,
            "accuracy": self.accuracy,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "items": self.items,
            "clusters": self.clusters,
            "cluster": self.cluster,
            "estimator": self.estimator,
            "epochs": self.epochs,
            "correct": self.correct,
            "answered": self.answered,
            "unparseable": self.unparseable,
            "failed": self.failed,
        }


def leaderboard(
    store: Store,
    benchmarks: Sequence[str],
    models: Sequence[str],
    by: Sequence[str] = ("capability", "difficulty"),
) -> list[GroupAccuracy]:
    """One row per model × group over all ``benchmarks`` (accuracy % and its 95% CI over items,
    clustered where they share a source; with the answer counts behind them)."""
    rows: list[GroupAccuracy] = []
    for benchmark in benchmarks:
        for row in accuracy_table(store, benchmark, by, models=models):
            low, high = row.interval
            rows.append(
                GroupAccuracy(
                    benchmark=benchmark,
                    model=row.model,
                    group=dict(zip(by, row.group, strict=True)),
                    accuracy=round(100 * row.accuracy, 2),
                    ci_low=round(100 * low, 2),
                    ci_high=round(100 * high, 2),
                    items=row.items,
                    clusters=row.estimate.n_clusters,
                    cluster=row.estimate.cluster,
                    estimator=row.estimate.method,
                    epochs=row.epochs,
                    correct=row.correct,
                    answered=row.answered,
                    unparseable=row.unparseable,
                    failed=row.failed,
                )
            )
    return rows


def _markdown(rows: list[dict[str, GroupCell]]) -> str:
    if not rows:
        return "(no results)\n"
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_leaderboard(
    rows: Sequence[GroupAccuracy], out_dir: Path, extra: Mapping[str, object] | None = None
) -> list[Path]:
    """Write accuracy_by_group.csv, accuracy_by_group.md and summary.json into ``out_dir``
    (``extra``: more JSON-able entries for summary.json, beside ``leaderboard``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{GROUPED}.csv", out_dir / f"{GROUPED}.md", out_dir / "summary.json"]
    flat = [row.flat() for row in rows]
    write_csv(paths[0], list(flat[0]) if flat else ["model"], flat)
    paths[1].write_text(_markdown(flat), encoding="utf-8")
    paths[2].write_text(
        json.dumps({"leaderboard": flat, **(extra or {})}, indent=2, default=str), encoding="utf-8"
    )
    return paths
