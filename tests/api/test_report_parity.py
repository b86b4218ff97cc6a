"""`api.report` and `lvlmbench report` are one use case: a store with nothing to report on is
refused by both (the CLI exits 2), never written as a page of empty tables that would read as
"every model scored nothing"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem
from lvlmbench.workflows import InvalidOptions


def test_a_benchmark_without_answers_is_refused_by_both(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = Store.open(str(db))
    put_benchmark(store, "quiet", "open", {})
    put_items(store, [BenchmarkItem(id="q1", benchmark="quiet", question="Why?")])
    store.close()
    out = tmp_path / "r.html"
    shown = CliRunner().invoke(app, ["report", "--out", str(out), "--store", str(db)])
    assert shown.exit_code == 2 and "no responses or judgments on quiet" in shown.output
    with pytest.raises(InvalidOptions, match="no responses or judgments on quiet"):
        api.report(out, store=str(db))
    assert not out.exists()
