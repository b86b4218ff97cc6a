"""Accuracy per model × group over several AutoBench-V benchmarks pooled together, and its CSV /
Markdown / JSON files (what ``lvlmbench demo`` writes beside its store).

This is a *long* table (one row per model × capability × aspect × level, as pandas' groupby
gives it), so its files are ``accuracy_by_group.csv``/``.md``, not ``leaderboard.csv``: the
one ``leaderboard.csv`` schema is the report's wide one (one row per benchmark × model, see
:mod:`lvlmbench.report.leaderboard`), written beside ``report.html``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lvlmbench._csv import write_csv
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.store import Store

__all__ = ["GROUPED", "leaderboard", "write_leaderboard"]

GROUPED = "accuracy_by_group"
"""Stem of the long table's files (never ``leaderboard``: that name is the report's schema)."""


def leaderboard(
    store: Store,
    benchmarks: Sequence[str],
    models: Sequence[str],
    by: Sequence[str] = ("capability", "difficulty"),
) -> list[dict[str, Any]]:
    """One row per model × group over all ``benchmarks`` (accuracy % and its 95% CI over items,
    clustered where they share a source: ``clusters`` of ``cluster`` by ``estimator``; with the
    answer counts behind them)."""
    rows: list[dict[str, Any]] = []
    for benchmark in benchmarks:
        for row in accuracy_table(store, benchmark, by, models=models):
            low, high = row.interval
            rows.append(
                {
                    "benchmark": benchmark,
                    "model": row.model,
                    **dict(zip(by, row.group, strict=True)),
                    "accuracy": round(100 * row.accuracy, 2),
                    "ci_low": round(100 * low, 2),
                    "ci_high": round(100 * high, 2),
                    "items": row.items,
                    "clusters": row.estimate.n_clusters,
                    "cluster": row.estimate.cluster,
                    "estimator": row.estimate.method,
                    "epochs": row.epochs,
                    "correct": row.correct,
                    "answered": row.answered,
                    "unparseable": row.unparseable,
                    "failed": row.failed,
                }
            )
    return rows


def _markdown(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(no results)\n"
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_leaderboard(
    rows: list[dict[str, Any]], out_dir: Path, extra: dict[str, Any] | None = None
) -> list[Path]:
    """Write accuracy_by_group.csv, accuracy_by_group.md and summary.json into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{GROUPED}.csv", out_dir / f"{GROUPED}.md", out_dir / "summary.json"]
    write_csv(paths[0], list(rows[0]) if rows else ["model"], rows)
    paths[1].write_text(_markdown(rows), encoding="utf-8")
    paths[2].write_text(
        json.dumps({"leaderboard": rows, **(extra or {})}, indent=2, default=str), encoding="utf-8"
    )
    return paths
