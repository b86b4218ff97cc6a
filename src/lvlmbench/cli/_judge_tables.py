"""Rich tables for the judge commands and `rate`/`agreement`: any protocol's summary (by its
columns), pairwise ratings and judge-human agreement."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from lvlmbench.cli._common import console, err_console
from lvlmbench.judging import DiagnosticsJSON, JudgeProtocol, PairwiseReport, table_columns
from lvlmbench.models import display_names
from lvlmbench.ratings import Interval
from lvlmbench.stats import format_interval

__all__ = [
    "COMBINE_NOTES",
    "agreement_table",
    "num",
    "pct",
    "print_pairwise_report",
    "protocol_table",
]


COMBINE_NOTES = {
    "majority": "majority (VisIT-Bench's rule: the side winning more of the two orders wins)",
    "both": "both (a side must win both orders)",
}


def num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _pct_interval(interval: Interval) -> str:
    return format_interval(interval.low, interval.high, scale=100, digits=1) + "%"


def protocol_table(protocol: JudgeProtocol, rows: list[dict[str, Any]], title: str) -> Table:
    """A protocol's summary rows as its ``cli_columns`` say: model names shortened as
    everywhere, an expanded column (a {name: number} mapping) as one column per name."""
    columns = table_columns(protocol, rows)
    table = Table(title=title, title_justify="left")
    for heading, column, _ in columns:
        table.add_column(heading, justify="left" if column.key == "model" else "right")
    shown = display_names(r["model"] for r in rows)
    for r in rows:
        table.add_row(
            *(
                shown[r["model"]] if column.key == "model" else column.cell(column.value(r, name))
                for _, column, name in columns
            )
        )
    return table


def _bt_first(report: PairwiseReport) -> list[str]:
    """Players best first by Bradley-Terry, the headline (online Elo where BT is absent)."""
    bt = report.bradley_terry.ratings if report.bradley_terry else {}
    elo = report.online_elo.shuffled if report.online_elo else {}

    def key(p: str) -> tuple[float, float, str]:
        return (-bt.get(p, float("-inf")), -elo.get(p, 0.0), p)

    return sorted(set(elo) | set(bt), key=key)


def _elo_cell(ratings: dict[str, float], player: str) -> str:
    value = ratings.get(player)
    return "-" if value is None else f"{value:.0f}"


def print_pairwise_report(report: PairwiseReport) -> None:
    """Bradley-Terry with its 95% interval first (as the report and web app show it), online
    Elo last, in the order fought and the mean of shuffled orders, each labelled as such."""
    data = report.as_dict()
    table = Table(title=f"{report.protocol} judged by {report.judge}", title_justify="left")
    elo = report.online_elo
    heads = ["model", "Bradley-Terry (95% CI)", "win rate vs ref (95% CI)", "ties"]
    # Short headings (a table is narrow); the note below the table says what each one is.
    heads += ["online Elo in order", f"online Elo, mean of {elo.shuffles} shuffles"] if elo else []
    for name in heads:
        table.add_column(name, justify="left" if name == "model" else "right")
    bt = data["bradley_terry"] or {}
    shown = display_names(_bt_first(report))
    for player in _bt_first(report):
        b = bt.get(player)
        w = report.win_rates.get(player)
        table.add_row(
            shown[player],
            "-" if b is None else f"{b['rating']:.0f} ({format_interval(b['low'], b['high'])})",
            "-" if w is None else f"{pct(w.rate)} ({_pct_interval(w.interval)})",
            "-" if w is None else str(w.ties),
            *(
                []
                if elo is None
                else [_elo_cell(elo.in_order, player), _elo_cell(elo.shuffled, player)]
            ),
        )
    console.print(table)
    _print_pairwise_notes(report, data["diagnostics"])


def _print_pairwise_notes(report: PairwiseReport, diag: DiagnosticsJSON | None) -> None:
    """What the table's figures are, what was left out, and the judge's diagnostics."""
    elo = report.online_elo
    console.print(
        f"pairs {report.pairs}, unscored {report.unscored_pairs}; rows by status: "
        + ", ".join(f"{k} {v}" for k, v in sorted(report.statuses.items())),
        highlight=False,
    )
    if report.epochs > 1:
        console.print(
            f"{report.epochs} epochs (pairs counts item-pairs × epochs): each epoch's verdict "
            "counts 1/K of its item-pair, K its scored epochs, so the item is the unit of every "
            "figure; win-rate intervals are over item-pairs, and Bradley-Terry's bootstrap "
            "draws as many matches as there are item-pairs",
            highlight=False,
        )
    combined = report.combined_by_judge
    if combined < report.pairs:
        console.print(f"two orders combined: {COMBINE_NOTES[report.combine]}", highlight=False)
    if combined:
        console.print(
            f"{combined} of {report.pairs} pairs hold one verdict the judge gave over both "
            "orders itself (a tie where they disagreed, as FastChat's pair judge writes it)",
            highlight=False,
        )
    console.print(
        "Bradley-Terry: all matches fitted at once, Elo scale (mean 1000), 95% bootstrap interval",
        highlight=False,
    )
    if elo is not None:
        console.print(
            f"online Elo in order = {elo.in_order_label}: the matches replayed once, as "
            f"Chatbot Arena's online Elo; {elo.shuffled_label} (seed {elo.seed}): the same "
            "matches in random orders, averaged. Both for comparison only",
            markup=False,
            highlight=False,
        )
    missing = report.items_without_reference
    if missing and (report.win_rates or missing == report.items):
        console.print(
            f"win rate vs {report.reference}: {report.items_without_reference} of "
            f"{report.items} items have no verified reference and are excluded",
            markup=False,
            highlight=False,
        )
    if diag is not None:
        console.print(
            "judge diagnostics: position flips "
            + pct(diag["position_flip_rate"])
            + ", first position wins "
            + pct(diag["first_position_win_rate"])
            + ", longer answer wins "
            + pct(diag["longer_answer_win_rate"])
            + ", own family wins "
            + pct(diag["self_preference_rate"])
        )
    for note in [*report.warnings, *([report.bt_note] if report.bt_note else [])]:
        err_console.print(f"[yellow]note:[/] {note}", highlight=False)


def agreement_table(rows: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for name in (
        "level",
        "pairs",
        "unscored",
        "judge ties",
        "agree (ties coin flip)",
        "agree (ties excluded)",
    ):
        table.add_column(name, justify="left" if name == "level" else "right")
    for r in rows:
        table.add_row(
            r["level"],
            str(r["pairs"]),
            str(r["unscored"]),
            str(r["judge_ties"]),
            pct(r["coin_flip_rate"]),
            pct(r["ties_excluded_rate"]),
        )
    return table
