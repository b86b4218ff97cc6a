"""The sections `evaluate` prints after its accuracy table for VLMEvalKit datasets: CircularEval
(per-row beside circular accuracy) and MME (acc, acc+ and score per category)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from lvlmbench.choice.vlmeval_scores import (
    MME_TOTALS,
    CircularRow,
    CircularRowJSON,
    MMERow,
    MMERowJSON,
)
from lvlmbench.models import display_names
from lvlmbench.ratings import CategoryTotal

__all__ = ["circular_json", "circular_pivot", "mme_json", "mme_pivot"]


def _label(model: str, variant: str) -> str:
    return model if variant == "default" else f"{model} [{variant}]"


def circular_pivot(rows: Sequence[CircularRow], title: str) -> Table:
    """One row per model: per-row accuracy, circular accuracy and the counts behind them."""
    table = Table(title=title, title_justify="left")
    sampled = any(row.epochs > 1 for row in rows)
    grouped = any(row.group for row in rows)
    names = ["model", *(["group"] if grouped else [])]
    names += ["per-row %", "rows", "circular %", "questions", "incomplete"]
    unasked = any(row.unasked for row in rows)
    names += ["not asked"] if unasked else []
    for name in [*names, *(["epochs"] if sampled else [])]:
        table.add_column(name, justify="left" if name in ("model", "group") else "right")
    for row in rows:
        table.add_row(
            _label(row.model, row.variant),
            *([" / ".join(row.group) or "all"] if grouped else []),
            f"{100 * row.row_accuracy:.1f}",
            f"{row.rows_correct}/{row.rows}",
            f"{100 * row.circular_accuracy:.1f}",
            f"{row.questions_correct}/{row.asked}",
            str(row.incomplete),
            *([f"[yellow]{row.unasked}[/]"] if unasked else []),
            *([str(row.epochs)] if sampled else []),
        )
    return table


def circular_json(rows: Sequence[CircularRow]) -> list[CircularRowJSON]:
    """Rows as plain dicts for --json."""
    return [row.as_dict() for row in rows]


def _total(total: CategoryTotal) -> str:
    # Over part of its categories a sum is no MME score: say how many there are instead.
    return total.shown() if total.value is not None else f"[yellow]{total.shown()}[/]"


def mme_pivot(rows: Sequence[MMERow], title: str) -> Table:
    """Categories as rows, models as columns (MME's 14 categories and two sums squeeze any
    terminal as columns): the perception and reasoning sums where all their categories are
    present ("5 of 10 categories" where not), then per category "score (acc / acc+)"."""
    categories = sorted({c.category for row in rows for c in row.categories})
    sampled = any(c.epochs > 1 for row in rows for c in row.categories)
    shown = display_names(row.model for row in rows)
    table = Table(title=title, title_justify="left")
    table.add_column("category")
    for row in rows:
        table.add_column(_label(shown[row.model], row.variant), justify="right")
    for name in MME_TOTALS:
        table.add_row(f"[bold]{name}[/]", *(_total(row.total(name)) for row in rows))
    found = [{c.category: c for c in row.categories} for row in rows]
    for category in categories:
        cells = [
            f"{c.score:.1f} [dim]({c.acc:.0f}/{c.acc_plus:.0f})[/]" if c else "-"
            for c in (by_name.get(category) for by_name in found)
        ]
        table.add_row(category, *cells)
    table.add_row("unanswered", *(str(sum(c.unanswered for c in row.categories)) for row in rows))
    if any(row.unasked_images for row in rows):
        unasked = (str(row.unasked_images) for row in rows)
        table.add_row("[yellow]pictures not asked[/]", *unasked)
    if sampled:
        table.add_row("epochs", *(str(max(c.epochs for c in row.categories)) for row in rows))
    table.caption = "score = acc + acc+ (%, as MME reports them: acc over questions, acc+ over "
    table.caption += "pictures with both questions right); sums only over complete sets"
    table.caption_justify = "left"
    return table


def mme_json(rows: Sequence[MMERow]) -> list[MMERowJSON]:
    """Rows as plain dicts for --json (acc and acc+ in percent, as MME reports them)."""
    return [row.as_dict() for row in rows]
