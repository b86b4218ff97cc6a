"""``leaderboard.csv`` and ``leaderboard.md`` beside the report, from the same collected data.

One row per benchmark × model (wide, so ``pandas.read_csv`` gives a usable table at once).
Every figure ``X`` with an interval comes as three columns ``X``, ``X_low``, ``X_high``:

- ``accuracy`` (choice items, %, 95% over items: each item's answers averaged first, clustered
  by the items' shared source) with ``items`` (the interval's n), ``clusters`` and ``cluster``
  (how many clusters, and what one is: "fine aspect", "item"...), ``estimator`` (clustered-t,
  wilson...), ``epochs`` (answers per item) and the answer counts ``correct``, ``answered``,
  ``unparseable``, ``failed``; ``rank`` with ``rank_low``/``rank_high`` (the ranks the model
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

Cells a benchmark has no figure for are empty. This is the one ``leaderboard.csv`` schema; the
demo's long per-group accuracy table is ``accuracy_by_group.csv`` (see
:mod:`lvlmbench.autobench.leaderboard`). The Markdown file has one table per benchmark
with only that benchmark's columns and each interval folded into its cell: ``62.5 [50.1–73.2]``
(:func:`lvlmbench.stats.format_interval`), a rank as its range: ``1–2``.
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

from lvlmbench._csv import write_csv
from lvlmbench.judging import HUMAN, column_digits
from lvlmbench.report._common import LEVELS
from lvlmbench.report.judged import judged_figures
from lvlmbench.report.summary import AccuracyFacet, BenchmarkSummary, ReportData
from lvlmbench.stats import format_interval, format_ranks

__all__ = ["leaderboard_markdown", "leaderboard_rows", "write_leaderboards"]

_COUNTS = (
    *("items", "clusters", "cluster", "estimator"),
    *("epochs", "correct", "answered", "unparseable", "failed"),
)


def _with_ci(name: str, value: Any, low: Any, high: Any) -> dict[str, Any]:
    return {name: value, f"{name}_low": low, f"{name}_high": high}


_FACET_COLUMNS: tuple[tuple[AccuracyFacet, str], ...] = (
    ("difficulty", "level"),
    ("capability", "capability"),
)
"""Accuracy facets in the leaderboard, with their columns' prefix."""


def _accuracy(bench: BenchmarkSummary) -> Iterator[tuple[str, dict[str, Any]]]:
    for r in bench["overall"]:
        yield (
            r["model"],
            {
                **_with_ci("accuracy", r["accuracy"], r["ci_low"], r["ci_high"]),
                **{k: r[k] for k in _COUNTS},
                **(
                    _with_ci("rank", r["rank"], r["rank_low"], r["rank_high"])
                    if "rank" in r
                    else {}
                ),
            },
        )
    for facet, prefix in _FACET_COLUMNS:
        for r in _by_group(bench[facet], facet):
            name = f"{prefix}:{r[facet]}"
            yield r["model"], _with_ci(name, r["accuracy"], r["ci_low"], r["ci_high"])


def _rank(row: dict[str, Any]) -> dict[str, Any]:
    """The rank columns of an overall row that has a rank interval (none otherwise)."""
    if "rank" not in row:
        return {}
    return _with_ci("rank", row["rank"], row["rank_low"], row["rank_high"])


def _by_group(rows: list[dict[str, Any]], facet: str) -> list[dict[str, Any]]:
    """Levels easy → hard (so the columns read in order), any other group by name."""

    def order(row: dict[str, Any]) -> tuple[int, str]:
        group = str(row[facet])
        return (LEVELS.index(group) if group in LEVELS else len(LEVELS), group)

    return sorted(rows, key=order)


def _ratings(bench: BenchmarkSummary) -> Iterator[tuple[str, dict[str, Any]]]:
    for r in bench["metrics"]:
        yield r["model"], _with_ci(f"metric:{r['metric']}", r["mean"], r["ci_low"], r["ci_high"])
    # People's votes rate like a judge named "human" (one match per vote: nothing combined).
    for rep in [*bench["pairwise"], *(entry["ratings"] for entry in bench.get("human", []))]:
        judge = rep["judge"]
        # Bradley-Terry first: the headline rating, as in the report and `lvlmbench rate`.
        for model, b in (rep.get("bradley_terry") or {}).items():
            yield model, _with_ci(f"bt:{judge}", b["rating"], b["low"], b["high"])
        style = (rep.get("style_control") or {}).get("ratings") or {}
        for model, b in style.items():
            yield model, _with_ci(f"bt_style:{judge}", b["rating"], b["low"], b["high"])
        for model, w in (rep.get("win_rate_vs_reference") or {}).items():
            scaled = (100 * w["rate"], 100 * w["low"], 100 * w["high"])
            yield model, _with_ci(f"win_rate:{judge}", *scaled)
        elo = rep.get("online_elo") or {}
        for model, in_order in (elo.get("in_order") or {}).items():
            combine = {} if rep["protocol"] == HUMAN else {f"combine:{judge}": rep.get("combine")}
            yield (
                model,
                {
                    f"online_elo_in_order:{judge}": round(in_order, 1),
                    f"online_elo_order:{judge}": elo["order"],
                    f"online_elo_shuffled_mean:{judge}": round(elo["shuffled_mean"][model], 1),
                    **combine,
                },
            )


def _judged(bench: BenchmarkSummary) -> Iterator[tuple[str, dict[str, Any]]]:
    for entry in bench.get("touchstone") or []:
        name = f"touchstone:{entry['label']}"
        for m in entry["models"]:
            yield (
                m["model"],
                {
                    **_with_ci(name, m["score"], m["ci_low"], m["ci_high"]),
                    f"touchstone_rel:{entry['label']}": m["relative"],
                },
            )
            for ability, g in m["abilities"].items():
                yield (
                    m["model"],
                    _with_ci(f"{name}:{ability}", g["score"], g["ci_low"], g["ci_high"]),
                )
    for entry in bench.get("hallucination") or []:
        name = f"hallucination:{entry['judge']}"
        for m in entry["models"]:
            yield m["model"], _with_ci(name, m["mean"], m["ci_low"], m["ci_high"])


def _rounded(value: Any) -> Any:
    """Floats to 4 significant decimals: the CSV is for reading, bootstraps are not exact."""
    return round(value, 4) if isinstance(value, float) else value


def leaderboard_rows(data: ReportData) -> list[dict[str, Any]]:
    """One dict per benchmark × model from :func:`~lvlmbench.report.collect` data."""
    out: list[dict[str, Any]] = []
    for bench in data["benchmarks"]:
        rows: dict[str, dict[str, Any]] = {}
        for source in _SOURCES:
            for model, figures in source(bench):
                row = rows.setdefault(
                    model, {"benchmark": bench["name"], "kind": bench["kind"], "model": model}
                )
                row.update({k: _rounded(v) for k, v in figures.items()})
        # Best first where there is an accuracy; models without one keep name order after.
        out += sorted(rows.values(), key=lambda r: (-r.get("accuracy", -1.0), r["model"]))
    return out


_SOURCES = (_accuracy, _ratings, _judged, judged_figures)


def _columns(data: ReportData) -> list[str]:
    """Kind of figure first, benchmark second: accuracy columns stay together across benchmarks."""
    columns = ["benchmark", "kind", "model"]
    for source in _SOURCES:
        for bench in data["benchmarks"]:
            columns += [k for _, figures in source(bench) for k in figures]
    return list(dict.fromkeys(columns))


def _cell(row: dict[str, Any], column: str) -> str:
    value = row.get(column)
    if value is None:
        return ""
    # The protocol owning the column says how many decimals tell its models apart.
    digits = column_digits(column)
    text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    low, high = row.get(f"{column}_low"), row.get(f"{column}_high")
    if column == "rank" and isinstance(low, int) and isinstance(high, int):
        return _md(format_ranks(low, high))
    if isinstance(low, float) and isinstance(high, float):
        text += f" [{format_interval(low, high, digits=digits)}]"
    return _md(text)


def _md(text: str) -> str:
    """Inert in a Markdown table: no pipes, no line breaks, no raw HTML from a model's name."""
    return escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def leaderboard_markdown(data: ReportData) -> str:
    """One Markdown table per benchmark, intervals folded into their cells."""
    rows = leaderboard_rows(data)
    parts = []
    for name in dict.fromkeys(r["benchmark"] for r in rows):
        mine = [r for r in rows if r["benchmark"] == name]
        columns = [
            c
            for c in _columns(data)
            if c not in ("benchmark", "kind")
            and not c.endswith(("_low", "_high"))
            and any(r.get(c) is not None for r in mine)
        ]
        lines = [
            f"## {_md(name)}",
            "",
            "| " + " | ".join(_md(c) for c in columns) + " |",
            "|" + "---|" * len(columns),
        ]
        lines += ["| " + " | ".join(_cell(r, c) for c in columns) + " |" for r in mine]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts) if parts else "(no results)\n"


def write_leaderboards(data: ReportData, out_dir: Path) -> tuple[Path, Path]:
    """Write ``leaderboard.csv`` and ``leaderboard.md`` into ``out_dir``; return both paths."""
    rows = leaderboard_rows(data)
    csv_path, md_path = out_dir / "leaderboard.csv", out_dir / "leaderboard.md"
    write_csv(csv_path, _columns(data), rows)
    md_path.write_text(leaderboard_markdown(data), encoding="utf-8")
    return csv_path, md_path
