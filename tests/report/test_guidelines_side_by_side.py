"""The paper's Table 4 side by side: two benchmarks of one capability that differ only by
--no-guidelines show people's alignment rates per check and level in one table, columns "with
guidelines" and "without", in the report section of either; a benchmark whose other settings
differ is no twin. Rates and Wilson intervals worked by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.judging.human_checks import check_judgment
from lvlmbench.report import benchmark_summary, render_benchmark
from lvlmbench.report.guidelines_table import guideline_pair
from lvlmbench.store import Store, put_benchmark, put_items, put_judgments
from lvlmbench.types import BenchmarkItem

runner = CliRunner()
IMAGE = "image-matches-description"
SETTINGS = {"capability": "spatial understanding", "seed": 0, "n": 1, "m": 2, "concurrency": 8}
EXAMINER = "openai/gpt-4o (text mode) + openai/dall-e-3"


def _bench(store: Store, name: str, guidelines: bool, seed: int = 0) -> None:
    settings = {**SETTINGS, "name": name, "guidelines": guidelines, "seed": seed}
    figures = {"mean_alignment": 0.9 if guidelines else 0.7, "rejection_rate": 0.25}
    report = {"settings": settings, "examiner": EXAMINER, "self_check": figures, "items": 6}
    put_benchmark(store, name, "autobench", report)
    put_items(
        store,
        [
            BenchmarkItem(
                id=f"{name}-{level}-{i}",
                benchmark=name,
                question="q",
                kind="tf",
                answer="true",
                meta={"difficulty": level},
            )
            for level in ("easy", "hard")
            for i in range(4)
        ],
    )


def _answers(store: Store, name: str, level: str, verdicts: str) -> None:
    """One person's answer per item: ``verdicts`` as y/n letters, item by item."""
    put_judgments(
        store,
        [
            check_judgment(f"{name}-{level}-{i}", "ann", IMAGE, "yes" if v == "y" else "no")
            for i, v in enumerate(verdicts)
        ],
    )


def _store(tmp_path: Path) -> Store:
    store = Store.open(str(tmp_path / "s.db"))
    _bench(store, "guided", True)
    _bench(store, "unguided", False)
    _bench(store, "other-seed", False, seed=5)  # another study, not the ablation
    _answers(store, "guided", "easy", "yyyn")  # 3/4
    _answers(store, "guided", "hard", "yy")  # 2/2
    _answers(store, "unguided", "easy", "ynnn")  # 1/4; no hard answers
    return store


def test_the_twin_is_the_benchmark_that_differs_only_by_the_guidelines(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        assert guideline_pair(store, "guided") == ("guided", "unguided")
        assert guideline_pair(store, "unguided") == ("guided", "unguided")
        assert guideline_pair(store, "other-seed") is None
    finally:
        store.close()


def test_the_report_shows_both_conditions_in_one_table(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        html = render_benchmark(benchmark_summary(store, "unguided"))
        other = render_benchmark(benchmark_summary(store, "other-seed"))
    finally:
        store.close()
    assert "With and without guidelines (Table 4)" in html
    assert "With and without guidelines" not in other
    cells = {
        (guided, level): text
        for guided, level, text in re.findall(
            r'<td data-guided="(\w+)" data-check="' + IMAGE + r'" data-level="([\w ]+)">([^<]*)<',
            html,
        )
    }
    # Wilson 95%: 3/4 -> [30.1, 95.4]; 1/4 -> [4.6, 69.9]; 2/2 -> [34.2, 100]; 5/6 and 1/4 overall.
    assert cells == {
        ("with", "easy"): "75.0 [30.1, 95.4] (n=4)",
        ("without", "easy"): "25.0 [4.6, 69.9] (n=4)",
        ("with", "hard"): "100.0 [34.2, 100.0] (n=2)",
        ("without", "hard"): "-",
        ("with", "all levels"): "83.3 [43.6, 97.0] (n=6)",
        ("without", "all levels"): "25.0 [4.6, 69.9] (n=4)",
    }
    assert "with guidelines (guided) %" in html and "without (unguided) %" in html
    assert "<td>self-check mean alignment</td><td>all levels</td><td>90.0</td><td>70.0</td>" in html


def test_experiment_guidelines_prints_the_table_or_says_there_is_no_twin(tmp_path: Path) -> None:
    _store(tmp_path).close()
    db = str(tmp_path / "s.db")
    shown = runner.invoke(app, ["experiment", "guidelines", "guided", "--store", db])
    assert shown.exit_code == 0, shown.output
    assert "75.0 [30.1, 95.4] (n=4)" in shown.output and "25.0 [4.6, 69.9] (n=4)" in shown.output
    as_json = runner.invoke(app, ["experiment", "guidelines", "guided", "--store", db, "--json"])
    data = json.loads(as_json.stdout)
    assert (data["with_guidelines"], data["without"]) == ("guided", "unguided")
    easy = next(r for r in data["rows"] if r["level"] == "easy")
    assert easy["with_guidelines"] == {"rate": 75.0, "low": 30.1, "high": 95.4, "n": 4}
    alone = runner.invoke(app, ["experiment", "guidelines", "other-seed", "--store", db])
    assert alone.exit_code == 2 and "no twin" in alone.output
