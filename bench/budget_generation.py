"""Budgeted generation against the full plan, for ``bench_budget.py``: real AutoBench-V runs with
the procedural examiner and renderer (offline) and baseline examinees of known order.

For each seed, ``generate --until compare:A,B`` builds the plan's units in doubling rounds from
``--gen-first`` units and stops when the test decides; the same command with one round as large
as the plan builds everything and decides once on all of it (the full plan). Two pairs:
``baseline/oracle`` against ``baseline/random`` (the oracle knows every key: "right" is claiming
it better) and ``baseline/random`` against ``baseline/random?seed=3`` (equally good: "right" is
claiming nothing). Figures: decisions right in each, items generated, and examiner +
text-to-image calls (measured requests) of the budgeted runs against the full plan, plus how far
the budgeted run's estimate of the full plan's calls was from the measured one.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from lvlmbench.cli import app

ORACLE, RANDOM, RANDOM3 = "baseline/oracle", "baseline/random", "baseline/random?seed=3"
PAIRS = {"oracle vs random": (ORACLE, RANDOM, ORACLE), "random vs random": (RANDOM, RANDOM3, None)}
"""name -> (A, B, the better one; None: equally good)."""


def _generate(db: Path, seed: int, per_aspect: int, pair: tuple[str, str], first: int) -> Any:
    a, b = pair
    args = ["generate", "spatial understanding", "--per-aspect", str(per_aspect)]
    args += ["--seed", str(seed), "--model", a, "--model", b, "--until", f"compare:{a},{b}"]
    args += ["--first-round", str(first), "--store", str(db), "--json"]
    result = CliRunner().invoke(app, args)
    if result.exit_code != 0:
        raise RuntimeError(result.output)
    return json.loads(result.stdout)["budget"]


def _right(budget: dict[str, Any], better: str | None) -> bool:
    if better is None:
        return not budget["answered"]
    return bool(budget["answered"] and budget["order"][0] == better)


def generation_runs(runs: int, per_aspect: int, first: int) -> dict[str, dict[str, float]]:
    """Per pair: right shares, mean items and examiner + image calls, budgeted and full."""
    figures: dict[str, dict[str, float]] = {}
    for name, (a, b, better) in PAIRS.items():
        rows = []
        for seed in range(runs):
            with tempfile.TemporaryDirectory() as tmp:
                early = _generate(Path(tmp) / "early.db", seed, per_aspect, (a, b), first)
                full = _generate(Path(tmp) / "full.db", seed, per_aspect, (a, b), 10**9)
            rows.append((early, full))
        n = len(rows)
        figures[name] = {
            "right": sum(_right(e, better) for e, _ in rows) / n,
            "full_right": sum(_right(f, better) for _, f in rows) / n,
            "items": sum(e["items_used"] for e, _ in rows) / n,
            "full_items": sum(f["items_used"] for _, f in rows) / n,
            "calls": sum(e["generation_calls"] for e, _ in rows) / n,
            "full_calls": sum(f["generation_calls"] for _, f in rows) / n,
            "estimate_error": max(
                abs(e["calls_full_estimate"] - f["calls"]) / f["calls"] for e, f in rows
            ),
        }
    return figures
