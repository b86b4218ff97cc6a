"""`judge metrics` on a tiny typer app (the command function alone, offline)."""

import json

import pytest
import typer
from typer.testing import CliRunner

from lvlmbench.cli.metrics import judge_metrics
from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response

pytest.importorskip("rouge_score")

app = typer.Typer()
app.command("metrics")(judge_metrics)


@app.callback()
def _root() -> None:
    """Make `metrics` a subcommand."""


runner = CliRunner()


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "s.db")
    store = Store.open(path)
    put_benchmark(store, "b", "open", {})
    put_items(
        store,
        [
            BenchmarkItem(id="i1", benchmark="b", question="Q?", reference="a red ball on a box"),
            BenchmarkItem(id="i2", benchmark="b", question="Q?", reference="two green cubes"),
        ],
    )
    put_responses(
        store,
        [
            Response(item_id="i1", model="m/good", text="a red ball on a box"),
            Response(item_id="i2", model="m/good", text="two green cubes"),
            Response(item_id="i1", model="m/bad", text="nothing"),
            Response(item_id="i2", model="m/bad", text="cubes"),
        ],
    )
    store.close()
    return path


def test_table_output_and_resume(db):
    args = ["metrics", "b", "-m", "m/good", "-m", "m/bad", "--metric", "rougeL"]
    result = runner.invoke(app, [*args, "--metric", "length", "--store", db])
    assert result.exit_code == 0, result.output
    assert "rougeL" in result.output and "m/good" in result.output
    assert "4 scores computed" not in result.output  # two metrics: 8 computed
    assert "8 scores computed, 0 already stored" in result.output
    again = runner.invoke(app, [*args, "--store", db])
    assert "0 scores computed, 4 already stored" in again.output


def test_json_output(db):
    result = runner.invoke(
        app, ["metrics", "b", "-m", "m/good", "-m", "m/bad", "--metric", "rougeL", "--store", db,
              "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    means = {s["model"]: s["mean"] for s in data["scores"]}
    assert means["m/good"] == 1.0 and means["m/bad"] < 1.0
    assert data["ratings"]["rougeL"]["win_rate"]["m/good"] == 1.0


def test_bad_input_is_exit_2(db):
    unknown = runner.invoke(
        app, ["metrics", "b", "-m", "m/good", "--metric", "bleu9", "--store", db]
    )
    assert unknown.exit_code == 2 and "bleu9" in unknown.output
    missing = runner.invoke(app, ["metrics", "nosuch", "-m", "m/good", "--store", db])
    assert missing.exit_code == 2 and "no benchmark 'nosuch'" in missing.output
    nobody = runner.invoke(
        app, ["metrics", "b", "-m", "m/none", "--metric", "length", "--store", db]
    )
    assert nobody.exit_code == 2 and "no ok responses" in nobody.output
