"""Sections of the AutoBench-V experiments: position bias and answer leakage (shown only when
the store holds their runs), and the spread of models per difficulty level."""

from __future__ import annotations

import math
from typing import Any

from lvlmbench.report._html import fmt, table, td
from lvlmbench.report.leaderboard import board_names
from lvlmbench.report.render_board import leaderboard_order
from lvlmbench.report.summary import BenchmarkSummary
from lvlmbench.report.svg import bar_chart, range_chart
from lvlmbench.stats import format_interval

__all__ = ["leakage_section", "position_bias_section", "spread_section"]


def spread_section(bench: BenchmarkSummary) -> str:
    """Per level, the lowest and highest model accuracy and how far apart the models are."""
    spread = bench.get("spread") or []
    if not spread or max(s["models"] for s in spread) < 2:
        return ""  # one model has no spread to show
    names = board_names(bench)
    body = [
        [
            td(s["difficulty"]),
            td(str(s["models"])),
            td(fmt(s["min"]), spread=s["difficulty"], figure="min"),
            td(fmt(s["max"]), spread=s["difficulty"], figure="max"),
            td(fmt(s["range"]), spread=s["difficulty"], figure="range"),
            td(fmt(s["std"]), spread=s["difficulty"], figure="std"),
            td(f"{names.get(s['lowest'], s['lowest'])} → {names.get(s['highest'], s['highest'])}"),
        ]
        for s in spread
    ]
    head = ["level", "models", "lowest %", "highest %", "range", "std", "lowest → highest"]
    models = leaderboard_order(bench, bench["models"])
    # Series in the leaderboard's order so that colours match the other charts.
    values = {
        s["difficulty"]: {names.get(m, m): s["accuracy"][m] for m in models if m in s["accuracy"]}
        for s in spread
    }
    chance = {r["difficulty"]: r["chance"] for r in bench["difficulty"] if r.get("chance")}
    title = "spread of model accuracy % per level (range: highest − lowest; dashed: chance)"
    chart = range_chart(values, title, chance=chance)
    note = (
        '<p class="note">Over every model with answers, baselines included: an upper bound '
        "such as <code>baseline/oracle</code> widens the range at every level; the standard "
        "deviation shows how the rest spread out.</p>"
    )
    return "<h3>Model spread by level</h3>" + table(head, body, "spread") + chart + note


def _bias_row(rows: list[dict[str, Any]], model: str, target: str) -> dict[str, Any] | None:
    return next((r for r in rows if r["model"] == model and r["target"] == target), None)


def _bias_cells(row: dict[str, Any] | None, model: str, target: str) -> list[str]:
    if row is None:
        return [td("-"), td("-"), td("-")]
    interval = format_interval(row["ci_low"], row["ci_high"], digits=1, signed=True)
    return [
        td(fmt(row["accuracy"]), model=model, keys=target),
        td(f"{row['bias_rate']:+.1f}", model=model, bias=target),
        td(interval, model=model, bias_ci=target),
    ]


def position_bias_section(bench: BenchmarkSummary) -> str:
    """Accuracy with every key at one letter against evenly spread keys, and the bias rate
    with its interval, on multiple-choice items; one table per seed of re-keyed copies."""
    rows = bench.get("position_bias") or []
    if not rows:
        return ""
    seeds = sorted({r.get("seed", 0) for r in rows})
    parts = []
    for seed in seeds:
        chosen = [r for r in rows if r.get("seed", 0) == seed]
        parts.append(_bias_table(chosen, f" (seed {seed})" if len(seeds) > 1 else ""))
    note = (
        '<p class="note">Re-keyed copies of this benchmark: every multiple-choice key moved to '
        "one letter, or spread evenly (<code>lvlmbench experiment position-bias</code>). Only "
        "multiple-choice items count (true/false items are the same in every copy); n is their "
        "number; the interval is a 95% paired bootstrap over items.</p>"
    )
    return "<h3>Position bias</h3>" + note + "".join(parts)


def _bias_table(rows: list[dict[str, Any]], suffix: str) -> str:
    models = list(dict.fromkeys(r["model"] for r in rows))
    targets = list(dict.fromkeys(r["target"] for r in rows))
    body = []
    for m in models:
        first = next(r for r in rows if r["model"] == m)
        cells = [
            td(m),
            td(str(first["n"]), model=m, n="mc"),
            td(fmt(first["even"]), model=m, keys="even"),
        ]
        for t in targets:
            cells += _bias_cells(_bias_row(rows, m, t), m, t)
        body.append(cells)
    head = ["model", "n (mc)", "even %"] + [
        h for t in targets for h in (f"keys at {t} %", f"bias {t} %", f"95% CI {t}")
    ]
    values = {(r["model"], f"keys at {r['target']}"): r["bias_rate"] for r in rows}
    # A symmetric axis in whole tens, so that the ticks fall on round numbers.
    reach = 10.0 * math.ceil(max([abs(v) for v in values.values()] + [10.0]) * 1.1 / 10)
    chart = bar_chart(
        models,
        [f"keys at {t}" for t in targets],
        values,
        f"bias rate % = (accuracy with keys at X − even) / even{suffix}",
        -reach,
        reach,
    )
    return table(head, body, "bias") + chart


def leakage_section(bench: BenchmarkSummary) -> str:
    """Accuracy with the image, from the description only and from the question only."""
    leak = bench.get("leakage")
    if not leak:
        return ""
    figures = leak["figures"]
    conditions = [("with_image", "with image"), ("description_only", "description only")]
    if any(f["question_only"] is not None for f in figures):
        conditions.append(("question_only", "question only"))
    body = [
        [td(f["model"])]
        + [td(fmt(f[key]), model=f["model"], leakage=key) for key, _ in conditions]
        + [td(f"{f['image_adds']:+.1f}", model=f["model"], leakage="image_adds")]
        for f in figures
    ]
    head = ["model"] + [f"{label} %" for _, label in conditions] + ["image adds (points)"]
    values = {
        (f["model"], label): f[key]
        for f in figures
        for key, label in conditions
        if f[key] is not None
    }
    models = [f["model"] for f in figures]
    chance = next((r["chance"] for r in bench["overall"] if r.get("chance") is not None), None)
    # The legend names the dashed chance line; the title stays as other tools look it up.
    chart = bar_chart(
        models, [label for _, label in conditions], values, "accuracy % by input", chance=chance
    )
    std = leak["description_only_std"]
    note = (
        '<p class="note">std of description-only accuracy across models: '
        f'<span data-figure="description_only_std">{std:.1f}</span> points (near zero: the '
        "description gives no examiner-specific advantage).</p>"
    )
    return "<h3>Answer leakage</h3>" + table(head, body, "leak") + chart + note
