"""The paper's Table 4 side by side: two AutoBench-V benchmarks of one capability that differ only
by ``--no-guidelines`` (the same examiner, images and every other stored setting), their human
alignment rates per check and difficulty level in one table, columns "with guidelines" and
"without", beside the self-check's own figures for both.

AutoBench-V's Table 4 reports people's alignment rates per level for descriptions written with
and without the guidelines, and the question-answer alignment; here every check the web app
asks is a measure (image ↔ description, description ↔ aspect, answer key), per level and over
all levels, each with its Wilson 95% interval and the answers it is over.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, TypedDict

from lvlmbench.judging.human_checks import CHECKS, AlignmentRate, alignment_rates
from lvlmbench.ratings import wilson_interval
from lvlmbench.report._common import pct
from lvlmbench.store import GenerationReport, Store, StoredBenchmark, get_benchmark, list_benchmarks

__all__ = [
    "ALL_LEVELS",
    "ConditionRate",
    "GuidelinesTable",
    "GuidelinesTableJSON",
    "SelfCheckFigures",
    "Table4Row",
    "guideline_pair",
    "guidelines_table",
]

ALL_LEVELS = "all levels"
_NOT_DEFINING = ("name", "guidelines", "concurrency")
"""Settings that do not make two benchmarks different studies (besides the guidelines)."""
_LEVEL_ORDER = {"easy": 0, "medium": 1, "hard": 2, ALL_LEVELS: 3}


def _definition(report: GenerationReport) -> tuple[str, dict[str, Any]]:
    settings = {k: v for k, v in report.settings.items() if k not in _NOT_DEFINING}
    return report.examiner or "", settings


def guideline_pair(store: Store, benchmark: str) -> tuple[str, str] | None:
    """(with guidelines, without) when ``benchmark`` has a twin that differs only by the
    guidelines; the first such twin by name if several; None otherwise."""
    row = get_benchmark(store, benchmark)
    if row is None or not isinstance(row.data, GenerationReport):
        return None
    mine = row.data
    for other in list_benchmarks(store):
        twin = other.data
        if other.name == benchmark or not isinstance(twin, GenerationReport):
            continue
        if twin.guidelines != mine.guidelines and _definition(twin) == _definition(mine):
            return (benchmark, other.name) if mine.guidelines else (other.name, benchmark)
    return None


def _with_overall(rates: list[AlignmentRate]) -> dict[tuple[str, str], AlignmentRate]:
    """Each check's rates per level, plus its rate over all levels (answers summed)."""
    out = {(r.check, r.level): r for r in rates}
    for check in {r.check for r in rates}:
        mine = [r for r in rates if r.check == check]
        out[check, ALL_LEVELS] = AlignmentRate(
            check,
            ALL_LEVELS,
            sum(r.yes for r in mine),
            sum(r.no for r in mine),
            sum(r.unsure for r in mine),
        )
    return out


@dataclass(frozen=True)
class ConditionRate:
    """People's alignment rate in one condition, % with its Wilson 95% interval."""

    rate: float
    low: float
    high: float
    n: int
    """Decided (yes or no) answers."""


@dataclass(frozen=True)
class Table4Row:
    """One measure (a check at a level, or over all levels) in both conditions."""

    check: str
    label: str
    level: str
    with_guidelines: ConditionRate | None
    """None: no decided answer there."""
    without: ConditionRate | None


@dataclass(frozen=True)
class SelfCheckFigures:
    """What the examiner's self-check found on one benchmark."""

    items: int | None
    mean_alignment: float | None
    rejection_rate: float | None


class GuidelinesTableJSON(TypedDict):
    """:meth:`GuidelinesTable.as_dict`: the report's and ``--json``'s shape."""

    with_guidelines: str
    without: str
    rows: list[dict[str, Any]]
    self_check: list[dict[str, Any]]


@dataclass(frozen=True)
class GuidelinesTable:
    """Table 4 side by side: the benchmark with guidelines, its twin without, the rows."""

    with_guidelines: str
    without: str
    rows: tuple[Table4Row, ...]
    self_check: tuple[SelfCheckFigures, SelfCheckFigures]
    """With guidelines, then without."""

    def as_dict(self) -> GuidelinesTableJSON:
        return {
            "with_guidelines": self.with_guidelines,
            "without": self.without,
            "rows": [asdict(row) for row in self.rows],
            "self_check": [asdict(figures) for figures in self.self_check],
        }


def _cell(rate: AlignmentRate | None) -> ConditionRate | None:
    if rate is None or rate.rate is None:
        return None
    ci = wilson_interval(rate.yes, rate.yes + rate.no)
    return ConditionRate(pct(rate.rate), pct(ci.low), pct(ci.high), rate.yes + rate.no)


def _self_check(row: StoredBenchmark | None) -> SelfCheckFigures:
    report = row.data if row is not None and isinstance(row.data, GenerationReport) else None
    figures = (report.self_check if report is not None else None) or {}
    mean, rejected = figures.get("mean_alignment"), figures.get("rejection_rate")
    return SelfCheckFigures(
        None if report is None else report.items,
        float(mean) if isinstance(mean, int | float) else None,
        float(rejected) if isinstance(rejected, int | float) else None,
    )


def guidelines_table(store: Store, benchmark: str) -> GuidelinesTable | None:
    """The side-by-side table for ``benchmark`` and its guideline twin (None without one)."""
    pair = guideline_pair(store, benchmark)
    if pair is None:
        return None
    with_rates, without_rates = (_with_overall(alignment_rates(store, name)) for name in pair)
    checks = list(CHECKS)
    keys = sorted(
        with_rates.keys() | without_rates.keys(),
        key=lambda k: (checks.index(k[0]) if k[0] in checks else 99, _LEVEL_ORDER.get(k[1], 4)),
    )
    rows = tuple(
        Table4Row(
            check,
            CHECKS.get(check, check),
            level,
            _cell(with_rates.get((check, level))),
            _cell(without_rates.get((check, level))),
        )
        for check, level in keys
    )
    guided, unguided = (_self_check(get_benchmark(store, name)) for name in pair)
    return GuidelinesTable(pair[0], pair[1], rows, (guided, unguided))
