"""``evaluate --until`` on a clustered benchmark (AutoBench-V fine aspects of 10 items): the
rounds ask whole fine aspects, the test runs over them and says so in its decision and
``--json``, a rerun pays nothing, and a budget buys whole clusters only."""

from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from cli_runs import count_rows, evaluate_json
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app

BENCH = "aspects"
ITEMS, FINE, SIZE = 400, 20, 10
"""2 general aspects × 20 fine aspects, 10 items each (levels mixed within a fine aspect)."""
ORACLE, RANDOM = "baseline/oracle", "baseline/random"
COMPARE = ["-m", ORACLE, "-m", RANDOM, "--until", f"compare:{ORACLE},{RANDOM}"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return write_quiz(tmp_path / "s.db", BENCH, ITEMS, fine_aspects=FINE)


def _answered_per_fine_aspect(db: Path) -> Counter[str]:
    """Items answered by the oracle, per fine aspect (item qNNNN: general NNNN % 2, fine
    (NNNN // 2) % FINE, as quiz_store writes them)."""
    query = "SELECT item_id FROM responses WHERE model = ?"
    with contextlib.closing(sqlite3.connect(db)) as connection:
        ids = [row[0] for row in connection.execute(query, (ORACLE,))]
    return Counter(f"{int(i[1:]) % 2}-{(int(i[1:]) // 2) % FINE}" for i in ids)


def test_compare_asks_whole_fine_aspects_and_names_them(db: Path) -> None:
    report = evaluate_json(db, BENCH, *COMPARE, "--first-round", "10")
    budget = report["budget"]
    assert budget["answered"] and budget["order"] == [ORACLE, RANDOM]
    used = budget["items_used"]
    assert used % SIZE == 0 and SIZE <= used < ITEMS
    assert budget["cluster"] == "fine aspect" and budget["clusters_used"] == used // SIZE
    assert f"on {used} paired items (" in budget["decision"]
    assert f"paired test over {used // SIZE} fine-aspect clusters" in budget["decision"]
    # Every fine aspect asked was asked whole, and the two general aspects alternate.
    per_fine = _answered_per_fine_aspect(db)
    assert set(per_fine.values()) == {SIZE} and len(per_fine) == used // SIZE
    general = Counter(key.split("-")[0] for key in per_fine)
    assert abs(general["0"] - general["1"]) <= 1
    again = evaluate_json(db, BENCH, *COMPARE, "--first-round", "10")
    assert again["budget"]["requests"] == 0 and count_rows(db, "responses") == 2 * used
    assert again["budget"]["decision"] == budget["decision"]


def test_a_budget_buys_whole_clusters(db: Path) -> None:
    # 50 calls pay for 25 items of two examinees: two fine aspects of 10, never part of one.
    report = evaluate_json(db, BENCH, *COMPARE, "--budget", "50")
    assert report["budget"]["items_used"] == 2 * SIZE and report["budget"]["calls"] == 4 * SIZE
    assert set(_answered_per_fine_aspect(db).values()) == {SIZE}


def test_a_budget_below_one_cluster_is_refused(db: Path) -> None:
    result = CliRunner().invoke(
        app, ["evaluate", BENCH, *COMPARE, "--budget", "15", "--store", str(db)]
    )
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "--budget 15: the first fine aspect cluster drawn holds 10 items, 20 examinee" in text
    assert count_rows(db, "responses") == 0


def test_a_larger_budget_continues_the_same_cluster_draws(db: Path) -> None:
    """A run stopped by its budget, run again with more: it takes the same clusters first
    (their answers found stored, none asked twice) and goes on in the same order."""
    small = evaluate_json(db, BENCH, *COMPARE, "--budget", "50")["budget"]
    before = _answered_per_fine_aspect(db)
    assert small["items_used"] == 2 * SIZE and not small["answered"]
    more = evaluate_json(db, BENCH, *COMPARE)["budget"]
    assert more["answered"] and more["items_used"] > small["items_used"]
    assert more["requests"] == 2 * (more["items_used"] - small["items_used"])
    after = _answered_per_fine_aspect(db)
    assert all(after[key] == SIZE for key in before) and set(after.values()) == {SIZE}
    assert count_rows(db, "responses") == 2 * more["items_used"]


def test_a_money_cap_sizes_rounds_in_whole_clusters(db: Path) -> None:
    """Priced baselines (an item: two answers, $0.054 here): the probe is the first whole fine
    aspect, every later round whole fine aspects that fit what is left, the cap kept."""
    priced = [f"{m}?price=1000,2000" for m in (ORACLE, RANDOM)]
    args = ["-m", priced[0], "-m", priced[1], "--until", "compare", "--budget-usd", "6.5"]
    budget = evaluate_json(db, BENCH, *args)["budget"]
    used = budget["items_used"]
    assert used % SIZE == 0 and budget["money"]["used_usd"] <= 6.5
    assert budget["clusters_used"] == used // SIZE
    per_fine = _answered_per_fine_aspect(db)  # the price is no part of the stored identity
    assert sum(per_fine.values()) == used and set(per_fine.values()) == {SIZE}
