"""Every accuracy interval is clustered by the items' shared source and says so: the tiny store
of tests/clustered_store.py (12 items in 6 fine aspects, 2 players), every figure worked by hand
in that module's docstring, checked in the CLI table, ``evaluate --json``, the report's
``summary.json`` and the leaderboard files."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from cli_runs import evaluate_json
from clustered_store import ALPHA, BENCH, BETA, write_clustered
from typer.testing import CliRunner

from lvlmbench.cli import app

# (accuracy, ci_low, ci_high) worked by hand in clustered_store.py.
OVERALL = {ALPHA: (7 / 12, 0.188340, 0.978327), BETA: (5 / 12, 0.021673, 0.811660)}
LEVELS = {
    (ALPHA, "easy"): (5 / 6, 0.436497, 0.969947),
    (ALPHA, "hard"): (2 / 6, 0.096771, 0.700007),
    (BETA, "easy"): (4 / 6, 0.299993, 0.903229),
    (BETA, "hard"): (1 / 6, 0.030053, 0.563503),
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return write_clustered(tmp_path / "aspects.db")


def test_json_overall_is_clustered_by_fine_aspect(db: Path) -> None:
    report = evaluate_json(db, BENCH, "-m", ALPHA, "-m", BETA)
    for row in report["overall"]:
        figure = (row["accuracy"], row["ci_low"], row["ci_high"])
        assert figure == pytest.approx(OVERALL[row["model"]], abs=1e-6)
        assert (row["items"], row["clusters"], row["cluster"]) == (12, 6, "fine aspect")
        assert (row["estimator"], row["confidence"], row["adjustment"]) == (
            "clustered-t",
            0.95,
            "none",
        )
    ranks = {
        row["model"]: (row["rank"], row["rank_low"], row["rank_high"]) for row in report["overall"]
    }
    assert ranks == {ALPHA: (1, 1, 1), BETA: (2, 1, 2)}  # tied: beta's range reaches 1
    assert report["overall"][1]["tied_with"] == [ALPHA]
    method = report["overall"][0]["rank_method"]
    assert (method["cluster"], method["clusters"], method["seed"]) == ("fine aspect", 6, 0)
    # Per level every fine aspect holds one item: Wilson over 6 items, its clusters all single.
    for row in report["accuracy"]:
        figure = (row["accuracy"], row["ci_low"], row["ci_high"])
        assert figure == pytest.approx(LEVELS[row["model"], row["difficulty"]], abs=1e-6)
        assert (row["items"], row["clusters"], row["estimator"]) == (6, 6, "wilson")


def test_cli_table_shows_clusters_and_names_them(db: Path) -> None:
    shown = CliRunner().invoke(
        app,
        ["evaluate", BENCH, "-m", ALPHA, "-m", BETA, "--store", str(db)],
        env={"COLUMNS": "160"},
    )
    assert shown.exit_code == 0, shown.output
    rows = {
        cells[0]: cells[1:]
        for line in shown.output.splitlines()
        if (cells := [c.strip() for c in line.split("│") if c.strip()]) and cells[0] in OVERALL
    }
    # easy, hard, overall, rank, items, clusters, unparseable, failed
    assert rows[ALPHA][:6] == ["83.3 (44–97)", "33.3 (10–70)", "58.3 (19–98)", "1", "12", "6"]
    assert rows[BETA][:6] == ["66.7 (30–90)", "16.7 (3–56)", "41.7 (2–81)", "1–2", "12", "6"]
    note = " ".join(shown.output.split())
    assert "95% CI clustered by fine aspect, 6 clusters per cell" in note
    assert "resamples of the 6 clusters (fine aspect) of the 12 items" in note


def test_report_summary_and_leaderboards_carry_the_same_figures(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "report.html"
    written = CliRunner().invoke(app, ["report", "--out", str(out), "--store", str(db)])
    assert written.exit_code == 0, written.output
    [bench] = json.loads((out.parent / "summary.json").read_text())["benchmarks"]
    overall = {row["model"]: row for row in bench["overall"]}
    for model, (accuracy, low, high) in OVERALL.items():
        row = overall[model]
        percent = tuple(round(100 * v, 1) for v in (accuracy, low, high))
        assert (row["accuracy"], row["ci_low"], row["ci_high"]) == percent
        assert (row["items"], row["clusters"], row["cluster"], row["estimator"]) == (
            12,
            6,
            "fine aspect",
            "clustered-t",
        )
    assert (overall[ALPHA]["rank_low"], overall[ALPHA]["rank_high"]) == (1, 1)
    assert (overall[BETA]["rank_low"], overall[BETA]["rank_high"]) == (1, 2)
    with (out.parent / "leaderboard.csv").open(newline="") as handle:
        board = {row["model"]: row for row in csv.DictReader(handle)}
    assert [board[BETA][k] for k in ("accuracy", "accuracy_low", "accuracy_high")] == [
        "41.7",
        "2.2",
        "81.2",
    ]
    assert [board[BETA][k] for k in ("clusters", "cluster", "rank_low", "rank_high")] == [
        "6",
        "fine aspect",
        "1",
        "2",
    ]
    markdown = (out.parent / "leaderboard.md").read_text()
    assert "| beta-7b | 41.7 [2.2–81.2] | 12 | 6 | fine aspect | clustered-t |" in markdown
    assert re.search(r"\| beta-7b \|.*\| 1–2 \|", markdown)
    html = out.read_text()
    assert (
        '<td class="ci">2.2–81.2</td><td data-model="beta-7b" data-coverage="overall">'
        'all 12 items</td><td data-rank="2">1–2 (tied)</td>'
    ) in html
    assert "95% CI clustered by fine aspect, 6 clusters per cell" in html
