"""api.judge refuses what `lvlmbench judge` refuses: a run that judged nothing raises with the
command line's message (the command exits 1) instead of returning a summary of missing units."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.store import Store, iter_judgments, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response
from lvlmbench.workflows import NothingJudged

BENCH = "no-references"
MODELS = ["baseline/prior", "baseline/random"]


def _store_without_references(path: Path) -> str:
    """Four open-ended items with no reference answer, both models' answers stored: a
    reference-backed pairwise judge has no unit it can build."""
    store = Store.open(str(path))
    items = [
        BenchmarkItem(id=f"o{i}", benchmark=BENCH, question=f"Describe {i}.", category="d")
        for i in range(4)
    ]
    put_benchmark(store, BENCH, "open", {})
    put_items(store, items)
    put_responses(
        store, [Response(item_id=it.id, model=m, text=f"{m} says") for it in items for m in MODELS]
    )
    store.close()
    return str(path)


def test_api_judge_raises_where_the_cli_exits_1(tmp_path: Path) -> None:
    db = _store_without_references(tmp_path / "s.db")
    with FakeOpenAIServer() as server:
        judge = f"openai/judge?base_url={server.base_url}"
        models = [flag for m in MODELS for flag in ("-m", m)]
        result = CliRunner().invoke(
            app, ["judge", "pairwise", BENCH, *models, "-j", judge, "--store", db]
        )
        assert result.exit_code == 1, result.output
        assert "lacks an answer, caption or reference" in result.output
        # 4 items x 1 pair x 2 orders, none buildable without a reference.
        with pytest.raises(NothingJudged, match="every unit \\(8\\) lacks") as refused:
            api.judge(BENCH, MODELS, judge, store=db)
        assert str(refused.value).splitlines()[0] in " ".join(result.output.split())
    store = Store.open(db)
    assert list(iter_judgments(store)) == []  # nothing judged, nothing stored either way
    store.close()
