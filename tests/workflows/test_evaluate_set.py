"""Several benchmarks in one run: `evaluate B1 B2 -m ...`, `evaluate --set FILE` and
`api.evaluate_many` give each benchmark's own result and one summary across them, flag a model
that answered only part of a benchmark, and check every benchmark before the first is asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.store import (
    Store,
    iter_items,
    iter_responses,
    put_benchmark,
    put_items,
    put_responses,
)
from lvlmbench.types import Response
from lvlmbench.workflows import InvalidOptions

runner = CliRunner()
ORACLE = "baseline/oracle"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Two keyed benchmarks (6 and 9 items); MyVLM's imported answers cover 2 of quiz's 6
    (both right) and 1 of quiz2's 9 (wrong)."""
    path = write_quiz(tmp_path / "s.db", "quiz", 6)
    write_quiz(tmp_path / "other.db", "quiz2", 9)
    store = Store.open(str(path))
    other = Store.open(str(tmp_path / "other.db"))
    try:
        put_benchmark(store, "quiz2", "autobench", {})
        # write_quiz numbers items alike: give quiz2's their own ids in this store.
        renamed = [i.model_copy(update={"id": f"z{i.id}"}) for i in iter_items(other, "quiz2")]
        put_items(store, renamed)
        items = list(iter_items(store, "quiz"))[:2]
        put_responses(
            store,
            [Response(item_id=i.id, model="MyVLM", text=i.answer or "", extracted=i.answer)
             for i in items],
        )  # fmt: skip
        wrong = next(iter_items(store, "quiz2"))
        answer = "B" if wrong.answer == "A" else "A"
        put_responses(store, [Response(item_id=wrong.id, model="MyVLM", text=answer,
                                       extracted=answer)])  # fmt: skip
    finally:
        store.close()
        other.close()
    return path


def _json(db: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["evaluate", *args, "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def _responses(db: Path) -> int:
    store = Store.open(str(db))
    try:
        return sum(1 for _ in iter_responses(store))
    finally:
        store.close()


def test_one_run_over_two_benchmarks_summarises_across_them(db: Path) -> None:
    out = _json(db, "quiz", "quiz2", "-m", ORACLE, "-m", "MyVLM", "--by", "")
    assert list(out["benchmarks"]) == ["quiz", "quiz2"]
    summary = {(r["benchmark"], r["model"]): r for r in out["summary"]}
    oracle = summary["quiz", ORACLE]
    assert (oracle["accuracy"], oracle["items"], oracle["keyed_items"]) == (1.0, 6, 6)
    assert oracle["complete"] and summary["quiz2", ORACLE]["keyed_items"] == 9
    partial = summary["quiz", "MyVLM"]  # 2 of 6 answered, both right: 100 % over 2 items
    assert (partial["accuracy"], partial["items"], partial["complete"]) == (1.0, 2, False)
    one = summary["quiz2", "MyVLM"]
    assert (one["accuracy"], one["items"], one["complete"]) == (0.0, 1, False)
    # Each benchmark's own report is what evaluating it alone gives.
    alone = _json(db, "quiz2", "-m", ORACLE, "-m", "MyVLM", "--by", "")
    assert out["benchmarks"]["quiz2"]["overall"] == alone["overall"]
    shown = runner.invoke(app, ["evaluate", "quiz", "quiz2", "-m", ORACLE, "-m", "MyVLM",
                                "--store", str(db)])  # fmt: skip
    assert "across benchmarks" in shown.output and "2 of 6 items" in shown.output


def test_an_unknown_benchmark_anywhere_in_the_list_stops_before_anything_is_asked(
    db: Path,
) -> None:
    result = runner.invoke(app, ["evaluate", "quiz", "nope", "-m", ORACLE, "--store", str(db)])
    assert result.exit_code == 2 and "nope" in result.output
    assert _responses(db) == 3  # MyVLM's imported answers only


def test_an_eval_set_file_runs_as_the_command_line_and_the_api(db: Path, tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    study.write_text(
        'benchmarks = ["quiz", "quiz2"]\nmodels = ["baseline/oracle", "baseline/random"]\n'
        "[settings]\nlimit = 3\nby = []\n"
    )
    out = _json(db, "--set", str(study))
    rows = [(r["benchmark"], r["model"], r["items"]) for r in out["summary"]]
    assert rows == [("quiz", ORACLE, 3), ("quiz", "baseline/random", 3),
                    ("quiz2", ORACLE, 3), ("quiz2", "baseline/random", 3)]  # fmt: skip
    through_api = api.evaluate_many(api.read_eval_set(study), store=db)
    got = [(r.benchmark, r.model, r.answered, r.overall and r.overall.accuracy)
           for r in through_api.rows]  # fmt: skip
    assert got == [(r["benchmark"], r["model"], r["items"], r["accuracy"]) for r in out["summary"]]


def test_an_eval_set_file_is_checked_and_not_mixed_with_flags(db: Path, tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    study.write_text('benchmarks = ["quiz"]\nmodels = ["baseline/oracle"]\n[settings]\nlimt = 3\n')
    bad = runner.invoke(app, ["evaluate", "--set", str(study), "--store", str(db)])
    assert bad.exit_code == 2 and "unknown setting 'limt'" in bad.output
    assert str(study) in bad.output
    study.write_text('benchmarks = ["quiz"]\nmodels = ["baseline/oracle"]\n')
    both = runner.invoke(app, ["evaluate", "--set", str(study), "--limit", "2", "--store", str(db)])
    assert both.exit_code == 2 and "--limit was given too" in both.output
    with pytest.raises(InvalidOptions, match="not a TOML"):
        study.write_text("benchmarks = [")
        api.read_eval_set(study)
    assert _responses(db) == 3
