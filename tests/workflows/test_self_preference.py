"""An examinee that also wrote the AutoBench-V benchmark it is scored on is named with a
warning (self-preference), whatever its settings; the figure itself is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, put_benchmark

runner = CliRunner()


def test_the_examiner_answering_its_own_benchmark_is_warned_about(tmp_path: Path) -> None:
    db = write_quiz(tmp_path / "s.db", "quiz", 6)
    store = Store.open(str(db))
    # As generate stores it: "<examiner spec> (<mode> mode) + <images spec>".
    report = {"examiner": "baseline/random?temperature=0.3 (text mode) + procedural"}
    put_benchmark(store, "quiz", "autobench", report)
    store.close()
    args = ["evaluate", "quiz", "-m", "baseline/random", "-m", "baseline/oracle", "--by", ""]
    out = runner.invoke(app, [*args, "--store", str(db), "--json"])
    assert out.exit_code == 0, out.output
    warnings = json.loads(out.stdout)["warnings"]
    assert len(warnings) == 1 and warnings[0].startswith("baseline/random also wrote quiz")
    assert "self-preference" in warnings[0]
    shown = runner.invoke(app, [*args, "--store", str(db)])
    assert "also wrote quiz" in shown.output and "baseline/oracle also" not in shown.output


def test_no_warning_where_no_model_wrote_the_benchmark(tmp_path: Path) -> None:
    db = write_quiz(tmp_path / "s.db", "quiz", 4)  # no examiner stored (procedural or imported)
    out = runner.invoke(app, ["evaluate", "quiz", "-m", "baseline/random", "--store", str(db),
                              "--json"])  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "warnings" not in json.loads(out.stdout)
