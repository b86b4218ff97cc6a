"""The judged part of a benchmark's report: one entry in the data, one section in the page and
one group of leaderboard columns per registered judge protocol that has a ``report_key``, in
registration order, each through :func:`~lvlmbench.report.sections.section_for` (the section
registered for its key, else the generic one). Built-in and new protocols alike: registering
a protocol is enough for it to appear in the report.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from lvlmbench.judging import JudgeProtocol, protocols
from lvlmbench.report import builtin_sections  # noqa: F401  (registers the built-in sections)
from lvlmbench.report.board_cells import Figures
from lvlmbench.report.sections import ReportSection, SectionInput, section_for
from lvlmbench.report.summary import BenchmarkSummary, Row

__all__ = ["board_figures", "judged_data", "judged_sections"]


def _reported() -> Iterator[tuple[str, JudgeProtocol]]:
    """(report key, protocol) once per key, in registration order."""
    seen: set[str] = set()
    for protocol in protocols():
        key = protocol.report_key
        if key is not None and key not in seen:
            seen.add(key)
            yield key, protocol


def _sections() -> Iterator[tuple[str, ReportSection]]:
    for key, protocol in _reported():
        yield key, section_for(protocol)


def judged_data(source: SectionInput) -> dict[str, list[Row]]:
    """{report key: entries} for every reported protocol, from its section's ``collect``."""
    return {key: section.collect(source) for key, section in _sections()}


def judged_sections(bench: BenchmarkSummary, leave_out: Collection[str] = ()) -> list[str]:
    """Every reported protocol's section of one benchmark ('' where it has no data), but those
    whose report key is in ``leave_out``."""
    return [section.render(bench) for key, section in _sections() if key not in leave_out]


def board_figures() -> list[Figures]:
    """The reported protocols' leaderboard cell sources, in their sections' board order."""
    ranked = sorted(_sections(), key=lambda pair: pair[1].board_rank)  # stable: ties keep order
    return [section.figures for _, section in ranked]
