"""The AutoBench-V experiments as the store keeps them, for the report.

``lvlmbench experiment`` prints its figures and stores only their inputs: re-keyed copies
``<bench>@keys-<target>-s<seed>`` (kind ``autobench-rekeyed``) with their responses, and
responses to the benchmark's own items under the ``no-image`` / ``question-only`` variants.
The figures are recomputed here with the same functions the command calls, so the report and
the command agree.
"""

from __future__ import annotations

from typing import Any, cast

from lvlmbench.autobench.experiments import (
    Target,
    leakage_figures,
    position_bias_figures,
    rekey_name,
)
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.report._common import pct
from lvlmbench.store import RekeyedCopy, Store, StoredBenchmark

__all__ = ["leakage_summary", "position_bias_summary", "rekeyed_sources"]


def rekeyed_sources(benchmarks: list[StoredBenchmark]) -> dict[str, str]:
    """{re-keyed copy: the benchmark it was copied from} among ``list_benchmarks`` records."""
    return {b.name: b.data.source for b in benchmarks if isinstance(b.data, RekeyedCopy)}


def _answering(store: Store, benchmark: str, variant: str = "default") -> list[str]:
    return sorted({row.model for row in accuracy_table(store, benchmark, (), variant=variant)})


def position_bias_summary(
    store: Store, benchmark: str, benchmarks: list[StoredBenchmark]
) -> list[dict[str, Any]]:
    """Bias figures, per seed, for every model evaluated on that seed's evenly re-keyed copy
    ([] without one)."""
    by_seed: dict[int, set[str]] = {}
    for b in benchmarks:
        if isinstance(b.data, RekeyedCopy) and b.data.source == benchmark:
            by_seed.setdefault(b.data.seed, set()).add(b.data.target)
    rows = []
    for seed, targets in sorted(by_seed.items()):
        if "even" not in targets or len(targets) < 2:
            continue
        models = _answering(store, rekey_name(benchmark, "even", seed))
        letters = [cast(Target, t) for t in sorted(targets) if t != "even"]
        rows += [
            {
                "model": f.model,
                "seed": f.seed,
                "target": f.target,
                "n": f.n,
                "accuracy": pct(f.accuracy),
                "even": pct(f.even),
                "bias_rate": pct(f.rate),
                "ci_low": pct(f.low),
                "ci_high": pct(f.high),
            }
            for f in position_bias_figures(store, benchmark, letters, models, seed)
        ]
    return rows


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
