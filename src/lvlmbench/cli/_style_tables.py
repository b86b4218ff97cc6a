"""The style-control block of `lvlmbench rate --style-control`: style coefficients with their
intervals, and the style-controlled Bradley-Terry ratings beside the raw ones."""

from __future__ import annotations

from rich.table import Table

from lvlmbench.cli._common import console, err_console
from lvlmbench.judging import PairwiseReport
from lvlmbench.models import display_names
from lvlmbench.stats import format_interval

__all__ = ["print_style_control"]

_FEATURES = {
    "tokens": "length (tokens)",
    "headers": "markdown headers",
    "list_items": "markdown list items",
    "bold": "bold spans",
}


def print_style_control(report: PairwiseReport) -> None:
    """Coefficients (log-odds per typical normalised difference, 95% interval), then both
    ratings per model, best first by the controlled rating."""
    style = report.style
    if style is None:
        return
    data = style.as_dict()
    if data["ratings"] is None:
        err_console.print(f"[yellow]note:[/] style control: {style.note}", highlight=False)
        return
    coefficients = Table(title="style coefficients (log-odds, 95% CI)", title_justify="left")
    for name in ("feature", "coefficient (95% CI)", "per unit (a-b)/(a+b)"):
        coefficients.add_column(name, justify="left" if name == "feature" else "right")
    for feature, c in (data["coefficients"] or {}).items():
        coefficients.add_row(
            _FEATURES.get(feature, feature),
            f"{c['value']:+.3f} ({c['low']:+.3f} – {c['high']:+.3f})",
            f"{c['value'] / c['scale']:+.2f}",
        )
    console.print(coefficients)
    raw = report.as_dict()["bradley_terry"] or {}
    controlled = data["ratings"]
    order = sorted(controlled, key=lambda p: (-controlled[p]["rating"], p))
    shown = display_names(order)
    table = Table(title="style-controlled Bradley-Terry", title_justify="left")
    for name in ("model", "controlled (95% CI)", "raw (95% CI)", "change"):
        table.add_column(name, justify="left" if name == "model" else "right")
    for player in order:
        s, r = controlled[player], raw.get(player)
        table.add_row(
            shown[player],
            f"{s['rating']:.0f} ({format_interval(s['low'], s['high'])})",
            "-" if r is None else f"{r['rating']:.0f} ({format_interval(r['low'], r['high'])})",
            "-" if r is None else f"{s['rating'] - r['rating']:+.0f}",
        )
    console.print(table)
    constant = ", ".join(data["constant_features"])
    console.print(
        f"style control: {data['matches_used']} matches fitted, {data['matches_without_text']} "
        "left out (an answer text missing); coefficient = change in log-odds of winning for a "
        "typical (root-mean-square) normalised difference (a-b)/(a+b), positive = the judge "
        "favours more of it" + (f"; constant, not fitted: {constant}" if constant else ""),
        highlight=False,
    )
    if style.note:
        err_console.print(f"[yellow]note:[/] {style.note}", highlight=False)
