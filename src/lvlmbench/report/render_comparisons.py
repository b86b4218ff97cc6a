"""How a comparison table reads, in every front door: ``lvlmbench compare``'s table, the
report's Comparisons section and the web page take their cells from :func:`comparison_cells`,
so the three print the same figures. Accuracy and win rates read in percentage points, judge
scores on their 1-10 scale, Bradley-Terry differences in Elo-scale rating points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from lvlmbench.report._html import table, td
from lvlmbench.report.render_board import legend_table
from lvlmbench.stats import ALL, Comparison, ComparisonTable, format_interval

__all__ = [
    "ComparisonCells",
    "comparison_cells",
    "comparison_heads",
    "comparison_note",
    "comparisons_section",
    "p_text",
]

_UNITS = {
    "accuracy": (100.0, 1, " pp"),
    "win-rate": (100.0, 1, " pp"),
    "score": (1.0, 2, ""),
    "bradley-terry": (1.0, 1, ""),
}
"""metric → (factor to display units, decimals, unit after a difference)."""
_TESTS = {
    "mcnemar-exact": "McNemar exact",
    "mcnemar-chi2": "McNemar χ²",
    "paired-cluster-bootstrap": "cluster bootstrap",
    "paired-clustered-t": "clustered t",
}
_ADJUSTED = {"holm": "Holm", "bh": "Benjamini-Hochberg", "none": "no adjustment"}


@dataclass(frozen=True)
class ComparisonCells:
    """One comparison as text, in :func:`comparison_heads`' order."""

    pair: str
    group: str
    figure_a: str
    figure_b: str
    difference: str
    interval: str
    p_value: str
    adjusted_p: str
    test: str
    """The test, with McNemar's discordant counts (A right B wrong / B right A wrong)."""
    compared: str
    """Items compared, with their clusters."""
    excluded: str
    """Items only one model answered: only A's, only B's."""
    power: str

    def cells(self) -> list[str]:
        return [
            self.pair,
            self.group,
            self.figure_a,
            self.figure_b,
            self.difference,
            self.interval,
            self.p_value,
            self.adjusted_p,
            self.test,
            self.compared,
            self.excluded,
            self.power,
        ]


def comparison_heads(result: ComparisonTable) -> list[str]:
    """Column heads of :meth:`ComparisonCells.cells`."""
    adjusted = f"p ({_ADJUSTED[result.adjustment]})"
    power = f"items for power {result.power:.0%} (more)"
    return [
        "A vs B",
        "group",
        "A",
        "B",
        "A − B",
        "95% CI",
        "p",
        adjusted,
        "test",
        "items (clusters)",
        "excluded (A, B)",
        power,
    ]


def p_text(value: float | None) -> str:
    """A p-value with three significant digits ("<0.001" below that; "-" when none)."""
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3g}"


def _number(value: float | None, metric: str, signed: bool = False) -> str:
    if value is None:
        return "-"
    factor, digits, _unit = _UNITS[metric]
    return f"{value * factor:{'+' if signed else ''}.{digits}f}"


def comparison_cells(result: ComparisonTable, row: Comparison) -> ComparisonCells:
    """The cells of ``row`` in ``result``'s units."""
    metric, unit = result.metric, _UNITS[result.metric][2]
    paired = row.paired
    difference = interval = test = compared = "-"
    if paired is not None:
        est = paired.difference
        difference = _number(est.estimate, metric, signed=True) + unit
        factor, digits, _ = _UNITS[metric]
        interval = format_interval(est.low, est.high, scale=factor, digits=digits, signed=True)
        test = _TESTS.get(paired.test, paired.test)
        if row.discordant is not None:  # the counts McNemar's test is computed from
            test += f" {row.discordant[0]}/{row.discordant[1]}"
        compared = f"{est.n_items} ({est.n_clusters})"
    power = "-"
    if row.plan is not None:
        power = f"{row.plan.items_needed} ({row.plan.more_needed})"
    return ComparisonCells(
        pair=f"{row.model_a} vs {row.model_b}",
        group="all" if row.group == ALL else " / ".join(row.group),
        figure_a=_number(row.mean_a, metric),
        figure_b=_number(row.mean_b, metric),
        difference=difference if row.note is None else row.note,
        interval=interval,
        p_value=p_text(None if paired is None else paired.p_value),
        adjusted_p=p_text(row.adjusted_p),
        test=test,
        compared=compared,
        excluded=f"{row.only_a}, {row.only_b}",
        power=power,
    )


def comparison_note(result: ComparisonTable) -> str:
    """What the table compares and how, in one sentence (for under the table)."""
    judge = f" judged by {result.judge}" if result.judge else ""
    against = f"each model vs {result.baseline}" if result.baseline else "every pair of models"
    grouped = f", overall and per {' × '.join(result.by)}" if result.by else ""
    return (
        f"{result.metric}{judge}: {against}{grouped}, on the items both answered (the others "
        f"excluded and counted); clusters: {result.cluster}; a mean difference by the paired "
        f"clustered t (clusters − 1 df), or McNemar where items stand alone and scores are "
        f"0/1, a rating difference by a paired cluster bootstrap; p-values of the whole table "
        f"adjusted by {_ADJUSTED[result.adjustment]}."
    )


def comparisons_section(
    result: ComparisonTable, names: Mapping[str, str] | None = None, *, legend: bool = False
) -> str:
    """The Comparisons block of a benchmark's section (escaped; styled by the report CSS);
    ``names``: the models' display names, for the pair column (identities where None);
    ``legend``: add the full spec behind each shortened name (a page without the section's
    Models legend)."""
    shown = names or {}
    rows = []
    for row in result.rows:
        cells = comparison_cells(result, row).cells()
        pair = f"{shown.get(row.model_a, row.model_a)} vs {shown.get(row.model_b, row.model_b)}"
        rows.append([td(pair), *(td(cell) for cell in cells[1:])])
    heads = comparison_heads(result)
    if all(row.plan is None for row in result.rows):
        heads, rows = heads[:-1], [cells[:-1] for cells in rows]
    return (
        f"<h3>Comparisons ({escape(result.metric)})</h3>"
        + table(heads, rows, "comparisons")
        + f'<p class="meta">{escape(comparison_note(result))}</p>'
        + (legend_table(shown, _players(result)) if legend else "")
    )


def _players(result: ComparisonTable) -> list[str]:
    return list(dict.fromkeys(m for row in result.rows for m in (row.model_a, row.model_b)))
