"""Validation progress: importers report (rows validated, rows in the file) while they check the
whole file, without changing what they accept or the errors they raise."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.datasets import DatasetError, import_dataset, parse_items
from lvlmbench.store import Store

ROWS = 7


def _table(path: Path, delimiter: str, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(header)
        for index, row in enumerate(rows):
            writer.writerow(row)
            if index == 2:
                writer.writerow([""] * len(header))  # a blank line is no row
    return path


def _touchstone(path: Path, b64: Callable[[str], str], rows: int = ROWS) -> Path:
    header = ["index", "question", "image"]
    return _table(
        path, "\t", header, [[str(i), f"Q{i} multi\nline?", b64("red")] for i in range(rows)]
    )


def _vlmeval(path: Path, b64: Callable[[str], str]) -> Path:
    header = ["index", "question", "image", "answer", "A", "B"]
    rows = [[str(i), f"Q{i}?", b64("blue"), "A", "yes", "no"] for i in range(ROWS)]
    return _table(path, "\t", header, rows)


def _visit(path: Path, b64: Callable[[str], str]) -> Path:
    header = ["instance_id", "instruction", "image"]
    return _table(path, ",", header, [[f"v{i}", f"Do {i}.", b64("green")] for i in range(ROWS)])


def _jsonl(path: Path, b64: Callable[[str], str]) -> Path:
    lines = [
        json.dumps({"id": f"j{i}", "question": f"Q{i}?", "image": b64("grey")}) for i in range(ROWS)
    ]
    path.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    return path


WRITERS = {"touchstone": _touchstone, "vlmeval": _vlmeval, "visit": _visit, "jsonl": _jsonl}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_validation_progress_counts_up_to_the_rows(
    tmp_path: Path, b64: Callable[[str], str], fmt: str
) -> None:
    path = WRITERS[fmt](tmp_path / f"data.{fmt}", b64)
    calls: list[tuple[int, int]] = []
    parsed = parse_items(path, fmt, on_progress=lambda done, total: calls.append((done, total)))
    assert len(parsed) == ROWS
    assert [done for done, _ in calls] == list(range(1, ROWS + 1))
    assert {total for _, total in calls} == {ROWS}


def test_import_reports_validation_then_writes(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    path = _touchstone(tmp_path / "ts.tsv", b64)
    phases: list[tuple[str, int, int]] = []
    summary = import_dataset(
        store,
        path,
        "touchstone",
        "ts",
        on_validate=lambda d, t: phases.append(("validate", d, t)),
        on_progress=lambda d, t: phases.append(("write", d, t)),
    )
    assert summary.rows == ROWS
    expected = [("validate", i, ROWS) for i in range(1, ROWS + 1)]
    assert phases == expected + [("write", i, ROWS) for i in range(1, ROWS + 1)]


def test_errors_are_unchanged_by_progress(tmp_path: Path, b64: Callable[[str], str]) -> None:
    # Row 3 has no question and row 5 too few cells: validation stops at row 3 either way, and
    # the count never goes past the rows that passed.
    header = ["index", "question", "image"]
    rows = [["0", "Q?", b64("red")], ["1", "Q?", b64("red")], ["2", "", b64("red")], ["4"]]
    path = _table(tmp_path / "bad.tsv", "\t", header, rows)
    with pytest.raises(DatasetError) as plain:
        parse_items(path, "touchstone")
    calls: list[tuple[int, int]] = []
    with pytest.raises(DatasetError) as hooked:
        parse_items(path, "touchstone", on_progress=lambda d, t: calls.append((d, t)))
    assert str(hooked.value) == str(plain.value)
    assert "row 3" in str(plain.value)
    assert [done for done, _ in calls] == [1, 2]
    assert all(done <= total for done, total in calls)


def test_not_utf8_is_still_reported_with_progress(tmp_path: Path) -> None:
    path = tmp_path / "latin1.tsv"
    path.write_bytes("index\tquestion\timage\n0\tcaf\xe9?\tx\n".encode("latin-1"))
    with pytest.raises(DatasetError, match="not UTF-8 text"):
        parse_items(path, "touchstone", on_progress=lambda d, t: None)


def test_cli_shows_a_validating_bar_but_not_for_json(
    tmp_path: Path, b64: Callable[[str], str]
) -> None:
    path = _touchstone(tmp_path / "ts.tsv", b64)
    runner = CliRunner()
    base = ["import", str(path), "--format", "touchstone", "--store", str(tmp_path / "s.db")]
    text = runner.invoke(app, base)
    assert text.exit_code == 0, text.output
    assert "validating ts.tsv" in text.output and f"{ROWS}/{ROWS}" in text.output
    assert "importing ts.tsv" in text.output
    as_json = runner.invoke(app, [*base, "--name", "again", "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.output)["rows"] == ROWS
