"""The sections `evaluate` prints after its accuracy table for VLMEvalKit datasets: CircularEval
(per-row beside circular accuracy) and MME (acc, acc+ and score per category)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from lvlmbench.choice.vlmeval_scores import (
    MME_PERCEPTION,
    MME_REASONING,
    CircularRow,
    MMERow,
)

__all__ = ["circular_json", "circular_pivot", "mme_json", "mme_pivot"]


def _label(model: str, variant: str) -> str:
    return model if variant == "default" else f"{model} [{variant}]"


def circular_pivot(rows: Sequence[CircularRow], title: str) -> Table:
    """One row per model: per-row accuracy, circular accuracy and the counts behind them."""
    table = Table(title=title, title_justify="left")
    for name in ("model", "per-row %", "rows", "circular %", "questions", "incomplete"):
        table.add_column(name, justify="left" if name == "model" else "right")
    for row in rows:
        table.add_row(
            _label(row.model, row.variant),
            f"{100 * row.row_accuracy:.1f}",
            f"{row.rows_correct}/{row.rows}",
            f"{100 * row.circular_accuracy:.1f}",
            f"{row.questions_correct}/{row.questions}",
            str(row.incomplete),
        )
    return table


def circular_json(rows: Sequence[CircularRow]) -> list[dict[str, Any]]:
    """Rows as plain dicts for --json."""
    return [row.as_dict() for row in rows]


def _total(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def mme_pivot(rows: Sequence[MMERow], title: str) -> Table:
    """Models as rows; per category "score (acc / acc+)"; perception and reasoning sums."""
    categories = sorted({c.category for row in rows for c in row.categories})
    table = Table(title=title, title_justify="left")
    table.add_column("model")
    for name in ("perception", "reasoning", *categories, "unanswered"):
        table.add_column(name, justify="right")
    for row in rows:
        by_name = {c.category: c for c in row.categories}
        cells = [
            f"{c.score:.1f} [dim]({c.acc:.0f}/{c.acc_plus:.0f})[/]" if c else "-"
            for c in (by_name.get(name) for name in categories)
        ]
        table.add_row(
            _label(row.model, row.variant),
            _total(row.total(MME_PERCEPTION)),
            _total(row.total(MME_REASONING)),
            *cells,
            str(sum(c.unanswered for c in row.categories)),
        )
    return table


def mme_json(rows: Sequence[MMERow]) -> list[dict[str, Any]]:
    """Rows as plain dicts for --json (acc and acc+ in percent, as MME reports them)."""
    return [row.as_dict() for row in rows]
