"""`lvlmbench import`: summary text and --json, exit code 2 with the row/column on bad input,
and the concatenation utility behind --concat-images."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli.importing import import_dataset
from lvlmbench.images import concatenate
from lvlmbench.store import Store, iter_items, list_benchmarks

app = typer.Typer()
app.command("import")(import_dataset)
app.command("noop", hidden=True)(lambda: None)  # two commands: typer keeps the "import" name
runner = CliRunner()


def _jsonl(tmp_path: Path, b64: Callable[[str], str]) -> Path:
    records = [
        {"id": "a", "question": "Compare.", "images": [b64("red"), b64("blue")], "reference": "x"},
        {"id": "b", "question": "Caption.", "image": "https://example.com/b.png"},
    ]
    path = tmp_path / "cli-set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    return path


def test_cli_import_json_summary(tmp_path: Path, b64: Callable[[str], str]) -> None:
    path = _jsonl(tmp_path, b64)
    db = str(tmp_path / "cli.db")
    args = ["import", str(path), "--format", "jsonl", "--store", db, "--json", "--concat-images"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["benchmark"] == "cli-set" and summary["items_added"] == 2
    assert summary["images"] == 2 and summary["concatenated"] == 1
    assert summary["urls_not_fetched"] == ["https://example.com/b.png"]
    store = Store.open(db)
    try:
        first = next(iter_items(store, "cli-set"))
        assert len(first.images) == 1 and len(first.meta["original_images"]) == 2
    finally:
        store.close()
    text = runner.invoke(
        app, ["import", str(path), "-f", "jsonl", "--name", "again", "--store", db]
    )
    assert text.exit_code == 0, text.output
    assert "2 items added" in text.output and "1 image URL(s) not fetched" in text.output


def test_cli_bad_input_exits_2_and_names_the_row(tmp_path: Path, b64: Callable[[str], str]) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({"question": "ok", "image": b64("red")}) + "\n{\n")
    db = str(tmp_path / "cli.db")
    result = runner.invoke(app, ["import", str(path), "--format", "jsonl", "--store", db])
    assert result.exit_code == 2
    assert "broken.jsonl, row 2: not valid JSON" in " ".join(result.output.split())
    store = Store.open(db)
    try:
        assert list_benchmarks(store) == []
    finally:
        store.close()
    unknown = runner.invoke(app, ["import", str(path), "--format", "csv", "--store", db])
    assert unknown.exit_code == 2


def test_concatenate_pads_and_limits_size(png: Callable[..., bytes]) -> None:
    joined = Image.open(io.BytesIO(concatenate([png("red", (10, 4)), png("blue", (6, 8))], gap=2)))
    assert joined.size == (18, 8)
    assert joined.getpixel((0, 0)) == (255, 255, 255)  # padding above the shorter image
    assert joined.getpixel((0, 3)) == (255, 0, 0)
    assert joined.getpixel((11, 0)) == (255, 255, 255)  # the gap
    assert joined.getpixel((15, 0)) == (0, 0, 255)
    small = Image.open(io.BytesIO(concatenate([png("red", (300, 100))] * 3, max_width=200)))
    assert small.width <= 200 and small.height <= 100
    with pytest.raises(ValueError, match="at least one image"):
        concatenate([])
    with pytest.raises(ValueError, match="image 1 is not readable"):
        concatenate([png("red"), b"nope"])


def test_cli_votes_summary(tmp_path: Path, b64: Callable[[str], str]) -> None:
    path = _jsonl(tmp_path, b64)
    db = str(tmp_path / "cli.db")
    assert runner.invoke(app, ["import", str(path), "-f", "jsonl", "--store", db]).exit_code == 0
    votes = tmp_path / "votes.csv"
    votes.write_text("instance,A_model,B_model,w1,w2\na,m/x,m/y,A,tie\n1,m/x,m/y,b,\n")
    args = ["import", str(votes), "-f", "votes", "--name", "cli-set", "--store", db]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "3 human votes from 2 rows (3 new) by 2 annotators (w1, w2)" in result.output
    missing = runner.invoke(app, ["import", str(votes), "-f", "votes", "--store", db])
    assert missing.exit_code == 2 and "no benchmark 'votes'" in missing.output
