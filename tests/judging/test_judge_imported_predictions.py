"""Imported prediction files are judged like any model: VisIT-Bench '<model> prediction'
columns → `judge pairwise` (a scripted judge) → `rate`, without the imported names ever being
run (they are no model specs) and without asking them for the answers their file lacks."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from fakes import ScriptedModel
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.cli import judge as judge_cli
from lvlmbench.types import Message, ModelOutput

runner = CliRunner()
HEADER = ["instruction", "instruction_category", "image", "instruction_conditioned_caption"]
ROWS = [
    ["Describe the dog.", "description", "https://ex.org/v/dog.jpg", "A brown dog on grass."],
    ["Name the cat.", "naming", "https://ex.org/v/cat.jpg", "A grey cat called Tom."],
]


def _judge_reply(messages: list[Message]) -> ModelOutput:
    text = messages[-1].text()
    a = re.search(r'Response A:\n"""\n(.*?)\n"""', text, re.S)
    return ModelOutput(text="[[A]]" if a and "GOOD" in a.group(1) else "[[B]]")


def _csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_pairwise_judge_and_rate_on_imported_predictions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "s.db")
    with_reference = [[*r, "ref"] for r in ROWS]
    dataset = _csv(tmp_path / "visit.csv", [*HEADER, "reference_output"], with_reference)
    assert runner.invoke(app, ["import", str(dataset), "-f", "visit", "--store", db]).exit_code == 0
    columns = [*HEADER, "good-vlm prediction", "weak vlm prediction"]
    # weak vlm has no answer for the second row: an error response, never asked again.
    rows = [[*ROWS[0], "GOOD dog", "a dog"], [*ROWS[1], "GOOD Tom", ""]]
    preds = _csv(tmp_path / "predictions.csv", columns, rows)
    args = ["import", str(preds), "-f", "predictions", "--name", "visit", "--store", db]
    imported = runner.invoke(app, args)
    assert imported.exit_code == 0, imported.output
    asked: list[str] = []

    def load(spec: str, **_: object) -> ScriptedModel:
        asked.append(spec)
        return ScriptedModel(steps=[_judge_reply] * 50, spec=spec)

    monkeypatch.setattr(judge_cli, "load_chat_model", load)
    args = ["judge", "pairwise", "visit", "-m", "good-vlm", "-m", "weak vlm"]
    args += ["--judge", "openai/judge-model", "--json", "--store", db]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert asked == ["openai/judge-model"]  # only the judge was loaded
    # One item has both answers: judged in both orders.
    assert data["run"]["ok"] == 2
    assert set(data["ratings"]["online_elo"]["shuffled_mean"]) == {"good-vlm", "weak vlm"}
    rated = runner.invoke(app, ["rate", "visit", "--store", db])
    assert rated.exit_code == 0, rated.output
    assert "good-vlm" in rated.output and "weak vlm" in rated.output
