"""``evaluate --until``: a budgeted run through the real runner and store with baseline
examinees: it decides, uses a fraction of the items, pays for nothing twice when run again,
keeps to --budget, and refuses bad options before writing anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runs import count_rows, evaluate_json
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app

runner = CliRunner()
BENCH = "quiz"
ITEMS = 400
ORACLE, RANDOM, RANDOM3 = "baseline/oracle", "baseline/random", "baseline/random?seed=3"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store holding ITEMS text-only multiple-choice items over 2 aspects × 3 levels."""
    return write_quiz(tmp_path / "s.db", BENCH, ITEMS)


def test_compare_decides_early_and_a_rerun_pays_nothing(db: Path) -> None:
    args = ["-m", ORACLE, "-m", RANDOM, "--until", f"compare:{RANDOM},{ORACLE}"]
    first = evaluate_json(db, BENCH, *args, "--first-round", "10")
    budget = first["budget"]
    assert budget["answered"] and budget["order"] == [ORACLE, RANDOM]
    assert f"{ORACLE} is better than {RANDOM}" in budget["decision"]
    assert budget["p_value"] <= 0.05
    used = budget["items_used"]
    assert 10 <= used < ITEMS // 4 and budget["items_full"] == ITEMS
    assert budget["calls"] == 2 * used and budget["calls_saved"] == 2 * (ITEMS - used)
    assert count_rows(db, "responses") == 2 * used  # only the items used were asked
    # The accuracy table covers the items used, not the whole benchmark.
    assert all(row["answered"] == used for row in first["overall"])
    again = evaluate_json(db, BENCH, *args, "--first-round", "10")
    assert again["budget"]["requests"] == 0 and count_rows(db, "responses") == 2 * used
    assert {k: v for k, v in again["budget"].items() if k != "requests"} == {
        k: v for k, v in budget.items() if k != "requests"
    }
    assert all(run["skipped"] == used for run in again["runs"])


def test_rank_keeps_to_the_budget(db: Path) -> None:
    report = evaluate_json(
        db, BENCH, "-m", ORACLE, "-m", RANDOM, "-m", RANDOM3, "--until", "rank", "--budget", "150"
    )
    budget = report["budget"]
    assert budget["items_used"] <= 50 and budget["calls"] <= 150 and budget["budget"] == 150
    assert budget["order"][0] == ORACLE
    assert count_rows(db, "responses") == budget["calls"]
    if not budget["answered"]:
        assert "cannot separate" in budget["decision"]


def test_human_output_names_items_calls_and_decision(db: Path) -> None:
    args = ["evaluate", BENCH, "-m", ORACLE, "-m", RANDOM, "--until", "rank"]
    result = runner.invoke(app, [*args, "--first-round", "20", "--store", str(db)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"decision: ranking {ORACLE}" in text and "every adjacent pair separated" in text
    assert f"items used: 20 of {ITEMS} (5%) in 1 round(s)" in text
    assert (
        f"examinee calls: 40 against {2 * ITEMS} for the full run: {2 * ITEMS - 40} saved" in text
    )


def test_limit_bounds_the_pool(db: Path) -> None:
    report = evaluate_json(
        db, BENCH, "-m", ORACLE, "-m", RANDOM, "--until", "rank", "--limit", "60"
    )
    assert report["budget"]["items_full"] == 60 and report["budget"]["items_used"] <= 60


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-m", ORACLE, "-m", RANDOM, "--until", "compare:x,y"], "give exactly the compared"),
        (["-m", ORACLE, "-m", RANDOM, "-m", RANDOM3, "--until", "compare"], "give exactly"),
        (["-m", ORACLE, "--until", "rank"], "at least two --model"),
        (["-m", ORACLE, "-m", RANDOM, "--until", "best"], "expected rank, or compare:A,B"),
        (["-m", ORACLE, "-m", RANDOM, "--budget", "10"], "give --until"),
        (["-m", ORACLE, "-m", RANDOM, "--until", "rank", "--alpha", "1.5"], "--alpha 1.5"),
        (["-m", ORACLE, "-m", RANDOM, "--until", "rank", "--budget", "1"], "one item costs 2"),
        (["-m", ORACLE, "-m", RANDOM, "--until", "rank", "--workers", "2"], "--workers"),
    ],
)
def test_bad_options_exit_2_and_store_nothing(db: Path, args: list[str], needle: str) -> None:
    result = runner.invoke(app, ["evaluate", BENCH, *args, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert needle in " ".join(result.output.split())
    assert count_rows(db, "responses") == 0
