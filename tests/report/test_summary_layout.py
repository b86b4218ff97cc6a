"""The report's opening summary stays readable with many capabilities: MMBench, MME and MMMU
together have some 60 categories, which as columns made the page over 4,000 px wide; past a
handful the table turns (capabilities as rows under their benchmark, models as columns) and
every cell keeps the figure the accuracy table has. A benchmark whose items have no difficulty
level gets no difficulty sections (one group called "-" read as a level of its own)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import dataset_layouts as layouts
from prediction_fixtures import b64_image
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.report import benchmark_summary, render_benchmark
from lvlmbench.report.collect import collect
from lvlmbench.report.render_summary import summary_section
from lvlmbench.store import Store

runner = CliRunner()


def _store(tmp_path: Path, write: Callable[..., Path]) -> Path:
    db = tmp_path / "s.db"
    source = write(tmp_path / "bench.tsv", b64_image)
    for args in (
        ["import", str(source), "--name", "B"],
        ["evaluate", "B", "-m", "baseline/oracle", "-m", "baseline/random"],
    ):
        done = runner.invoke(app, [*args, "--store", str(db)])
        assert done.exit_code == 0, done.output
    return db


def _summary(tmp_path: Path, write: Callable[..., Path]) -> str:
    store = Store.open(str(_store(tmp_path, write)))
    try:
        return summary_section(collect(store)["benchmarks"])
    finally:
        store.close()


def _heads(html: str) -> list[str]:
    return re.findall(r"<th>(.*?)</th>", html[: html.index("</thead>")])


def test_many_capabilities_are_rows_and_models_columns(tmp_path: Path) -> None:
    html = _summary(tmp_path, layouts.mme_all)
    assert _heads(html) == ["benchmark", "capability", "baseline/oracle", "baseline/random"]
    rows = re.findall(r"<tr><td>(B?)</td><td>([a-zA-Z_]+)</td>", html)
    assert [cap for _, cap in rows] == sorted(layouts.MME_CATEGORIES)
    assert [bench for bench, _ in rows] == ["B"] + [""] * 13  # the benchmark named once
    oracle = re.findall(
        r'data-model="baseline/oracle" data-summary="[^"]+" data-accuracy="([\d.]+)"', html
    )
    assert oracle == ["100.0"] * 14


def test_a_few_capabilities_stay_columns(tmp_path: Path) -> None:
    html = _summary(tmp_path, layouts.mmbench)  # two categories: colour, position
    assert _heads(html) == ["model", "colour", "position"]


def test_no_difficulty_sections_for_a_benchmark_without_levels(tmp_path: Path) -> None:
    store = Store.open(str(_store(tmp_path, layouts.mmbench)))
    try:
        bench = benchmark_summary(store, "B")
    finally:
        store.close()
    assert bench["difficulty"] == [] and bench["spread"] == [] and bench["fine_aspect"] == []
    assert {r["capability"] for r in bench["capability"]} == {"colour", "position"}
    html = render_benchmark(bench)
    for heading in ("Accuracy by difficulty", "Accuracy vs difficulty", "Model spread by level"):
        assert heading not in html
    assert "Accuracy by capability" in html


def test_a_benchmark_with_many_categories_turns_its_own_tables(tmp_path: Path) -> None:
    store = Store.open(str(_store(tmp_path, layouts.mme_all)))
    try:
        html = render_benchmark(benchmark_summary(store, "B"))
    finally:
        store.close()
    start = html.index("<h3>Accuracy by capability</h3>")
    by_capability = html[start : html.index("</table>", start)]
    assert _heads(by_capability)[:3] == ["capability", "baseline/oracle %", "95% CI"]
    assert by_capability.count("<tr><td>") == 14
    start = html.index("<h3>MME</h3>")
    mme = html[start : html.index("</table>", start)]
    assert _heads(mme) == [
        "",
        "baseline/oracle: score (acc / acc+)",
        "baseline/random: score (acc / acc+)",
    ]
    assert '<td data-model="baseline/oracle" data-total="perception">2000.0</td>' in mme
    assert '<td data-model="baseline/oracle" data-category="color">200.0 (100 / 100)</td>' in mme
