"""CircularEval over the questions a model was asked: a question with a copy never asked (a
partial run, an interrupted one, a --limit subset seen from the whole benchmark) is neither
right nor wrong; it is left out and counted "not asked". A copy that failed still counts
wrong, as VLMEvalKit counts it. Before, an oracle asked every copy of 1 of 3 questions read
33.3 % ("1/3, incomplete 2"): its unasked questions read as its failures."""

from __future__ import annotations

from pathlib import Path

from prediction_fixtures import write_mmbench
from typer.testing import CliRunner

from lvlmbench.choice.vlmeval_scores import circular_table
from lvlmbench.cli import app
from lvlmbench.report import benchmark_summary, render_benchmark
from lvlmbench.store import Store, iter_items, put_responses
from lvlmbench.types import Response, Status

runner = CliRunner()
BENCH = "MMBench_DEV_EN"


def _store(tmp_path: Path) -> Store:
    db = tmp_path / "s.db"
    dataset = write_mmbench(tmp_path / f"{BENCH}.tsv")
    assert runner.invoke(app, ["import", str(dataset), "--store", str(db)]).exit_code == 0
    store = Store.open(str(db))
    items = list(iter_items(store, BENCH))
    first = [i for i in items if int(i.meta["index"]) % 1_000_000 == 1]
    second = [i for i in items if int(i.meta["index"]) % 1_000_000 == 2]
    assert len(first) == 3 and len(second) == 2
    said = [
        Response(item_id=i.id, model="part", text=str(i.answer), extracted=i.answer) for i in first
    ]
    # Question 2: both copies asked, one failed: counted wrong (incomplete), not left out.
    said.append(
        Response(item_id=second[0].id, model="part", text=str(second[0].answer),
                 extracted=second[0].answer)
    )  # fmt: skip
    said.append(Response(item_id=second[1].id, model="part", text="", status=Status.ERROR))
    put_responses(store, said)
    return store


def test_unasked_questions_are_left_out_and_counted(tmp_path: Path) -> None:
    store = _store(tmp_path)
    try:
        (row,) = circular_table(store, BENCH, models=["part"])
        html = render_benchmark(benchmark_summary(store, BENCH))
    finally:
        store.close()
    # Questions: 1 right in all 3 copies; 2 failed in one copy (wrong); 3 never asked.
    assert (row.questions, row.unasked, row.incomplete) == (3, 1, 1)
    assert (row.questions_correct, row.asked) == (1, 2)
    assert row.circular_accuracy == 0.5
    assert row.as_dict()["unasked"] == 1
    assert '<td data-model="part" data-facet="unasked">1</td>' in html
    assert '<td data-model="part" data-facet="circular">50.0</td>' in html
