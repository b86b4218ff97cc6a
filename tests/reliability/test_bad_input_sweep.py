"""Bad input of every kind: a clear error naming the place, exit code 2, the store unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store
from lvlmbench.store import _schema as tables

runner = CliRunner()

Writer = Callable[[Path], Path]


def _corrupt_png(folder: Path) -> Path:
    (folder / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    path = folder / "corrupt_png.jsonl"
    path.write_text(json.dumps({"question": "What?", "image": "broken.png"}) + "\n")
    return path


def _truncated_jsonl(folder: Path) -> Path:
    path = folder / "truncated.jsonl"
    path.write_text('{"question": "one", "reference": "a"}\n{"question": "two", "refer')
    return path


def _wrong_columns(folder: Path) -> Path:
    path = folder / "wrong_columns.csv"
    path.write_text("prompt,picture,answer\nWhat?,a.png,yes\n")
    return path


def _not_utf8(folder: Path) -> Path:
    path = folder / "latin1.csv"
    path.write_bytes("instruction,image,reference_output\ncafé?,a.png,ok\n".encode("latin-1"))
    return path


def _empty(folder: Path) -> Path:
    path = folder / "empty.jsonl"
    path.write_bytes(b"")
    return path


def _gigantic(folder: Path) -> Path:
    path = folder / "gigantic.jsonl"
    path.write_text(json.dumps({"question": "x" * 1_000_000, "reference": "r"}) + "\n")
    return path


CASES: list[tuple[Writer, str, list[str]]] = [
    (_corrupt_png, "jsonl", ["row 1", "'image'", "not a readable image"]),
    (_truncated_jsonl, "jsonl", ["row 2", "not valid JSON"]),
    (_wrong_columns, "visit", ["missing required column 'instruction'", "the header has"]),
    (_not_utf8, "visit", ["not UTF-8"]),
    (_empty, "jsonl", ["no items"]),
    (_gigantic, "jsonl", ["row 1", "'question'", "expected at most"]),
]


def _snapshot(db: Path) -> tuple[int, int, int, list[str]]:
    store = Store.open(str(db))
    try:
        counts = (
            store.count(tables.items),
            store.count(tables.benchmarks),
            store.count(tables.images),
        )
        files = sorted(p.name for p in store.images_dir.glob("*.png"))
        return (*counts, files)
    finally:
        store.close()


@pytest.fixture
def populated(tmp_path: Path) -> Path:
    """A store that already holds an imported benchmark (with an image)."""
    from PIL import Image

    Image.new("RGB", (8, 8), (10, 200, 10)).save(tmp_path / "good.png")
    good = tmp_path / "good.jsonl"
    good.write_text(
        json.dumps({"question": "Colour?", "image": "good.png", "reference": "green"}) + "\n"
    )
    db = tmp_path / "store.db"
    result = runner.invoke(app, ["import", str(good), "-f", "jsonl", "--store", str(db)])
    assert result.exit_code == 0, result.output
    return db


@pytest.mark.parametrize(("write", "fmt", "needles"), CASES, ids=[c[0].__name__ for c in CASES])
def test_bad_dataset_files_exit_2_and_change_nothing(
    populated: Path, tmp_path: Path, write: Writer, fmt: str, needles: list[str]
) -> None:
    before = _snapshot(populated)
    assert before[0] == 1 and len(before[3]) == 1  # the good import is there to be lost
    bad = write(tmp_path)
    result = runner.invoke(app, ["import", str(bad), "-f", fmt, "--store", str(populated)])
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert bad.name in message, message
    for needle in needles:
        assert needle in message, (needle, message)
    assert "Traceback" not in result.output
    assert _snapshot(populated) == before


def test_a_corrupt_image_for_models_check_is_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    result = runner.invoke(app, ["models", "check", "baseline/pixels", "--image", str(broken)])
    assert result.exit_code == 2, result.output
    assert "broken.png" in result.output and "not a readable image" in result.output
