"""TouchStone score-judge and hallucination-judge sections, and the model spread by level: the
numbers in the HTML and summary.json equal the judging functions' and the store's, worked out
by hand from the rows conftest stores."""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

import pytest
from report.cells import cell, section
from report.conftest import (
    AUTOBENCH,
    HALLUCINATION_JUDGE,
    OPEN,
    SCORE_JUDGE,
    SCORE_REFERENCE,
    Built,
)

from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.judging import JudgeProtocol, register, unregister
from lvlmbench.judging.hallucination import hallucination_report
from lvlmbench.judging.score import score_report
from lvlmbench.report import collect, leaderboard_markdown, leaderboard_rows, render_benchmark
from lvlmbench.report.board_cells import interval_cell
from lvlmbench.report.sections import REPORT_SECTIONS, ReportSection, register_section
from lvlmbench.store import iter_items, iter_judgments


def _summary(built: Built, name: str) -> dict[str, Any]:
    data = json.loads(built.summary_path.read_text(encoding="utf-8"))
    bench: dict[str, Any] = next(b for b in data["benchmarks"] if b["name"] == name)
    return bench


def test_touchstone_cells_equal_score_report(built: Built) -> None:
    html = section(built.html, OPEN)
    assert f"<h3>TouchStone scores — judge {SCORE_JUDGE}</h3>" in html
    items = {item.id: item for item in iter_items(built.store, OPEN)}
    rows = iter_judgments(built.store, judge=SCORE_JUDGE, protocol="score")
    expected = score_report(rows, SCORE_REFERENCE, items)
    assert set(expected) == {"baseline/oracle", "baseline/random"}
    for model, score in expected.items():
        overall = cell(html, model=model, judge=SCORE_JUDGE, ability="overall")
        assert overall == f"{score.overall.x100:.1f}"
        assert len(score.abilities) == 4  # describe, count, caption, story
        for ability, group in score.abilities.items():
            assert cell(html, model=model, ability=ability) == f"{group.x100:.1f}"
    # By hand: the oracle scores 8 + i%3 shown first and one less shown second, so its item
    # mean is 7.5 + i%3; over i = 0..15 that is 7.5 + 15/16. The reference always gets 7.
    oracle = expected["baseline/oracle"].overall
    assert oracle.x100 == pytest.approx(843.75) and oracle.reference_x100 == 700.0
    assert cell(html, model="baseline/oracle", judge=SCORE_JUDGE, ability="overall") == "843.8"
    random = expected["baseline/random"]
    assert (random.overall.items, random.unscored) == (15, 1)  # item 5: second order unparseable


def test_touchstone_intervals_are_over_the_per_item_means(built: Built) -> None:
    entry = _summary(built, OPEN)["touchstone"][0]
    assert (entry["judge"], entry["reference"]) == (SCORE_JUDGE, SCORE_REFERENCE)
    oracle = next(m for m in entry["models"] if m["model"] == "baseline/oracle")
    # By hand: item scores ×100 are 750, 850, 950 for i%3 = 0, 1, 2 over i = 0..15 (6, 5, 5
    # items), mean 843.75; Σ(y − ȳ)² = 6·93.75² + 5·6.25² + 5·106.25² = 109375. Each question
    # is its own cluster: var = 16/15 · 109375 / 16² = 455.729, se = 21.3478, t(0.975, 15) =
    # 2.131450, half = 45.5018 → 798.248 – 889.252 (main's percentile bootstrap was narrower,
    # z-like and without the n/(n−1) correction).
    assert (oracle["ci_low"], oracle["ci_high"]) == pytest.approx((798.248, 889.252), abs=1e-3)
    assert (oracle["estimator"], oracle["cluster"], oracle["clusters"]) == (
        "clustered-t",
        "item",
        16,
    )
    assert oracle["ci_low"] < oracle["score"] < oracle["ci_high"]
    assert oracle["relative"] == pytest.approx(100 * 8.4375 / 7)
    random = next(m for m in entry["models"] if m["model"] == "baseline/random")
    assert (random["items"], random["unscored"]) == (15, 1)
    html = section(built.html, OPEN)
    assert f"<td>{oracle['ci_low']:.1f}–{oracle['ci_high']:.1f}</td>" in html


def test_hallucination_cells_equal_hallucination_report(built: Built) -> None:
    html = section(built.html, OPEN)
    assert f"<h3>Hallucination — judge {HALLUCINATION_JUDGE}</h3>" in html
    ids = {item.id for item in iter_items(built.store, OPEN)}
    rows = iter_judgments(built.store, judge=HALLUCINATION_JUDGE, protocol="hallucination")
    expected = hallucination_report(rows, ids)
    for model, score in expected.items():
        assert score.mean is not None
        assert cell(html, model=model, hallucination=HALLUCINATION_JUDGE) == f"{score.mean:.2f}"
    # By hand: the oracle is rated i%2 (mean 0.5); the random one's item 3 errored.
    assert expected["baseline/oracle"].mean == 0.5
    assert (expected["baseline/random"].rated, expected["baseline/random"].unscored) == (15, 1)
    summary = _summary(built, OPEN)["hallucination"][0]["models"]
    oracle = next(m for m in summary if m["model"] == "baseline/oracle")
    # By hand: scores 0, 1, 0, 1, ... (mean 0.5, Σ(y − ȳ)² = 4) on a 0-10 scale, so never
    # Wilson: t over 16 items, se = √(16/15 · 4 / 256) = 0.129099, half = 2.131450 · se =
    # 0.275169 → 0.224831 – 0.775169.
    assert (oracle["ci_low"], oracle["ci_high"]) == pytest.approx((0.224831, 0.775169), abs=1e-6)
    assert oracle["estimator"] == "clustered-t"


def test_a_builtin_protocol_without_its_section_takes_the_generic_one(
    built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built-in protocols reach the report through the section registry as any other does:
    with hallucination's section taken out of it, the generic section a new protocol gets
    shows its figures (its summary rows, its cli_columns table, its headline column)."""
    monkeypatch.delitem(REPORT_SECTIONS, "hallucination")
    (bench,) = collect(built.store, [OPEN])["benchmarks"]
    ids = {item.id for item in iter_items(built.store, OPEN)}
    rows = iter_judgments(built.store, judge=HALLUCINATION_JUDGE, protocol="hallucination")
    expected = hallucination_report(rows, ids)
    assert bench["hallucination"] == [
        {"judge": HALLUCINATION_JUDGE, "models": [s.row() for s in expected.values()]}
    ]
    html = render_benchmark(bench)
    assert f"<h3>hallucination — judge {HALLUCINATION_JUDGE}</h3>" in html  # the generic heading
    assert f"<h3>Hallucination — judge {HALLUCINATION_JUDGE}</h3>" not in html
    # By hand (see the test above): the oracle's mean rating is 0.5 over 16 rated answers.
    assert '<td data-model="baseline/oracle" data-column="mean">0.50</td>' in html
    board = {r.model: r for r in leaderboard_rows({"benchmarks": [bench]})}
    assert board["baseline/oracle"].value(f"hallucination:{HALLUCINATION_JUDGE}") == 0.5
    assert board["baseline/oracle"].cells[f"hallucination:{HALLUCINATION_JUDGE}"].interval is None


def test_a_new_protocol_registers_its_own_section(built: Built) -> None:
    """A protocol's own section (data, HTML, leaderboard cells with an interval) through the
    same registration the built-ins use, with no edit to the report's modules."""

    def figures(bench: Any) -> Any:
        for entry in bench["toy-items"]:
            yield entry["model"], {"toy:items": interval_cell(entry["n"], 1.0, 99.5, n=16)}

    register(JudgeProtocol("toy-items", "metric", "toy", report_key="toy-items"))
    register_section(
        "toy-items",
        ReportSection(
            collect=lambda source: [{"model": "m/one", "n": float(len(source.items))}],
            render=lambda bench: f"<h3>toy of {bench['name']}</h3>",
            figures=figures,
        ),
    )
    try:
        (bench,) = collect(built.store, [OPEN])["benchmarks"]
        data = {"benchmarks": [bench]}
        markdown = leaderboard_markdown(data)
        (row,) = [r for r in leaderboard_rows(data) if r.model == "m/one"]
        html = render_benchmark(bench)
    finally:
        unregister("toy-items")
        REPORT_SECTIONS.remove("toy-items")
    n = len(list(iter_items(built.store, OPEN)))
    assert bench["toy-items"] == [{"model": "m/one", "n": float(n)}]
    assert f"<h3>toy of {OPEN}</h3>" in html
    assert row.flat() == {
        "benchmark": OPEN,
        "kind": bench["kind"],
        "model": "m/one",
        "display": "m/one",
        "toy:items": float(n),
        "toy:items_low": 1.0,
        "toy:items_high": 99.5,
    }
    line = next(line for line in markdown.splitlines() if line.startswith("| m/one |"))
    assert line.endswith(f"| {n:.1f} [1.0–99.5] |")  # the protocols' columns come last


def test_no_judge_sections_without_judgments(built: Built) -> None:
    html = section(built.html, AUTOBENCH)
    assert "TouchStone" not in html and "Hallucination" not in html
    assert _summary(built, AUTOBENCH)["touchstone"] == []


def test_model_spread_by_level_equals_the_store(built: Built) -> None:
    html = section(built.html, AUTOBENCH)
    assert "<h3>Model spread by level</h3>" in html
    by_level: dict[str, list[float]] = {}
    for row in accuracy_table(built.store, AUTOBENCH, ["difficulty"]):
        by_level.setdefault(row.group[0], []).append(100 * row.accuracy)
    assert set(by_level) == {"easy", "medium", "hard"}
    for level, accs in by_level.items():
        assert len(accs) == 5  # four baselines and the hostile examinee
        figures = {
            "min": min(accs),
            "max": max(accs),
            "range": max(accs) - min(accs),
            "std": statistics.pstdev(accs),
        }
        for figure, value in figures.items():
            assert cell(html, spread=level, figure=figure) == f"{value:.1f}", (level, figure)
    svg = next(s for s in re.findall(r"<svg\b.*?</svg>", html, flags=re.S) if "spread" in s)
    for level, accs in by_level.items():
        assert f">range {max(accs) - min(accs):.1f}</text>" in svg
        for value in accs:  # every model's dot carries its accuracy
            assert f" / {level}: {value:.1f}%</title></circle>" in svg
