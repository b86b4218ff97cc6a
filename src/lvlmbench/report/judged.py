"""The judged part of a benchmark's report: one entry in the data and one section in the page
per registered judge protocol that has a ``report_key``, in registration order.

The built-in protocols keep their dedicated collectors (:mod:`lvlmbench.report.collect`,
:mod:`lvlmbench.report.scores`, :mod:`lvlmbench.report.votes`) and renderers
(:mod:`lvlmbench.report.render_ratings`, :mod:`lvlmbench.report.render_votes`); any other
protocol gets the generic ones here: its ``summarise`` over each judge's rows, shown as a table
of its ``cli_columns`` in its number format. So registering a protocol is enough for it to
appear in the report.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from html import escape
from typing import Any, cast

from lvlmbench.judging import HUMAN, JudgeProtocol, judges_for, protocols, table_columns
from lvlmbench.registry import Registry
from lvlmbench.report._html import table, td
from lvlmbench.report.render_ratings import (
    hallucination_section,
    metrics_section,
    pairwise_section,
    touchstone_section,
)
from lvlmbench.report.render_votes import human_section
from lvlmbench.report.summary import BenchmarkSummary
from lvlmbench.store import Store, iter_judgments
from lvlmbench.types import BenchmarkItem

__all__ = [
    "judged_data",
    "judged_entries",
    "judged_figures",
    "judged_sections",
    "protocol_section",
]

_RENDERERS: Registry[Callable[[BenchmarkSummary], str]] = Registry("report section")
"""Dedicated report sections by report key; a protocol without one gets
:func:`protocol_section`, its generic table."""
for _key, _render in (
    ("pairwise", pairwise_section),
    ("metrics", metrics_section),
    ("touchstone", touchstone_section),
    ("hallucination", hallucination_section),
    (HUMAN, human_section),
):
    _RENDERERS.add(_key, _render)


def _reported() -> Iterator[tuple[str, JudgeProtocol]]:
    """(report key, protocol) once per key, in registration order."""
    seen: set[str] = set()
    for protocol in protocols():
        key = protocol.report_key
        if key is not None and key not in seen:
            seen.add(key)
            yield key, protocol


def judged_data(
    store: Store,
    items: Mapping[str, BenchmarkItem],
    builtin: Mapping[str, Callable[[], list[dict[str, Any]]]],
) -> dict[str, list[dict[str, Any]]]:
    """{report key: entries} for every reported protocol: ``builtin[key]()`` where the report
    has a dedicated collector, else :func:`judged_entries`."""
    out: dict[str, list[dict[str, Any]]] = {}
    for key, protocol in _reported():
        collect = builtin.get(key)
        out[key] = collect() if collect is not None else judged_entries(store, protocol, items)
    return out


def judged_entries(
    store: Store, protocol: JudgeProtocol, items: Mapping[str, BenchmarkItem]
) -> list[dict[str, Any]]:
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


def judged_sections(bench: BenchmarkSummary, leave_out: Collection[str] = ()) -> list[str]:
    """Every reported protocol's section of one benchmark ('' where it has no data), but those
    whose report key is in ``leave_out``."""
    out = []
    for key, protocol in _reported():
        if key in leave_out:
            continue
        render = _RENDERERS.get(key)
        if render is not None:
            out.append(render(bench))
        else:
            out.append(protocol_section(protocol, _entries(bench, key)))
    return out


def _entries(bench: BenchmarkSummary, key: str) -> list[dict[str, Any]]:
    """A registered protocol's entries: its key is not one the summary type names."""
    entries: list[dict[str, Any]] = cast(Mapping[str, Any], bench).get(key) or []
    return entries


def judged_figures(bench: BenchmarkSummary) -> Iterator[tuple[str, dict[str, Any]]]:
    """Leaderboard cells of the protocols without a dedicated collector: per judge, the first
    number column of the protocol's table, named by its first leaderboard prefix and the judge
    (``brevity:<judge>``), so its decimals come from the protocol too."""
    for key, protocol in _reported():
        if key in _RENDERERS:
            continue
        headline = next(
            (c for c in protocol.cli_columns if c.digits is not None and not c.expand), None
        )
        if headline is None:
            continue
        prefix = protocol.columns[0] if protocol.columns else f"{protocol.name}:"
        for entry in _entries(bench, key):
            for m in entry["models"]:
                yield m["model"], {f"{prefix}{entry['judge']}": m[headline.key]}


def protocol_section(protocol: JudgeProtocol, entries: list[dict[str, Any]]) -> str:
    """The generic section: per judge, a heading and the protocol's columns as a table."""
    return "".join(_one_judge(protocol, entry) for entry in entries)


def _one_judge(protocol: JudgeProtocol, entry: dict[str, Any]) -> str:
    models: list[dict[str, Any]] = entry["models"]
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
