"""The Python API: the README's worked example runs as written, and each function returns the
library's typed results (judge and rate on a scripted judge; nothing reaches a network)."""

from __future__ import annotations

import asyncio
import re
import runpy
from pathlib import Path

import pytest
from fakes import ScriptedModel

from lvlmbench import api
from lvlmbench.api import _judges as api_judges
from lvlmbench.choice.accuracy import AccuracyRow
from lvlmbench.judging import PairwiseReport
from lvlmbench.models import RegistryError
from lvlmbench.store import NotInStore, Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Message, ModelOutput, Response

EXAMPLE = Path(__file__).parents[2] / "docs" / "api_example.py"


def test_readme_example_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # Not as __main__: the renderer's worker processes would re-run a main module (as they
    # would a script without a main guard, which the example's comment asks for).
    runpy.run_path(str(EXAMPLE), run_name="api_example")
    out = capsys.readouterr().out
    items = int(re.search(r"spatial-understanding-s0: (\d+) items", out).group(1))  # type: ignore[union-attr]
    assert items == 2 * 2 * 3  # n × m fine aspects × 3 levels, one image each
    # The oracle knows every key; a random guesser cannot be perfect on a dozen items.
    assert f"baseline/oracle: 100.0% (95% CI 76-100), n={items}" in out
    random_line = re.search(r"baseline/random: ([\d.]+)%.*n=(\d+)", out)
    assert random_line is not None and float(random_line.group(1)) < 100
    assert int(random_line.group(2)) == items
    assert "spatial-understanding-s0 autobench 12 ['baseline/oracle', 'baseline/random']" in out
    assert (tmp_path / "notebook.db").exists()
    assert (tmp_path / "notebook-report" / "report.html").stat().st_size > 1000
    assert (tmp_path / "notebook-report" / "leaderboard.csv").exists()


def test_evaluate_returns_rows_that_match_the_store_and_resumes(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    made = api.generate("spatial understanding", store=db, n=1, m=2, per_aspect=1)
    first = api.evaluate(made.benchmark, ["baseline/oracle"], store=db, by=["difficulty"])
    assert [run.ok for run in first.runs] == [made.items]
    assert {row.group for row in first.accuracy} == {("easy",), ("medium",), ("hard",)}
    assert all(isinstance(row, AccuracyRow) for row in first.accuracy)
    assert first.overall_accuracy() == {"baseline/oracle": 1.0}
    again = api.evaluate(made.benchmark, ["baseline/oracle"], store=db)
    assert [(run.ok, run.skipped) for run in again.runs] == [(0, made.items)]
    assert again.overall == first.overall


def test_works_under_a_running_event_loop(tmp_path: Path) -> None:
    """A notebook cell runs inside an event loop: asyncio.run alone would refuse."""
    db = str(tmp_path / "s.db")

    async def cell() -> api.GenerationResult:
        return api.generate("spatial understanding", store=db, n=1, m=1, per_aspect=1)

    made = asyncio.run(cell())
    assert made.items == 3
    assert [b.name for b in api.ls(db)] == [made.benchmark]


def test_bad_arguments_raise_before_anything_is_written(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    made = api.generate("spatial understanding", store=str(db), n=1, m=1, per_aspect=1)
    with pytest.raises(NotInStore, match="did you mean 'spatial-understanding-s0'"):
        api.evaluate("spatial-understandin-s0", ["baseline/random"], store=str(db))
    with pytest.raises(RegistryError):
        api.evaluate(made.benchmark, ["baseline/random", "nosuch/model"], store=str(db))
    with pytest.raises(ValueError, match="variant"):
        api.evaluate(made.benchmark, ["baseline/random"], store=str(db), variant="odd")
    with pytest.raises(ValueError, match="examiner procedural"):
        api.generate("spatial understanding", store=str(db), mode="text")
    assert api.ls(str(db))[0].models == []  # the random baseline never ran
    fresh = tmp_path / "fresh.db"
    with pytest.raises(NotInStore, match="it has no benchmarks yet"):
        api.evaluate("anything", ["baseline/random"], store=str(fresh))
    assert not fresh.exists() and not (tmp_path / "fresh.db-wal").exists()


BENCH = "api-open"


def _judge_reply(messages: list[Message]) -> ModelOutput:
    text = messages[-1].text()
    answer_a = re.search(r'Response A:\n"""\n(.*?)\n"""', text, re.S)
    return ModelOutput(text="[[A]]" if answer_a and "GOOD" in answer_a.group(1) else "[[B]]")


def test_judge_and_rate_return_typed_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    items = [
        BenchmarkItem(
            id=f"o{i}",
            benchmark=BENCH,
            question=f"Describe picture {i}.",
            reference=f"A cat. ({i})",
            category="description",
        )
        for i in range(4)
    ]
    put_benchmark(store, BENCH, "open", {})
    put_items(store, items)
    answers = {"m/good": "GOOD cat", "m/bad": "meh"}
    put_responses(
        store,
        [Response(item_id=it.id, model=m, text=t) for it in items for m, t in answers.items()],
    )
    # The judge use case's front door resolves and loads specs where api.judge lives.
    monkeypatch.setattr(api_judges, "resolve_spec", lambda spec: spec)
    monkeypatch.setattr(
        api_judges,
        "load_chat_model",
        lambda spec, **_: ScriptedModel(steps=[_judge_reply] * 200, spec=spec),
    )
    summary = api.judge(BENCH, ["m/good", "m/bad"], "x/judge", store=store)
    assert (summary.protocol, summary.failed) == ("pairwise-ref", 0)
    assert summary.ok > 0
    rated = api.rate(BENCH, store=store)  # the one judge with rows is taken
    assert isinstance(rated, PairwiseReport)
    assert rated.pairs > 0
    assert rated.as_dict() == api.rate(BENCH, "x/judge", store=store).as_dict()
    with pytest.raises(ValueError, match="no pairwise judgments"):
        api.rate(BENCH, "y/other", store=store)
    listed = api.ls(store)
    assert [(b.name, b.models, b.judges) for b in listed] == [
        (BENCH, ["m/bad", "m/good"], ["x/judge"])
    ]
    store.close()
