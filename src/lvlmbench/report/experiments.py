"""The AutoBench-V experiments as the store keeps them, for the report.

``lvlmbench experiment`` prints its figures and stores only their inputs: re-keyed copies
``<bench>@keys-<target>`` (kind ``autobench-rekeyed``) with their responses, and responses to
the benchmark's own items under the ``no-image`` / ``question-only`` variants. The figures are
recomputed here with the same functions the command calls, so the report and the command agree.
"""

from __future__ import annotations

from typing import Any, cast

from lvlmbench.autobench.experiments import Target, leakage_figures, position_bias_figures
from lvlmbench.autobench.scoring import accuracy_table
from lvlmbench.report._common import pct
from lvlmbench.store import Store

__all__ = ["REKEYED", "leakage_summary", "position_bias_summary", "rekeyed_sources"]

REKEYED = "autobench-rekeyed"
"""Benchmark kind of the position-bias experiment's re-keyed copies."""


def rekeyed_sources(benchmarks: list[dict[str, Any]]) -> dict[str, str]:
    """{re-keyed copy: the benchmark it was copied from} among ``list_benchmarks`` rows."""
    return {
        b["name"]: str(b["data"].get("source"))
        for b in benchmarks
        if b["kind"] == REKEYED and isinstance(b.get("data"), dict)
    }


def _answering(store: Store, benchmark: str, variant: str = "default") -> list[str]:
    return sorted({row.model for row in accuracy_table(store, benchmark, (), variant=variant)})


def position_bias_summary(
    store: Store, benchmark: str, benchmarks: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Bias figures for every model evaluated on the evenly re-keyed copy ([] without one)."""
    targets = sorted(
        str(b["data"].get("target"))
        for b in benchmarks
        if b["kind"] == REKEYED and b["data"].get("source") == benchmark
    )
    if "even" not in targets or len(targets) < 2:
        return []
    models = _answering(store, f"{benchmark}@keys-even")
    letters = [cast(Target, t) for t in targets if t != "even"]
    return [
        {
            "model": f.model,
            "target": f.target,
            "accuracy": pct(f.accuracy),
            "even": pct(f.even),
            "bias_rate": pct(f.rate),
        }
        for f in position_bias_figures(store, benchmark, letters, models)
    ]


def leakage_summary(store: Store, benchmark: str) -> dict[str, Any] | None:
    """Leakage figures for every model answered without the image (None when none was)."""
    models = _answering(store, benchmark, "no-image")
    if not models:
        return None
    figures, spread = leakage_figures(store, benchmark, models)
    return {
        "figures": [
            {
                "model": f.model,
                "with_image": pct(f.with_image),
                "description_only": pct(f.description_only),
                "question_only": None if f.question_only is None else pct(f.question_only),
                "image_adds": pct(f.drop),
            }
            for f in figures
        ],
        "description_only_std": pct(spread),
    }
