"""``leaderboard.csv`` and ``leaderboard.md`` beside the report, from the same collected data.

One row per benchmark × model (wide, so ``pandas.read_csv`` gives a usable table at once):
``model`` is the full identity (``openai/m?base_url=...&system=sha256:...``), ``display`` the
short name every table shows for it (:func:`board_names`; the Markdown file, the HTML report
and the web page list the full identities in a legend under each table that shortens one).
Every figure ``X`` with an interval comes as three columns ``X``, ``X_low``, ``X_high``:

- ``accuracy`` (choice items, %, 95% over items: each item's answers averaged first, clustered
  by the items' shared source) with ``items`` (the interval's n), ``clusters`` and ``cluster``
  (how many clusters, and what one is: "fine aspect", "item"...), ``estimator`` (clustered-t,
  wilson...), ``epochs`` (answers per item) and the answer counts ``correct``, ``answered``,
  ``unparseable``, ``failed``, ``coverage`` (``all n items`` or ``partial: answered k of n
  items, not ranked``, n the benchmark's keyed items: a partial row is listed after every full
  one and has no rank); ``rank`` with ``rank_low``/``rank_high`` (the ranks the model
  holds in 95% of cluster-bootstrap resamples over the items every model answered: models
  whose ranges overlap are tied; see :mod:`lvlmbench.report.ranks`); ``level:<difficulty>``
  and ``capability:<name>`` likewise per group;
- ``metric:<name>`` (text-metric mean, bootstrap 95%);
- ``bt:<judge>`` (Bradley-Terry on the Elo scale, mean 1000, bootstrap 95%: the headline
  rating), ``bt_style:<judge>`` (the style-controlled Bradley-Terry, same scale, when it was
  fitted), ``win_rate:<judge>`` (% vs the reference, Wilson 95%), and online Elo (no
  interval, for comparison with VisIT-Bench and Chatbot Arena) two ways:
  ``online_elo_in_order:<judge>`` (the matches replayed once in the order the battles were
  fought, or benchmark item order where none was recorded; ``online_elo_order:<judge>`` says
  which) and ``online_elo_shuffled_mean:<judge>`` (the mean over 100 seeded shuffled orders),
  per pairwise judge, with ``combine:<judge>`` naming how the two orders were combined
  (``majority`` or ``both``); people's votes, where there are some, give the same columns for
  the judge ``human`` (``bt:human``, ``win_rate:human``, ``online_elo_in_order:human``, ...;
  no ``combine:``, each vote being one match);
- ``touchstone:<judge>`` (score ×100, 95% t over items), ``touchstone_rel:<judge>`` (% of the
  reference) and ``touchstone:<judge>:<ability>``;
- ``hallucination:<judge>`` (mean 0-10, 95% t over items);
- for any other registered judge protocol, ``<its prefix><judge>`` (its headline figure).

Every judge protocol's columns come from its report section's ``figures`` hook
(:mod:`lvlmbench.report.sections`), the built-ins' as any other's. The rows are typed
(:class:`~lvlmbench.report.board_cells.LeaderboardRow`, a :class:`Cell` per column, an
interval a cell's ``Bounds``); the flat columns above are their form in the files.

Cells a benchmark has no figure for are empty. This is the one ``leaderboard.csv`` schema; the
demo's long per-group accuracy table is ``accuracy_by_group.csv`` (see
:mod:`lvlmbench.autobench.leaderboard`). The Markdown file has one table per benchmark
with only that benchmark's columns and each interval folded into its cell: ``62.5 [50.1–73.2]``
(:func:`lvlmbench.stats.format_interval`), a rank as its range: ``1–2``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from html import escape
from pathlib import Path

from lvlmbench._csv import write_csv
from lvlmbench.judging import column_digits
from lvlmbench.models import display_names
from lvlmbench.report._common import LEVELS
from lvlmbench.report.board_cells import Cell, Figures, LeaderboardRow, interval_cell
from lvlmbench.report.judged import board_figures
from lvlmbench.report.summary import AccuracyFacet, BenchmarkSummary, ReportData, Row
from lvlmbench.stats import format_interval, format_ranks

__all__ = [
    "benchmark_rows",
    "board_names",
    "is_partial",
    "leaderboard_columns",
    "leaderboard_markdown",
    "leaderboard_rows",
    "write_leaderboards",
]

_PARTIAL = "partial:"
"""How a row over part of its benchmark's keyed items starts its ``coverage`` cell."""

_COUNTS = (
    *("items", "clusters", "cluster", "estimator"),
    *("epochs", "correct", "answered", "unparseable", "failed"),
)

_FACET_COLUMNS: tuple[tuple[AccuracyFacet, str], ...] = (
    ("difficulty", "level"),
    ("capability", "capability"),
)
"""Accuracy facets in the leaderboard, with their columns' prefix."""


def _accuracy(bench: BenchmarkSummary) -> Iterator[tuple[str, Mapping[str, Cell]]]:
    for r in bench["overall"]:
        accuracy = interval_cell(r["accuracy"], r["ci_low"], r["ci_high"], n=r["items"])
        counts = {k: Cell(r[k]) for k in _COUNTS}
        coverage = _coverage(r)
        ranked = {} if coverage.startswith(_PARTIAL) else _rank(r)
        yield r["model"], {"accuracy": accuracy, **counts, "coverage": Cell(coverage), **ranked}
    for facet, prefix in _FACET_COLUMNS:
        for r in _by_group(bench[facet], facet):
            cell = interval_cell(r["accuracy"], r["ci_low"], r["ci_high"], n=r.get("items"))
            yield r["model"], {f"{prefix}:{r[facet]}": cell}


def _rank(row: Row) -> dict[str, Cell]:
    """The rank cell of an overall row that has a rank interval (none otherwise)."""
    if "rank" not in row:
        return {}
    return {"rank": interval_cell(row["rank"], row["rank_low"], row["rank_high"])}


def _coverage(row: Row) -> str:
    """``all n items``, or ``partial: answered k of n items, not ranked`` where the model
    answered only part of the benchmark's keyed items (a figure over 6 of 720 items is not
    comparable with full runs' figures, so it is not ranked among them)."""
    answered, keyed = row["items"], row.get("keyed")
    if not isinstance(keyed, int) or answered >= keyed:
        return f"all {answered} items"
    return f"{_PARTIAL} answered {answered} of {keyed} items, not ranked"


def _by_group(rows: list[Row], facet: str) -> list[Row]:
    """Levels easy → hard (so the columns read in order), any other group by name."""

    def order(row: Row) -> tuple[int, str]:
        group = str(row[facet])
        return (LEVELS.index(group) if group in LEVELS else len(LEVELS), group)

    return sorted(rows, key=order)


def _sources() -> list[Figures]:
    """Accuracy first, then each judge protocol's columns (its report section's ``figures``)."""
    return [_accuracy, *board_figures()]


def _cells(bench: BenchmarkSummary, sources: Sequence[Figures]) -> dict[str, dict[str, Cell]]:
    cells: dict[str, dict[str, Cell]] = {}
    for source in sources:
        for model, figures in source(bench):
            mine = cells.setdefault(model, {})
            mine.update({name: cell.rounded() for name, cell in figures.items()})
    return cells


def board_names(bench: BenchmarkSummary) -> dict[str, str]:
    """Every player of ``bench`` (its examinees and every model a judge protocol's figures
    name) → its compact display name (:func:`lvlmbench.models.display_names`): unique within
    the benchmark, so every table and chart of it names a model the same way. The summary's
    ``display`` where :func:`~lvlmbench.report.collect` stored it."""
    stored = bench.get("display")
    if stored is not None:
        return stored
    return display_names([*bench["models"], *_cells(bench, _sources())], compact=True)


def _bench_rows(bench: BenchmarkSummary, sources: Sequence[Figures]) -> list[LeaderboardRow]:
    names = board_names(bench)
    rows = [
        LeaderboardRow(bench["name"], bench["kind"], m, c, names.get(m))
        for m, c in _cells(bench, sources).items()
    ]
    # Ranked on the common item set: full-coverage rows best first, partial rows after them
    # (unranked), then models without an accuracy, each group in name order where tied.
    return sorted(rows, key=lambda r: (is_partial(r), -_number(r.value("accuracy")), r.model))


def benchmark_rows(bench: BenchmarkSummary) -> list[LeaderboardRow]:
    """``bench``'s leaderboard rows in ranking order: the one order and coverage flag the
    files, the HTML report and the web page all show."""
    return _bench_rows(bench, _sources())


def is_partial(row: LeaderboardRow) -> bool:
    """Whether the row answered only part of its benchmark's keyed items (so has no rank)."""
    return str(row.value("coverage") or "").startswith(_PARTIAL)


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else -1.0


def leaderboard_rows(data: ReportData) -> list[LeaderboardRow]:
    """One typed row per benchmark × model from :func:`~lvlmbench.report.collect` data."""
    sources = _sources()
    return [row for bench in data["benchmarks"] for row in _bench_rows(bench, sources)]


def leaderboard_columns(data: ReportData) -> list[str]:
    """The cells' columns in file order: kind of figure first, benchmark second, so accuracy
    columns stay together across benchmarks (an interval's ``_low``/``_high`` not included)."""
    columns: list[str] = []
    for source in _sources():
        for bench in data["benchmarks"]:
            columns += [name for _, figures in source(bench) for name in figures]
    return list(dict.fromkeys(columns))


def _csv_columns(data: ReportData, rows: Sequence[LeaderboardRow]) -> list[str]:
    with_interval = {n for r in rows for n, c in r.cells.items() if c.interval is not None}
    out = ["benchmark", "kind", "model", "display"]
    for name in leaderboard_columns(data):
        out += [name, f"{name}_low", f"{name}_high"] if name in with_interval else [name]
    return out


def _cell(row: LeaderboardRow, column: str) -> str:
    cell = row.cells.get(column)
    if cell is None or cell.value is None:
        return ""
    # The protocol owning the column says how many decimals tell its models apart.
    digits = column_digits(column)
    value = cell.value
    text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    low, high = (cell.interval.low, cell.interval.high) if cell.interval else (None, None)
    if column == "rank" and isinstance(low, int) and isinstance(high, int):
        return _md(format_ranks(low, high))
    if isinstance(low, float) and isinstance(high, float):
        text += f" [{format_interval(low, high, digits=digits)}]"
    return _md(text)


def _md(text: str) -> str:
    """Inert in a Markdown table: no pipes, no line breaks, no raw HTML from a model's name."""
    return escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


_PARTIAL_NOTE = (
    "Ranked on the common item set: only models that answered every keyed item are ranked; "
    "a row marked partial answered fewer and sits below them, not ranked."
)


def leaderboard_markdown(data: ReportData) -> str:
    """One Markdown table per benchmark, intervals folded into their cells."""
    rows = leaderboard_rows(data)
    parts = []
    every = ["model", *leaderboard_columns(data)]
    for name in dict.fromkeys(r.benchmark for r in rows):
        mine = [r for r in rows if r.benchmark == name]
        columns = [c for c in every if c == "model" or any(r.value(c) is not None for r in mine)]
        lines = [
            f"## {_md(name)}",
            "",
            "| " + " | ".join(_md(c) for c in columns) + " |",
            "|" + "---|" * len(columns),
        ]
        lines += [
            "| " + " | ".join(_md(r.shown) if c == "model" else _cell(r, c) for c in columns) + " |"
            for r in mine
        ]
        if any(is_partial(r) for r in mine):
            lines += ["", _PARTIAL_NOTE]
        parts.append("\n".join(lines + _legend(mine)) + "\n")
    return "\n".join(parts) if parts else "(no results)\n"


def _legend(rows: Sequence[LeaderboardRow]) -> list[str]:
    """The full identity of every model the table shows shortened (none where none is)."""
    shortened = [r for r in rows if r.shown != r.model]
    if not shortened:
        return []
    lines = ["", "| model | full spec |", "|---|---|"]
    return lines + [f"| {_md(r.shown)} | {_md(r.model)} |" for r in shortened]


def write_leaderboards(data: ReportData, out_dir: Path) -> tuple[Path, Path]:
    """Write ``leaderboard.csv`` and ``leaderboard.md`` into ``out_dir``; return both paths."""
    rows = leaderboard_rows(data)
    csv_path, md_path = out_dir / "leaderboard.csv", out_dir / "leaderboard.md"
    write_csv(csv_path, _csv_columns(data, rows), [r.flat() for r in rows])
    md_path.write_text(leaderboard_markdown(data), encoding="utf-8")
    return csv_path, md_path
