"""How a judge protocol appears in the report: a :class:`ReportSection` per report key, with
three hooks: its data in ``summary.json`` (``collect``), its section of the page (``render``)
and its leaderboard columns (``figures``).

Every protocol with a ``report_key`` goes through the same lookup (:func:`section_for`): the
section registered under its key with :func:`register_section`, else :func:`generic_section`,
built from the protocol alone (its ``summarise`` per judge, a table of its ``cli_columns`` in
its number format, its headline figure as a leaderboard column). The built-in protocols
register theirs in :mod:`lvlmbench.report.builtin_sections`, exactly as a new protocol may;
a new protocol that registers nothing here still gets a section and a column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any, cast

from lvlmbench.judging import JudgeProtocol, judges_for, table_columns
from lvlmbench.registry import Registry
from lvlmbench.report._html import table, td
from lvlmbench.report.board_cells import Cell, Figures
from lvlmbench.report.summary import BenchmarkSummary, Row
from lvlmbench.store import Store, iter_judgments
from lvlmbench.types import BenchmarkItem

__all__ = [
    "REPORT_SECTIONS",
    "ReportSection",
    "SectionInput",
    "generic_section",
    "judged_entries",
    "protocol_section",
    "register_section",
    "section_entries",
    "section_for",
]


@dataclass(frozen=True)
class SectionInput:
    """What a section's data is read from: the store, the benchmark and its items."""

    store: Store
    benchmark: str
    items: Mapping[str, BenchmarkItem]


@dataclass(frozen=True)
class ReportSection:
    """A protocol's part of the report. ``board_rank`` orders the protocols' column groups
    in the leaderboard files (lower first, ties in registration order)."""

    collect: Callable[[SectionInput], list[Row]]
    """Its entries in the benchmark's summary (``summary.json``), under its report key."""
    render: Callable[[BenchmarkSummary], str]
    """Its HTML section of one benchmark ('' where it has no data)."""
    figures: Figures
    """Its leaderboard cells per model."""
    board_rank: int = 100


REPORT_SECTIONS: Registry[ReportSection] = Registry("report section")
"""Sections by report key; a protocol whose key has none gets :func:`generic_section`."""


def register_section(key: str, section: ReportSection) -> ReportSection:
    """Show the protocol reported under ``key`` with ``section`` (replacing any earlier one)."""
    return REPORT_SECTIONS.add(key, section, replace=True)


def section_for(protocol: JudgeProtocol) -> ReportSection:
    """The section of a protocol with a report key: the registered one, else the generic."""
    key = protocol.report_key
    registered = None if key is None else REPORT_SECTIONS.get(key)
    return registered if registered is not None else generic_section(protocol)


def section_entries(bench: BenchmarkSummary, key: str) -> list[Row]:
    """A protocol's entries in a summary (a registered key is not one the summary type names)."""
    entries: list[Row] = cast(Mapping[str, Any], bench).get(key) or []
    return entries


def generic_section(protocol: JudgeProtocol) -> ReportSection:
    """The section any protocol gets from its own fields: per judge, its ``summarise`` rows
    shown as a table of its ``cli_columns``, and its headline figure as a leaderboard column."""
    key = protocol.report_key or protocol.name

    def collect(source: SectionInput) -> list[Row]:
        return judged_entries(source.store, protocol, source.items)

    def render(bench: BenchmarkSummary) -> str:
        return protocol_section(protocol, section_entries(bench, key))

    def figures(bench: BenchmarkSummary) -> Iterator[tuple[str, Mapping[str, Cell]]]:
        return _headline_figures(protocol, section_entries(bench, key))

    return ReportSection(collect, render, figures)


def judged_entries(
    store: Store, protocol: JudgeProtocol, items: Mapping[str, BenchmarkItem]
) -> list[Row]:
    """One entry per judge with rows on ``items``: {"judge", "models": summary rows}."""
    if protocol.summarise is None:
        return []
    out = []
    for judge in judges_for(store, protocol.name):
        rows = [
            j
            for j in iter_judgments(store, judge=judge, protocol=protocol.name)
            if j.item_id in items
        ]
        models = [summary.row() for summary in protocol.summarise(rows, items).values()]
        if models:
            out.append({"judge": judge, "models": models})
    return out


def _headline_figures(
    protocol: JudgeProtocol, entries: list[Row]
) -> Iterator[tuple[str, Mapping[str, Cell]]]:
    """Per judge, the first number column of the protocol's table, named by its first
    leaderboard prefix and the judge (``brevity:<judge>``), so its decimals come from the
    protocol too."""
    headline = next(
        (c for c in protocol.cli_columns if c.digits is not None and not c.expand), None
    )
    if headline is None:
        return
    prefix = protocol.columns[0] if protocol.columns else f"{protocol.name}:"
    for entry in entries:
        for m in entry["models"]:
            yield m["model"], {f"{prefix}{entry['judge']}": Cell(m[headline.key])}


def protocol_section(protocol: JudgeProtocol, entries: list[Row]) -> str:
    """The generic section: per judge, a heading and the protocol's columns as a table."""
    return "".join(_one_judge(protocol, entry) for entry in entries)


def _one_judge(protocol: JudgeProtocol, entry: Row) -> str:
    models: list[Row] = entry["models"]
    columns = table_columns(protocol, models)
    body = []
    for m in models:
        cells = []
        for _, column, name in columns:
            if column.key == "model":
                cells.append(td(str(m["model"])))
            else:
                text = column.cell(column.value(m, name))
                cells.append(td(text, model=m["model"], column=name or column.key))
        body.append(cells)
    heading = f"{protocol.title} — judge {entry['judge']}"
    head = [title for title, _, _ in columns]
    return f"<h3>{escape(heading)}</h3>" + table(head, body, escape(protocol.name))
