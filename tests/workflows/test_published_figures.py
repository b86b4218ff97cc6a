"""A run over VLMEvalKit benchmarks reads as their authors publish them: the summary across
benchmarks puts MMBench's CircularEval and MME's perception / reasoning scores beside the
per-row accuracy (a per-row figure read against a published CircularEval one flatters every
model), refuses a sum over part of MME's categories, the MME table fits a terminal with the
models' names whole, and an imported benchmark without difficulty levels is not shown as one
group called "-"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dataset_layouts as layouts
import pytest
from prediction_fixtures import b64_image
from typer.testing import CliRunner

from lvlmbench.cli import app

runner = CliRunner()
MODELS = ["-m", "baseline/oracle", "-m", "baseline/random"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    store = tmp_path / "store.db"
    files = (("MMB", layouts.mmbench), ("MME", layouts.mme_all), ("MME1", layouts.mme))
    for name, write in files:
        source = write(tmp_path / f"{name}.tsv", b64_image)
        done = runner.invoke(app, ["import", str(source), "--name", name, "--store", str(store)])
        assert done.exit_code == 0, done.output
    return store


def _json(db: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["evaluate", *args, "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def test_the_summary_carries_each_benchmarks_published_figures(db: Path) -> None:
    out = _json(db, "MMB", "MME", "MME1", *MODELS)
    rows = {(r["benchmark"], r["model"]): r for r in out["summary"]}
    oracle = rows["MMB", "baseline/oracle"]["headline"]
    # Both copies of question 5 and question 6 right: 2 of 2 questions.
    assert oracle == [{"metric": "CircularEval %", "value": 100.0, "shown": "100.0"}]
    full = {h["metric"]: h["value"] for h in rows["MME", "baseline/oracle"]["headline"]}
    # Every category 100 % acc + 100 % acc+ = 200: 10 perception and 4 reasoning categories.
    assert full == {"MME perception (of 2000)": 2000.0, "MME reasoning (of 800)": 800.0}
    mme = {h["metric"]: h for h in rows["MME1", "baseline/oracle"]["headline"]}
    # This file holds one of MME's ten perception categories: no perception score, and why.
    assert mme["MME perception (of 2000)"]["value"] is None
    assert mme["MME perception (of 2000)"]["shown"] == "1 of 10 categories"
    assert mme["MME reasoning (of 800)"]["value"] is None
    assert "headline" in rows["MMB", "baseline/random"]


def test_the_table_across_benchmarks_shows_circular_eval_and_mme_sums(db: Path) -> None:
    shown = runner.invoke(app, ["evaluate", "MMB", "MME1", *MODELS, "--store", str(db)])
    assert shown.exit_code == 0, shown.output
    across = shown.output[shown.output.index("across benchmarks") :]
    assert "CircularEval %" in across and "MME perception (of 2000)" in across
    assert "1 of 10 categories" in across
    assert "clustered by circular group" in across and "clustered by picture" in across


def test_the_mme_table_keeps_model_names_and_scores_whole(db: Path) -> None:
    shown = runner.invoke(
        app, ["evaluate", "MME", *MODELS, "-m", "baseline/prior", "--store", str(db)]
    )
    assert shown.exit_code == 0, shown.output
    table = shown.output[shown.output.index("MME score") :]
    # Categories are rows and models columns: 14 categories and two sums as columns cut every
    # name and score to a few characters ("base…", "(100…").
    assert "…" not in table
    assert "baseline/oracle" in table and "baseline/prior" in table
    oracle_perception = next(line for line in table.splitlines() if "perception" in line)
    assert "2000.0" in oracle_perception
    assert "200.0 (100/100)" in next(line for line in table.splitlines() if "│ color" in line)


def test_a_benchmark_without_difficulty_is_not_grouped_by_it(db: Path) -> None:
    out = _json(db, "MMB", *MODELS)
    assert all("difficulty" not in row for row in out["accuracy"])
    shown = runner.invoke(app, ["evaluate", "MMB", *MODELS, "--store", str(db)])
    header = next(line for line in shown.output.splitlines() if line.startswith("┃ model"))
    assert "accuracy %" in header and " - " not in header
    # A facet the user names that no item carries is dropped and said, not a "-" column.
    named = _json(db, "MMB", *MODELS, "--by", "category,general_aspect")
    assert {row["category"] for row in named["accuracy"]} == {"colour", "position"}
    assert all("general_aspect" not in row for row in named["accuracy"])
    assert any("general_aspect" in w for w in named["warnings"])


def test_a_limited_run_scores_circular_eval_over_the_questions_it_asked(db: Path) -> None:
    # --limit 2 over two categories: one unit each, question 5 drawn with both its copies.
    out = _json(db, "MMB", "-m", "baseline/oracle", "--limit", "2")
    (circular,) = out["circular"]
    assert (circular["questions"], circular["questions_correct"]) == (1, 1)
    assert circular["incomplete"] == 0
    (row,) = out["overall"]
    assert row["items"] == 3
