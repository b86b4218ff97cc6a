"""The report's data as types: what :func:`~lvlmbench.report.collect` hands the renderers, the
leaderboard files, ``summary.json`` and the web app.

The summary stays JSON (``summary.json`` and the web API serve it as it is), so its shape is a
TypedDict: every section a renderer or the web app reads is a named, typed key that mypy checks
at each reader, while the value is still the plain dict the files and the API were built from.
Rows inside a section are JSON objects whose columns the section's own table defines.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from lvlmbench.choice.vlmeval_scores import CircularRowJSON, MMERowJSON

__all__ = ["AccuracyFacet", "BenchmarkSummary", "ReportData", "Row", "names_of"]

Row = dict[str, Any]
"""One table row as JSON (the section's columns)."""

AccuracyFacet = Literal["capability", "difficulty", "fine_aspect"]
"""The facets accuracy is broken down by (each a section of :class:`BenchmarkSummary`)."""


class BenchmarkSummary(TypedDict):
    """Every figure of one benchmark; sections without data are empty lists or None."""

    name: str
    kind: str | None
    items: int
    capability_note: str | None
    """How a free-text capability was mapped to built-in aspects (procedural examiner)."""
    models: list[str]
    overall: list[Row]
    circular: list[CircularRowJSON]
    """CircularEval rows (VLMEvalKit imports only)."""
    mme: list[MMERowJSON]
    """MME rows (VLMEvalKit imports only)."""
    capability: list[Row]
    difficulty: list[Row]
    spread: list[Row]
    fine_aspect: list[Row]
    self_check: dict[str, Any] | None
    """The AutoBench-V generation report's self-check figures."""
    key_check: dict[str, Any] | None
    """Its key-check verdicts (verified, mismatched, not checkable, re-asks)."""
    diversity: dict[str, Any] | None
    answer_letters: dict[str, int] | None
    pairwise: list[Row]
    metrics: list[Row]
    touchstone: list[Row]
    hallucination: list[Row]
    position_bias: list[Row]
    leakage: dict[str, Any] | None
    ab_experiments: dict[str, Any]
    display: NotRequired[dict[str, str]]
    """Every player's identity → the short name the tables and charts show (unique within
    the benchmark; see :func:`lvlmbench.report.leaderboard.board_names`)."""
    human: NotRequired[list[Row]]
    """People's votes rated and compared with the judges (present only where there are votes;
    see :mod:`lvlmbench.report.votes`)."""


class ReportData(TypedDict):
    """The report's data: one summary per benchmark shown, and which store they came from."""

    benchmarks: list[BenchmarkSummary]
    store: NotRequired[str]
    """Absent where one summary is shown on its own (the web app's leaderboard page)."""


def names_of(bench: BenchmarkSummary) -> dict[str, str]:
    """The summary's display names by identity (empty where it has none, so identities are
    shown): for the renderers the leaderboard module cannot be imported by (it imports them
    through the judge protocols' sections)."""
    return bench.get("display") or {}
