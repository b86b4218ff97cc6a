"""Every accuracy interval is clustered by the items' shared source and says so: the tiny store
of tests/clustered_store.py (12 items in 6 fine aspects, 2 players), every figure worked by hand
in that module's docstring, checked in the CLI table, ``evaluate --json``, the report's
``summary.json`` and the leaderboard files."""

from __future__ import annotations

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
    # easy, hard, overall, items, clusters, unparseable, failed
    assert rows[ALPHA][:5] == ["83.3 (44–97)", "33.3 (10–70)", "58.3 (19–98)", "12", "6"]
    assert rows[BETA][:5] == ["66.7 (30–90)", "16.7 (3–56)", "41.7 (2–81)", "12", "6"]
    note = " ".join(shown.output.split())
    assert "95 % CI clustered by fine aspect, 6 clusters per cell" in note
