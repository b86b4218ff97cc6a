"""Report sections of the design experiments: topic diversity, the aspect grid, per-level
leakage and ranks (:mod:`lvlmbench.report.experiments_design` collects them)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from lvlmbench.report._html import fmt, human_label, table, td
from lvlmbench.report.leaderboard import board_names
from lvlmbench.report.summary import BenchmarkSummary
from lvlmbench.report.svg import Dot, dot_interval_chart, rank_chart

__all__ = ["design_experiment_sections"]

_FIGURES = ("distinct_topics", "topic_entropy", "top_topic_share", "keyword_uniqueness")


def _mean_ci(value: dict[str, Any]) -> str:
    return f"{value['mean']:.2f} [{value['low']:.2f}, {value['high']:.2f}]"


def diversity_section(data: dict[str, Any] | None) -> str:
    """Per-group diversity figures with and without the semantic graph."""
    if not data:
        return ""
    summary = data["summary"]
    conditions = [c for c in ("graph", "no graph", "difference") if c in summary]
    body = [
        [td(human_label(name))]
        + [td(_mean_ci(summary[c][name]), diversity=c, figure=name) for c in conditions]
        for name in _FIGURES
    ]
    head = ["figure (mean per group, 95% CI)"] + [
        "with − without" if c == "difference" else c for c in conditions
    ]
    s = data["settings"]
    note = (
        f'<p class="note">{len(data["groups"])} groups (fine aspect × level × condition) of '
        f"{s['count']} descriptions, seed {s['seed']}, examiner {s.get('examiner', '?')}, "
        f"f(i) = {s.get('exclude', 'i')}, exclusions {s['bans']} (the f(i) highest-degree "
        "nodes after each round). Intervals: percentile bootstrap over groups; the difference "
        "is paired per group (<code>lvlmbench experiment diversity</code>).</p>"
    )
    return "<h3>Diversity with vs without the semantic graph</h3>" + table(head, body, "div") + note


def aspects_section(data: dict[str, Any] | None) -> str:
    """Aspect diversity over the (n, m) grid."""
    if not data:
        return ""
    body = [
        [
            td(str(r["n"])),
            td(str(r["m"])),
            td(str(r["fine"])),
            td(fmt(r["diversity"], 3), aspects=f"{r['n']}x{r['m']}"),
            td(str(r["near_duplicates"])),
            td(str(r["problems"])),
        ]
        for r in data["grid"]
    ]
    head = ["n", "m", "fine aspects", "diversity", "near-duplicates", "shortfalls"]
    note = (
        '<p class="note">Diversity = 1 − mean pairwise Jaccard similarity of the fine aspects\' '
        f"words (name and guideline); capability {data['capability']}, examiner "
        f"{data['examiner']} (<code>lvlmbench experiment aspects</code>).</p>"
    )
    return "<h3>Aspect diversity vs (n, m)</h3>" + table(head, body, "aspects") + note


def _cell(score: dict[str, Any] | None, **data: str) -> str:
    if score is None:
        return td("-", **data)
    return td(f"{score['accuracy']:.1f} [{score['low']:.1f}, {score['high']:.1f}]", **data)


def leakage_levels_section(rows: list[dict[str, Any]]) -> str:
    """Description-only accuracy per level and model, and its spread across models."""
    if not rows:
        return ""
    models = sorted({m for r in rows for m in r["description_only"]})
    body = [
        [td(r["level"])]
        + [_cell(r["description_only"].get(m), level=r["level"], model=m) for m in models]
        + [td(fmt(r["std"]), level=r["level"], figure="std"), td(fmt(r["range"]))]
        for r in rows
    ]
    head = ["level", *(f"{m} %" for m in models), "std across models", "range"]
    dots = [
        Dot(r["level"], m, s["accuracy"], s["low"], s["high"])
        for r in rows
        for m, s in r["description_only"].items()
    ]
    chart = dot_interval_chart(dots, "description-only accuracy % per level (95% CI)")
    note = (
        '<p class="note">Answered from the description, without the image. A small spread '
        "across models at every level means the descriptions favour no model; the paper "
        "reports 0.4 points (easy) to 2.4 points (hard).</p>"
    )
    return "<h3>Answer leakage per level</h3>" + table(head, body, "leak-level") + chart + note


def ranks_section(rows: list[dict[str, Any]], names: Mapping[str, str] | None = None) -> str:
    """Each model's rank at each level, as a table and a bump chart; ``names``: the models'
    display names (identities in full where None)."""
    if not rows or len({r["model"] for r in rows}) < 2:
        return ""
    levels = list(dict.fromkeys(r["level"] for r in rows))
    models = sorted({r["model"] for r in rows})
    by = {(r["model"], r["level"]): r for r in rows}
    shown = names or {}
    body = [
        [td(shown.get(m, m))]
        + [
            td(f"#{by[m, lv]['rank']} ({by[m, lv]['accuracy']:.1f})", model=m, rank=lv)
            if (m, lv) in by
            else td("-")
            for lv in levels
        ]
        for m in models
    ]
    series = {
        shown.get(m, m): [by[m, lv]["rank"] if (m, lv) in by else None for lv in levels]
        for m in models
    }
    chart = rank_chart(levels, series, "rank per difficulty level (1 = best)")
    note = (
        '<p class="note">Only models that answered every item of a level are ranked there; '
        "one that answered part of it shows “-”.</p>"
    )
    return "<h3>Ranks per level</h3>" + table(["model", *levels], body, "ranks") + note + chart


def alignment_section(data: dict[str, Any] | None) -> str:
    """People's alignment rates per check and level with Wilson intervals (Table 4)."""
    if not data:
        return ""
    body = [
        [
            td(r["label"]),
            td(r["level"]),
            td(str(r["yes"])),
            td(str(r["no"])),
            td(str(r["unsure"])),
            td(
                "-" if r["rate"] is None else f"{r['rate']:.1f} [{r['low']:.1f}, {r['high']:.1f}]",
                check=r["check"],
                level=r["level"],
            ),
        ]
        for r in data["rows"]
    ]
    head = ["check", "level", "yes", "no", "unsure", "alignment rate % (95% CI)"]
    dots = [
        Dot(r["level"], r["check"], r["rate"], r["low"], r["high"])
        for r in data["rows"]
        if r["rate"] is not None
    ]
    chart = dot_interval_chart(dots, "alignment rate % per level (Wilson 95%)") if dots else ""
    note = (
        f'<p class="note">Condition: <b data-condition="{escape(data["condition"])}">'
        f"{escape(data['condition'])}</b> (a benchmark generated with "
        "<code>--no-guidelines</code> is the ablation). Rate = yes / (yes + no) over every "
        "person's answers on the web app's \"check\" page; unsure answers decide nothing.</p>"
    )
    parts = [
        note,
        table(head, body, "align"),
        chart,
        _agreement(data.get("agreement") or []),
        _self_check(data.get("self_check")),
    ]
    return "<h3>Human evaluation: alignment rates</h3>" + "".join(parts)


def _agreement(rows: list[dict[str, Any]]) -> str:
    """Agreement between annotators per check ('' without any check)."""
    if not rows:
        return ""
    body = [
        [
            td(r["label"]),
            td(r["method"]),
            td(r["reason"] or "-" if r["value"] is None else f"{r['value']:.3f}", agree=r["check"]),
            td(str(r["items"])),
            td(str(r["annotators"])),
        ]
        for r in rows
    ]
    head = ["check", "statistic", "agreement", "items", "annotators"]
    note = (
        '<p class="note">Agreement between annotators beyond chance (1: always agree, 0: as '
        "by chance) on the items two or more people answered yes or no (unsure answers are "
        "left out): Fleiss' κ where every such item has the same number of answers, "
        "Krippendorff's α (nominal) where the numbers differ.</p>"
    )
    return note + table(head, body, "annotator-agreement")


def _pct_ci(value: dict[str, Any] | None) -> str:
    if value is None:
        return "-"
    low, high = 100 * value["low"], 100 * value["high"]
    return f"{100 * value['estimate']:.1f} [{low:.1f}, {high:.1f}]"


def _self_check(figure: dict[str, Any] | None) -> str:
    """The self-check's mean alignment on every item, people's image checks on some, and
    PPI++ (the self-check corrected by them), clustered by fine aspect ('' without checks)."""
    if figure is None:
        return ""
    corrected = figure["corrected"]
    cluster = (corrected or figure["judge_only"] or {}).get("cluster", "item")
    body = [
        [
            td(str(figure["n_items"])),
            td(_pct_ci(figure["judge_only"])),
            td(str(figure["n_labels"])),
            td(_pct_ci(figure["human_only"])),
            td(figure["refused"] or _pct_ci(corrected), ppi="self-check"),
            td(fmt(figure["lambda"], 2)),
        ]
    ]
    head = ["items", "self-check %", "checked", "people %", "PPI++ %", "lambda"]
    note = (
        '<p class="note">Does the image match its description? The self-check\'s alignment '
        "(the share of its checks an accepted image passed) on every item, people's answers "
        "(yes 1, no 0, per item averaged) on the items they checked, and PPI++: the self-check "
        "corrected by the gap on the checked items (valid when they are a random sample). 95% "
        f"intervals, cluster-robust by {escape(cluster)}, clipped to 0-100%.</p>"
    )
    return note + table(head, body, "ppi")


def _rate(cell: dict[str, Any] | None, **data: str) -> str:
    if cell is None:
        return td("-", **data)
    return td(f"{cell['rate']:.1f} [{cell['low']:.1f}, {cell['high']:.1f}] (n={cell['n']})", **data)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def guidelines_section(data: dict[str, Any] | None) -> str:
    """The paper's Table 4 side by side: people's alignment rates per check and level for the
    benchmark built with guidelines and its twin built without ('' without a twin)."""
    if not data:
        return ""
    body = [
        [
            td(r["label"]),
            td(r["level"]),
            _rate(r["with_guidelines"], guided="with", check=r["check"], level=r["level"]),
            _rate(r["without"], guided="without", check=r["check"], level=r["level"]),
        ]
        for r in data["rows"]
    ]
    mine, theirs = data["self_check"]
    for label, key in (("self-check mean alignment", "mean_alignment"),
                       ("self-check rejection rate", "rejection_rate")):  # fmt: skip
        body.append([td(label), td("all levels"), td(_share(mine[key])), td(_share(theirs[key]))])
    body.append([td("items"), td("all levels"), td(str(mine["items"])), td(str(theirs["items"]))])
    head = [
        "measure",
        "level",
        f"with guidelines ({data['with_guidelines']}) %",
        f"without ({data['without']}) %",
    ]
    note = (
        '<p class="note">AutoBench-V\'s Table 4: the two benchmarks differ only by '
        "<code>--no-guidelines</code> (same capability, examiner, images and settings). "
        "People's alignment rate = yes / (yes + no) on the web app's check page, Wilson 95% "
        "intervals, n decided answers; the self-check rows are the examiner's own figures.</p>"
    )
    return "<h3>With and without guidelines (Table 4)</h3>" + note + table(head, body, "table4")


def design_experiment_sections(bench: BenchmarkSummary) -> str:
    """Every section whose experiment the store holds ('' when none)."""
    data = bench.get("ab_experiments") or {}
    return "".join(
        [
            ranks_section(data.get("ranks") or [], board_names(bench)),
            leakage_levels_section(data.get("leakage_levels") or []),
            diversity_section(data.get("diversity")),
            aspects_section(data.get("aspects")),
            alignment_section(data.get("alignment")),
            guidelines_section(data.get("guidelines")),
        ]
    )
