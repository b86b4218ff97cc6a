"""The experiments on one benchmark's design (the diversity of its topics, its aspect grid,
answer leakage and model ranks per difficulty level), as the report shows them.

Diversity and aspect figures are read back as ``lvlmbench experiment`` stored them; leakage and
ranks per level are recomputed from stored answers with the functions the commands call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lvlmbench.autobench.exp_levels import leakage_by_level, ranks_by_level, ranks_from_table
from lvlmbench.choice.accuracy import AccuracyRow, accuracy_table
from lvlmbench.judging.corrected import corrected_alignment
from lvlmbench.judging.human_checks import CHECKS, alignment_rates, check_summaries
from lvlmbench.report._common import pct
from lvlmbench.report.guidelines_table import guidelines_table
from lvlmbench.store import GenerationReport, Store, get_artifact, get_benchmark

__all__ = ["EXPERIMENT_STAGE", "design_experiments_summary"]

EXPERIMENT_STAGE = "experiment"
"""Artifact stage of the stored experiments (``lvlmbench experiment diversity|aspects``)."""


def _score(score: Any) -> dict[str, Any]:
    low, high = score.interval
    return {
        "accuracy": pct(score.accuracy),
        "low": pct(low),
        "high": pct(high),
        "n": score.items,
    }


def _leakage_levels(store: Store, benchmark: str) -> list[dict[str, Any]]:
    models = sorted({r.model for r in accuracy_table(store, benchmark, (), variant="no-image")})
    if not models:
        return []
    return [
        {
            "level": row.level,
            "with_image": {m: _score(a) for m, a in row.with_image.items()},
            "description_only": {m: _score(a) for m, a in row.description_only.items()},
            "std": pct(row.spread_std),
            "range": pct(row.spread_range),
        }
        for row in leakage_by_level(store, benchmark, models)
    ]


def _ranks(
    store: Store, benchmark: str, by_level: Sequence[AccuracyRow] | None
) -> list[dict[str, Any]]:
    ranks = ranks_by_level(store, benchmark) if by_level is None else ranks_from_table(by_level)
    return [{"level": r.level, "model": r.model, "rank": r.rank, **_score(r.score)} for r in ranks]


def _alignment(store: Store, benchmark: str) -> dict[str, Any] | None:
    """People's alignment rates per check and level, the benchmark's guideline condition, and
    the self-check's alignment corrected by people's image checks (PPI++, ``self_check``)."""
    rates = alignment_rates(store, benchmark)
    if not rates:
        return None
    row = get_benchmark(store, benchmark)
    data = row.data if row is not None else None
    guided = not isinstance(data, GenerationReport) or data.guidelines
    condition = "guidelines" if guided else "no guidelines"
    rows = []
    for r in rates:
        ci = r.interval
        rows.append(
            {
                "check": r.check,
                "label": CHECKS.get(r.check, r.check),
                "level": r.level,
                "yes": r.yes,
                "no": r.no,
                "unsure": r.unsure,
                "rate": None if r.rate is None else pct(r.rate),
                "low": None if ci is None else pct(ci.low),
                "high": None if ci is None else pct(ci.high),
            }
        )
    corrected = corrected_alignment(store, benchmark)
    self_check = None if corrected is None else corrected.as_dict()
    agreement = _agreement(store, benchmark)
    return {"condition": condition, "rows": rows, "self_check": self_check, "agreement": agreement}


def _agreement(store: Store, benchmark: str) -> list[dict[str, Any]]:
    """Agreement between annotators per check (Fleiss' κ or Krippendorff's α)."""
    out = []
    for summary in check_summaries(store, benchmark):
        found = summary.agreement
        if found is None:
            continue
        out.append(
            {
                "check": summary.check,
                "label": CHECKS.get(summary.check, summary.check),
                "method": found.method,
                "value": found.value,
                "items": found.items,
                "annotators": found.annotators,
                "answers": found.answers,
                "reason": found.reason,
            }
        )
    return out


def design_experiments_summary(
    store: Store, benchmark: str, by_level: Sequence[AccuracyRow] | None = None
) -> dict[str, Any]:
    """Every figure of these experiments the store holds for ``benchmark`` (empty when none);
    ``by_level`` is its accuracy table by difficulty when the caller has it already."""
    table4 = guidelines_table(store, benchmark)
    return {
        "diversity": get_artifact(store, benchmark, EXPERIMENT_STAGE, "diversity"),
        "aspects": get_artifact(store, benchmark, EXPERIMENT_STAGE, "aspects"),
        "leakage_levels": _leakage_levels(store, benchmark),
        "ranks": _ranks(store, benchmark, by_level),
        "alignment": _alignment(store, benchmark),
        "guidelines": None if table4 is None else table4.as_dict(),
    }
