"""``generate --budget`` and ``generate --until``: generation in rounds with the procedural
examiner and renderer and baseline examinees. It keeps to the budget and says so, decides "is
the oracle better than chance" early, pays for nothing twice when run again (also after a
SIGKILL), and refuses bad options before the store is written."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_runs import clean_env, count_rows, units_stored
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, iter_items

runner = CliRunner()
ORACLE, RANDOM, RANDOM3 = "baseline/oracle", "baseline/random", "baseline/random?seed=3"
NAME = "spatial-understanding-s0"
PLAN = ["spatial understanding", "-n", "2", "-k", "2", "--per-aspect", "10"]
PLAN += ["--levels", "easy,hard", "--seed", "0"]
PLANNED = 2 * 2 * 2 * 10
COMPARE = ["--model", ORACLE, "--model", RANDOM, "--until", f"compare:{RANDOM},{ORACLE}"]
DECIDE = ["spatial understanding", "-n", "4", "-k", "6", "--per-aspect", "1"]
DECIDE += ["--levels", "easy,hard", "--seed", "0"]
DECIDE_PLANNED = 4 * 6 * 2
"""24 fine aspects of two units (a level each): a decision tests whole fine aspects, so it
needs a plan of many (PLAN's 4 fine aspects could never make a claim at α = 0.05)."""


def _run(db: Path, *args: str, plan: list[str] = PLAN) -> dict[str, Any]:
    result = runner.invoke(app, ["generate", *plan, *args, "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_budget_is_kept_and_reported(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    report = _run(db, "--budget", "20", "--first-round", "5", "--concurrency", "2")
    budget = report["budget"]
    built = budget["units_built"]
    # Fresh work: what was counted is what was sent, within the units in flight (2 × 3 renders).
    assert budget["requests"] == budget["calls"] == budget["generation_calls"]
    assert 20 <= budget["calls"] <= 20 + 2 * 3 and budget["budget"] == 20
    assert budget["stopped_by_budget"] and 0 < built < PLANNED
    assert budget["units_planned"] == PLANNED and budget["examinee_calls"] == 0
    assert count_rows(db, "artifacts", "stage = 'units'") == built
    assert report["items"] == count_rows(db, "items")
    assert budget["strata_share_gap"] <= 1 / built + 1e-9
    assert budget["calls_saved_estimate"] == budget["calls_full_estimate"] - budget["calls"] > 0


def test_human_output_names_units_calls_and_the_estimate(tmp_path: Path) -> None:
    args = ["generate", *PLAN, "--budget", "12", "--first-round", "4", "--concurrency", "1"]
    result = runner.invoke(app, [*args, "--store", str(tmp_path / "s.db")])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"of {PLANNED} planned" in text and "units built:" in text
    assert "stratified over capability × general_aspect × difficulty" in text
    assert "of a budget of 12 (" in text and "examiner and text-to-image" in text
    assert "the full plan would take about" in text and "(an estimate:" in text
    assert "requests sent by this run" in text


def test_compare_stops_early_right_and_a_rerun_pays_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    first = _run(db, *COMPARE, "--first-round", "8", plan=DECIDE)
    budget = first["budget"]
    assert budget["answered"] and budget["order"] == [ORACLE, RANDOM]
    assert f"{ORACLE} is better than {RANDOM}" in budget["decision"]
    assert budget["p_value"] <= 0.05
    used = budget["items_used"]
    assert budget["units_built"] < DECIDE_PLANNED and used == first["items"]
    # Whole fine aspects of two units were built and tested, and the decision says so.
    assert budget["cluster"] == "fine aspect" and used == 2 * budget["clusters_used"]
    assert f"over {used // 2} fine-aspect clusters" in budget["decision"]
    assert budget["examinee_calls"] == 2 * used == count_rows(db, "responses")
    assert budget["requests"] == budget["calls"]  # fresh: every call counted was sent
    again = _run(db, *COMPARE, "--first-round", "8", plan=DECIDE)
    assert again["budget"]["requests"] == 0 and count_rows(db, "responses") == 2 * used
    assert {k: v for k, v in again["budget"].items() if k != "requests"} == {
        k: v for k, v in budget.items() if k != "requests"
    }
    assert all(run["skipped"] == used for run in again["runs"])


def test_rank_keeps_to_a_budget_counting_examinee_calls(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    models = ["--model", ORACLE, "--model", RANDOM, "--model", RANDOM3, "--until", "rank"]
    report = _run(db, *models, "--budget", "40", "--first-round", "4", "--concurrency", "1")
    budget = report["budget"]
    used = budget["items_used"]
    # Each unit is one render here and each item three examinee calls; one unit in flight.
    assert budget["calls"] == budget["generation_calls"] + 3 * used
    assert budget["calls"] <= 40 + 3 + 3 and count_rows(db, "responses") == 3 * used
    assert budget["order"][0] == ORACLE
    if not budget["answered"]:
        assert "cannot separate" in budget["decision"]


def test_equal_examinees_get_no_claim(tmp_path: Path) -> None:
    report = _run(
        tmp_path / "s.db",
        "--model",
        RANDOM,
        "--model",
        RANDOM3,
        "--until",
        "compare",
        "--first-round",
        "8",
    )
    budget = report["budget"]
    assert not budget["answered"] and "cannot separate" in budget["decision"]


# -- killed and resumed ---------------------------------------------------------------------------


def _cli(db: Path, *extra: str) -> list[str]:
    args = [sys.executable, "-m", "lvlmbench", "generate", *DECIDE, *COMPARE]
    return [*args, "--first-round", "8", "--store", str(db), "--json", *extra]


def _kill_once_units_are_stored(db: Path, cwd: Path, units: int) -> None:
    proc = subprocess.Popen(
        _cli(db, "--concurrency", "1"),
        cwd=cwd,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the kill takes its workers too
    )
    try:
        deadline = time.monotonic() + 120
        while units_stored(db) < units:
            if proc.poll() is not None:
                output = proc.stdout.read().decode() if proc.stdout else ""
                pytest.fail(f"generate exited ({proc.returncode}) before the kill:\n{output}")
            if time.monotonic() > deadline:
                pytest.fail(f"{units} units were not stored within 120 s")
            time.sleep(0.005)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.stdout:
            proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL


def _items(db: Path) -> list[dict[str, Any]]:
    store = Store.open(str(db))
    try:
        return [item.model_dump() for item in iter_items(store, NAME)]
    finally:
        store.close()


def test_killed_run_resumes_to_the_same_decision_paying_nothing_twice(tmp_path: Path) -> None:
    reference = _run(tmp_path / "reference.db", *COMPARE, "--first-round", "8", plan=DECIDE)
    reference = reference["budget"]
    db = tmp_path / "killed.db"
    _kill_once_units_are_stored(db, tmp_path, 10)  # in round two: round one was answered
    # What the killed run had sent and kept: renders (cached) and answers (stored).
    kept = count_rows(db, "cache", "kind = 'image'") + count_rows(db, "responses")
    assert count_rows(db, "responses") > 0
    resumed = subprocess.run(
        _cli(db), cwd=tmp_path, env=clean_env(), capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    budget = json.loads(resumed.stdout)["budget"]
    for key in ("decision", "order", "items_used", "units_built", "calls", "p_value"):
        assert budget[key] == reference[key], key
    # It sent only what the killed run had not: the rest of the units and their answers.
    assert budget["requests"] == reference["requests"] - kept
    assert _items(db) == _items(tmp_path / "reference.db")


# -- bad options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--budget", "0"], "--budget 0: expected a whole number of calls"),
        (
            ["--model", ORACLE, "--model", RANDOM],
            "--model: examinees answer a generation only with --until",
        ),
        (["--until", "rank"], "at least two --model"),
        (["--until", "rank", "--model", ORACLE], "at least two --model"),
        (["--until", "compare", "--model", ORACLE], "give exactly two --model"),
        (
            ["--until", "best", "--model", ORACLE, "--model", RANDOM],
            "expected rank, or compare:A,B",
        ),
        (["--until", "rank", "--model", ORACLE, "--model", RANDOM, "--alpha", "2"], "--alpha 2"),
        (["--budget", "9", "--first-round", "0"], "--first-round 0"),
        (
            ["--until", "rank", "--model", ORACLE, "--model", "nosuch/model"],
            "unknown provider 'nosuch'",
        ),
    ],
)
def test_bad_options_exit_2_before_the_store_is_written(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    db = tmp_path / "s.db"
    result = runner.invoke(app, ["generate", *PLAN, *args, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert needle in " ".join(result.output.split())
    assert not db.exists()
