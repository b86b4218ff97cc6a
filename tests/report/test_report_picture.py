"""One consistent picture: the Bradley-Terry headline is the same in `lvlmbench rate`, the
report and the web leaderboard; the summary table equals `accuracy_table`; chance lines and
near-chance marks; probe metrics are tagged."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import escape, unescape

import pytest
from fastapi.testclient import TestClient
from report.cells import cell, section
from report.conftest import AUTOBENCH, OPEN, Built
from typer.testing import CliRunner

from lvlmbench.choice.accuracy import accuracy_table, facet_value
from lvlmbench.cli import app
from lvlmbench.report import heatmap
from lvlmbench.report.render_ratings import metrics_section
from lvlmbench.report.render_summary import includes_chance
from lvlmbench.store import iter_items
from lvlmbench.web import WebSettings, create_app

JUDGE = "judge/fake"
PLAYERS = ("baseline/oracle", "baseline/random", "reference")


def _rate_output(built: Built) -> str:
    result = CliRunner().invoke(
        app,
        ["rate", OPEN, "-j", JUDGE, "--store", built.store.url],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    return result.output


def _terminal_bt(output: str) -> dict[str, tuple[str, str]]:
    """{player: (rating, interval)} from the first rating column of `rate`'s table."""
    found = {}
    for player in PLAYERS:
        line = next(ln for ln in output.splitlines() if re.search(rf"\b{player}\b\s", ln))
        match = re.search(r"(\d+) \((\d+)–(\d+)\)", line)
        assert match, line
        found[player] = (match[1], f"{match[2]}–{match[3]}")
    return found


def _page_bt(html: str) -> dict[str, tuple[str, str]]:
    """{player: (rating, interval)} from the report section's Bradley-Terry cells."""
    found = {}
    for player in PLAYERS:
        rating = cell(html, model=player, rating="bt")
        after = html[html.index(f'data-model="{player}" data-rating="bt">') :]
        interval = re.search(r"</td><td>([^<]*)</td>", after)
        assert interval
        found[player] = (rating, unescape(interval[1]))
    return found


def test_same_bradley_terry_headline_in_terminal_report_and_web(built: Built) -> None:
    output = _rate_output(built)
    terminal = _terminal_bt(output)
    report = _page_bt(section(built.html, OPEN))
    with TestClient(create_app(built.store, WebSettings()), base_url="http://127.0.0.1:8000") as c:
        page = c.get(f"/b/{OPEN}")
    assert page.status_code == 200
    web = _page_bt(page.text)
    assert terminal == report == web
    # Oracle always beats the reference, random always loses: the order must follow.
    ratings = {p: int(v[0]) for p, v in terminal.items()}
    assert ratings["baseline/oracle"] > ratings["reference"] > ratings["baseline/random"]
    # Online Elo is still there, last and labelled two ways: never the headline.
    header = next(ln for ln in output.splitlines() if "Bradley-Terry" in ln)
    assert header.index("Bradley-Terry") < header.index("online Elo")
    table = section(built.html, OPEN)
    in_order = "<th>online Elo, in benchmark item order (no battle order recorded)</th>"
    shuffled = "<th>online Elo, mean of 100 shuffled orders</th>"
    assert table.index("<th>Bradley-Terry</th>") < table.index(in_order) < table.index(shuffled)


def test_summary_table_equals_accuracy_table(built: Built) -> None:
    start = built.html.index('<section id="summary">')
    summary = built.html[start : built.html.index("</section>", start)]
    assert built.html.index('<section id="summary">') < built.html.index(
        f'<section id="{AUTOBENCH}"'
    )
    rows = accuracy_table(built.store, AUTOBENCH, ["capability"])
    assert rows
    for row in rows:
        low, high = row.interval
        pattern = (
            rf'data-model="{re.escape(escape(row.model))}" '
            rf'data-summary="{re.escape(escape(row.group[0]))}" '
            r'data-accuracy="([\d.]+)">[\d.]+ <span class="ci">\[([\d.]+)–([\d.]+)\]'
        )
        match = re.search(pattern, summary)
        assert match, row
        assert float(match[1]) == pytest.approx(round(100 * row.accuracy, 1))
        assert float(match[2]) == pytest.approx(round(100 * low, 1))
        assert float(match[3]) == pytest.approx(round(100 * high, 1))


def test_chance_is_the_mean_guessing_rate_and_drawn_on_accuracy_charts(built: Built) -> None:
    from lvlmbench.report import benchmark_summary

    bench = benchmark_summary(built.store, AUTOBENCH)
    items = [i for i in iter_items(built.store, AUTOBENCH) if i.answer is not None]
    for facet in ("capability", "difficulty", "fine_aspect"):
        for row in bench[facet]:
            mine = [i for i in items if facet_value(i, facet) == row[facet]]
            odds = [0.5 if i.kind == "tf" else 1 / len(i.options) for i in mine]
            assert row["chance"] == pytest.approx(round(100 * sum(odds) / len(odds), 1))
    section_html = section(built.html, AUTOBENCH)
    svgs = re.findall(r"<svg.*?</svg>", section_html, re.S)
    titles = [ET.fromstring(s).findtext("title") or "" for s in svgs]
    accuracy = [
        s for s, t in zip(svgs, titles, strict=True) if t.startswith(("accuracy", "spread"))
    ]
    assert len(accuracy) >= 5  # capability, difficulty dots and lines, spread, heatmap
    for svg in accuracy:
        root = ET.fromstring(svg)
        if "per fine aspect" in svg:
            continue  # the heatmap marks cells instead of drawing a line
        assert any(el.get("class") == "chance" for el in root.iter()), svg[:120]


def test_heatmap_shows_n_and_hatches_cells_whose_interval_includes_chance() -> None:
    rows = [
        {"aspect": "colour", "model": "m1", "accuracy": 90.0, "ci_low": 80.0, "ci_high": 95.0},
        {"aspect": "colour", "model": "m2", "accuracy": 30.0, "ci_low": 15.0, "ci_high": 50.0},
        {"aspect": "count", "model": "m1", "accuracy": 20.0, "ci_low": 10.0, "ci_high": 24.0},
    ]
    for r in rows:
        r["chance"] = 25.0
    near = {(r["aspect"], r["model"]) for r in rows if includes_chance(r)}
    assert near == {("colour", "m2")}  # 10-24 lies wholly below chance: not "near" it
    values = {(r["aspect"], r["model"]): r["accuracy"] for r in rows}
    counts = {("colour", "m1"): 40, ("colour", "m2"): 12, ("count", "m1"): 7}
    svg = heatmap(["colour", "count"], ["m1", "m2"], values, "t", counts, near)
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{*}text")] + [t.text for t in root.iter("text")]
    for n in (40, 12, 7):
        assert f"n={n}" in texts
    marked = [r for r in root.iter("rect") if r.get("data-near-chance")]
    assert len(marked) == 1
    x_m2 = 200.0 + 90.0
    assert float(marked[0].get("x", "0")) == x_m2 and float(marked[0].get("y", "0")) == 90.0
    assert "interval includes chance" in svg  # the legend explains the hatching
    plain = heatmap(["colour"], ["m1"], values, "t")
    assert "n=" not in plain and "near-chance" not in plain


def test_probe_metrics_are_tagged_in_table_and_chart() -> None:
    def row(metric: str, model: str, mean: float, probe: bool, scale: str) -> dict[str, object]:
        return {
            "metric": metric,
            "model": model,
            "n": 10,
            "mean": mean,
            "ci_low": mean * 0.9,
            "ci_high": mean * 1.1,
            "probe": probe,
            "scale": scale,
            "bradley_terry": 1000.0,
            "online_elo_shuffled_mean": 1000.0,
            "win_rate": 0.5,
        }

    bench = {
        "metrics": [
            row("rougeL", "m1", 0.41234, False, "0-1"),
            row("length", "m1", 23.5, True, "tokens"),
            row("random", "m1", 0.5, True, "0-1"),
        ]
    }
    html = metrics_section(bench)
    tags = dict(re.findall(r'data-metric-name="([^"]*)">[^<]*(<span class="tag">probe)?', html))
    assert tags == {
        "rougeL": "",
        "length": '<span class="tag">probe',
        "random": '<span class="tag">probe',
    }
    assert cell(html, metric="rougeL", model="m1") == "0.412"  # three decimals on 0-1
    assert cell(html, metric="length", model="m1") == "23.5"
    charts = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(charts) == 3
    titles = [ET.fromstring(c).findtext("title") or "" for c in charts]
    assert ["probe" in t for t in titles] == [False, True, True]


def test_demo_metrics_in_the_report_tag_exactly_the_probes(built: Built) -> None:
    html = section(built.html, OPEN)
    tagged = set(re.findall(r'data-metric-name="([^"]*)">[^<]*<span class="tag">probe', html))
    shown = set(re.findall(r'data-metric-name="([^"]*)"', html))
    assert tagged == shown & {"length", "random"}
    assert shown - tagged  # real metrics are shown untagged


def test_metric_bradley_terry_has_the_same_interval_in_terminal_and_report(built: Built) -> None:
    from rich.console import Console

    from lvlmbench.cli.metrics import metric_tables
    from lvlmbench.judging.metrics.run import summarise_metrics

    summary = json.loads(built.summary_path.read_text(encoding="utf-8"))
    rows = next(b for b in summary["benchmarks"] if b["name"] == OPEN)["metrics"]
    models = sorted({r["model"] for r in rows})
    metrics = sorted({r["metric"] for r in rows})
    scores, ratings = summarise_metrics(built.store, OPEN, models, metrics, rounds=200)
    console = Console(width=400, record=True)
    for t in metric_tables(scores, ratings):
        console.print(t)
    terminal = console.export_text()
    html = section(built.html, OPEN)
    checked = 0
    for rating in ratings:
        for model, value in rating.bradley_terry.items():
            interval = rating.bt_intervals[model]
            assert interval.low <= value <= interval.high
            shown = f"{value:.0f} [{interval.low:.0f}–{interval.high:.0f}]"
            assert shown in terminal
            row = next(r for r in rows if r["metric"] == rating.metric and r["model"] == model)
            assert row["bradley_terry"] == pytest.approx(value)
            assert row["bt_interval"] == pytest.approx([interval.low, interval.high])
            assert f"<td>{interval.low:.0f}–{interval.high:.0f}</td>" in html
            checked += 1
    assert checked >= 3
