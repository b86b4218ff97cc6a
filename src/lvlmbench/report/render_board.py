"""The benchmark's leaderboard table in HTML, its accuracy cells, and the legend of model names.

The table's order, coverage flag and ranks are the typed leaderboard rows'
(:func:`~lvlmbench.report.leaderboard.benchmark_rows`), the same rows ``leaderboard.md`` and
``leaderboard.csv`` are written from, so the report, the web page and the files cannot
disagree: full-coverage rows first, best first, then each partial row flagged "partial:
answered k of n items, not ranked" with no rank. Models are named by their compact display
names (:func:`~lvlmbench.report.leaderboard.board_names`); :func:`legend_table` lists the full
identity behind every name that shortens one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from html import escape
from typing import Any

from lvlmbench.choice.ranks import RANK_RESAMPLES, RANK_SEED
from lvlmbench.report._html import table, td
from lvlmbench.report.board_cells import LeaderboardRow
from lvlmbench.report.leaderboard import benchmark_rows, is_partial
from lvlmbench.report.summary import BenchmarkSummary
from lvlmbench.stats import format_interval, format_ranks, interval_note_of_fields

__all__ = [
    "CellLink",
    "acc_cell",
    "coverage_flags",
    "leaderboard_order",
    "legend_table",
    "model_cell",
    "overall_section",
]

CellLink = Callable[[str, str, str], str | None]
"""(model, facet, group) → the URL of the items behind an accuracy cell, or None: the web app
links each cell to its items; the offline report file has no links."""


def acc_cell(row: Mapping[str, Any], group: str, facet: str, link: CellLink | None) -> str:
    """An accuracy and its interval: two cells, the number linked to its items when ``link``
    gives a URL."""
    number = f"{row['accuracy']:.1f}"
    url = link(row["model"], facet, group) if link is not None else None
    if url is not None:
        number = f'<a href="{escape(url)}">{number}</a>'
    return (
        f'<td class="acc" data-model="{escape(row["model"])}" data-facet="{escape(facet)}" '
        f'data-group="{escape(group)}">{number}</td>'
        f'<td class="ci">{format_interval(row["ci_low"], row["ci_high"], digits=1)}</td>'
    )


def coverage_flags(bench: BenchmarkSummary) -> dict[str, str]:
    """model → its "partial: answered k of n items, not ranked" flag, for the partial rows."""
    return {r.model: str(r.value("coverage")) for r in benchmark_rows(bench) if is_partial(r)}


def leaderboard_order(bench: BenchmarkSummary, models: Sequence[str]) -> list[str]:
    """``models`` in the leaderboard's order (full runs best first, partial ones after), any
    the leaderboard does not list after them in their own order (so colours match across
    charts)."""
    ranked = [r.model for r in benchmark_rows(bench) if r.model in models]
    return ranked + [m for m in models if m not in ranked]


def model_cell(model: str, names: Mapping[str, str], flag: str | None = None) -> str:
    """The model's name cell: its display name (the legend gives the full identity), and the
    partial-coverage flag under it where ``flag`` is given."""
    note = f'<br><span class="partial">{escape(flag)}</span>' if flag else ""
    return (
        f'<td class="model" data-model="{escape(model)}" title="{escape(model)}">'
        f"{escape(names.get(model, model))}{note}</td>"
    )


def legend_table(names: Mapping[str, str], models: Iterable[str]) -> str:
    """ "Models": each shortened name of ``models`` beside its full identity ('' when every
    name is shown in full)."""
    rows = [
        [td(names[m], legend="name"), f'<td data-legend="spec"><code>{escape(m)}</code></td>']
        for m in dict.fromkeys(models)
        if names.get(m, m) != m
    ]
    if not rows:
        return ""
    note = '<p class="note">Short names in this section, with the full model spec behind each.</p>'
    return "<h4>Models</h4>" + note + table(["name", "full spec"], rows, "legend")


def _rank_cell(board: LeaderboardRow, row: Mapping[str, Any]) -> str:
    cell = board.cells.get("rank")
    if cell is None or cell.interval is None:
        return td("not ranked" if is_partial(board) else "-", rank="none")
    low, high = cell.interval.low, cell.interval.high
    text = format_ranks(int(low or 0), int(high or 0))
    tied = " (tied)" if row.get("tied_with") else ""
    return td(text + tied, rank=str(cell.value))


def _rank_note(bench: BenchmarkSummary, partial: bool) -> str:
    """What the rank intervals are over (empty where there are none), and why a partial row
    has none where the table has one."""
    ranked = next((r for r in bench["overall"] if "rank_low" in r), None)
    if ranked is None:
        return ""
    return escape(
        f" Rank (95%): the ranks a model holds in 95% of {RANK_RESAMPLES} cluster-bootstrap "
        f"resamples (by {ranked['rank_cluster']}, {ranked['rank_clusters']} clusters) of the "
        f"{ranked['rank_items']} items every model answered, seed {RANK_SEED}; models whose "
        "intervals overlap are tied, not ordered."
        + (
            " A partial row answered fewer items: it is listed after every full one, not ranked."
            if partial
            else ""
        )
    )


def _overall_row(
    board: LeaderboardRow,
    row: Mapping[str, Any],
    names: Mapping[str, str],
    link: CellLink | None,
    shown: tuple[bool, bool, bool],
) -> list[str]:
    partial, ranked, clustered = shown
    covers = row.get("covers")
    return [
        model_cell(row["model"], names),
        acc_cell(row, "all", "overall", link),
        td(str(board.value("coverage") or ""), model=row["model"], coverage="overall"),
        *(
            [td("; ".join(covers or []) or "all", model=row["model"], covers="overall")]
            if partial
            else []
        ),
        *([_rank_cell(board, row)] if ranked else []),
        td(str(row["items"])),
        *([td(str(row["clusters"]))] if clustered else []),
        td(f"{row['epochs']:g}", model=row["model"], epochs="overall"),
        *(td(str(row[k])) for k in ("correct", "answered", "unparseable", "failed")),
    ]


def overall_section(
    bench: BenchmarkSummary, link: CellLink | None, names: Mapping[str, str]
) -> str:
    """The "Leaderboard" table: one row per examinee in the leaderboard rows' order."""
    overall = {r["model"]: r for r in bench["overall"]}
    boards = [b for b in benchmark_rows(bench) if b.model in overall]
    if not boards:
        return ""
    # A model whose items miss a capability or level has an overall over the rest only.
    partial = any(r.get("covers") for r in overall.values())
    ranked = any("rank" in b.cells or is_partial(b) for b in boards)
    clustered = any(r.get("cluster", "item") != "item" for r in overall.values())
    shown = (partial, ranked, clustered)
    rows = [_overall_row(b, overall[b.model], names, link, shown) for b in boards]
    head = ["model", "accuracy %", "95% CI", "coverage", *(["covers"] if partial else [])]
    head += [*(["rank (95%)"] if ranked else []), "items", *(["clusters"] if clustered else [])]
    head += ["epochs", "correct", "answered", "unparseable", "failed"]
    note = (
        '<p class="note">Accuracy over items: each item\'s answers (several with --epochs) '
        f"average to its score. {escape(interval_note_of_fields(bench['overall']))}."
        f"{_rank_note(bench, any(is_partial(b) for b in boards))}</p>"
    )
    return "<h3>Leaderboard</h3>" + note + table(head, rows, "acc")
