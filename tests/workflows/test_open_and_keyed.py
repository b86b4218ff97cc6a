"""Open-ended items go to a judge, keyed ones to evaluate, and each front door says so: `judge`
on a benchmark with no open-ended item is one clear error before anything is asked (the CLI
exits 2, the API raises InvalidOptions); `evaluate` on open-ended items stores the answers and
names the judge command instead of printing an empty accuracy table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem
from lvlmbench.workflows import InvalidOptions

runner = CliRunner()


def _responses(db: Path) -> int:
    store = Store.open(str(db))
    try:
        return sum(1 for _ in iter_responses(store))
    finally:
        store.close()


def test_judging_a_benchmark_of_keyed_items_is_refused_before_anything_is_asked(
    tmp_path: Path,
) -> None:
    db = write_quiz(tmp_path / "s.db", "quiz", 6)
    args = ["judge", "pairwise", "quiz", "-m", "baseline/random", "-m", "baseline/prior"]
    result = runner.invoke(app, [*args, "-j", "baseline/random", "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert "no open-ended items (6 multiple-choice)" in result.output
    assert "lvlmbench evaluate quiz" in result.output
    with pytest.raises(InvalidOptions, match="no open-ended items"):
        api.judge("quiz", ["baseline/random", "baseline/prior"], "baseline/random", store=db)
    assert _responses(db) == 0  # on main both examinees were asked all 6 items first


def _open_store(path: Path) -> Path:
    store = Store.open(str(path))
    put_benchmark(store, "chat", "visit", {})
    items = [
        BenchmarkItem(id=f"o{i}", benchmark="chat", question=f"Describe scene {i}.", reference="x")
        for i in range(3)
    ]
    put_items(store, [*items, *_keyed(2)])
    store.close()
    return path


def _keyed(n: int) -> list[BenchmarkItem]:
    options = {"A": "red", "B": "green"}
    return [
        BenchmarkItem(
            id=f"k{i}", benchmark="chat", question="Which?", kind="mc", options=options, answer="A"
        )
        for i in range(n)
    ]


def test_evaluate_names_the_judge_for_the_open_ended_items_it_cannot_score(
    tmp_path: Path,
) -> None:
    db = _open_store(tmp_path / "s.db")
    args = ["evaluate", "chat", "-m", "baseline/random", "--store", str(db)]
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["open_items"] == 3
    assert report["judge_with"].startswith("lvlmbench judge pairwise chat -m baseline/random")
    assert report["overall"][0]["answered"] == 2  # the keyed items are scored as before
    shown = runner.invoke(app, args)
    assert "3 open-ended items" in shown.output and "lvlmbench judge pairwise chat" in shown.output
    assert _responses(db) == 5
