"""Bad input: every error names the file, the row and the column and says what was expected, and
an import that fails writes nothing (not even the rows before the bad one)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lvlmbench.datasets import DatasetError, import_dataset
from lvlmbench.store import Store, list_benchmarks

VISIT = ["instruction", "image", "reference_output"]
TS = ["index", "question", "human_annotation", "gpt4_ha_answer", "category", "task_name", "image"]
VLM = ["index", "question", "A", "B", "answer", "image"]


def _table(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    with path.open("w", newline="") as handle:
        csv.writer(handle, delimiter=delimiter).writerows(rows)
    return path


def _fails(store: Store, path: Path, fmt: str, pattern: str) -> None:
    with pytest.raises(DatasetError, match=pattern) as caught:
        import_dataset(store, path, fmt, "bad")
    assert str(path) in str(caught.value)
    assert list_benchmarks(store) == []
    assert not store.images_dir.exists() or not list(store.images_dir.iterdir())


def test_visit_errors(tmp_path: Path, store: Store, b64: Callable[[str], str]) -> None:
    ok = ["Describe.", b64("red"), "Red."]
    path = tmp_path / "v.csv"
    _table(path, [["instruction", "reference_output"], ["Describe.", "Red."]])
    _fails(store, path, "visit", r"missing required column 'image'")
    _table(path, [VISIT, ok, ["", b64("red"), "x"]])
    _fails(store, path, "visit", r"row 2 \(line 3\), column 'instruction': expected the instr")
    _table(path, [VISIT, ok, ["Describe.", "", "x"]])
    _fails(store, path, "visit", r"row 2 \(line 3\), column 'image': expected at least one image")
    _table(path, [VISIT, ok, ["Describe.", "missing/cat.png", "x"]])
    _fails(store, path, "visit", r"row 2 \(line 3\), column 'image': image file not found: .*cat")
    _table(path, [VISIT, ok, ["Describe.", "bm90IGFuIGltYWdlIGF0IGFsbA==", "x"]])
    _fails(store, path, "visit", r"column 'image': the base64 data is not a readable image")
    _table(path, [VISIT, ok, ["Describe.", "not an image!", "x"]])
    _fails(store, path, "visit", r"column 'image': expected an image file path .* none of these")
    _table(path, [VISIT, ok, ["Describe.", b64("red")]])
    _fails(store, path, "visit", r"row 2 \(line 3\): expected 3 cells .* found 2")
    (tmp_path / "fake.png").write_text("hello")
    _table(path, [VISIT, ok, ["Describe.", "fake.png", "x"]])
    _fails(store, path, "visit", r"row 2 \(line 3\), column 'image': the file is not a readable")


def test_touchstone_and_vlmeval_errors(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    path = tmp_path / "t.tsv"
    _table(path, [TS[:-1], ["0", "q", "cap", "ref", "c", "t"]], "\t")
    _fails(store, path, "touchstone", r"t\.tsv: missing required column 'image'")
    _table(
        path,
        [TS, ["0", "q", "c", "r", "c", "t", b64("red")], ["", "q", "c", "r", "c", "t", b64("red")]],
        "\t",
    )
    _fails(store, path, "touchstone", r"row 2 \(line 3\), column 'index': expected the question's")
    _table(
        path,
        [
            TS,
            ["0", "q", "c", "r", "c", "t", b64("red")],
            ["0", "q2", "c", "r", "c", "t", b64("red")],
        ],
        "\t",
    )
    _fails(store, path, "touchstone", r"t\.tsv, row 2: duplicate key '0' \(already used by row 1\)")
    path = tmp_path / "m.tsv"
    _table(path, [VLM, ["1", "q", "x", "y", "C", b64("red")]], "\t")
    _fails(
        store,
        path,
        "vlmeval",
        r"row 1 \(line 2\), column 'answer': expected one of the option letters A, B, found 'C'",
    )
    _table(path, [["index", "image", "answer"], ["1", b64("red"), "A"]], "\t")
    _fails(store, path, "vlmeval", r"missing required column 'question'")


def test_jsonl_errors(tmp_path: Path, store: Store, b64: Callable[[str], str]) -> None:
    path = tmp_path / "j.jsonl"
    good = json.dumps({"question": "q", "image": b64("red")})
    path.write_text(good + "\n{not json}\n")
    _fails(store, path, "jsonl", r"j\.jsonl, row 2: not valid JSON")
    path.write_text(good + "\n" + json.dumps({"image": b64("red")}) + "\n")
    _fails(store, path, "jsonl", r"row 2, column 'question': expected a non-empty question")
    path.write_text(
        good + "\n" + json.dumps({"question": "q", "options": ["a", "b"], "answer": "E"})
    )
    _fails(store, path, "jsonl", r"row 2, column 'answer': a multiple-choice item needs .*\(A, B\)")
    path.write_text(good + "\n" + json.dumps({"question": "q", "image": 5}))
    _fails(store, path, "jsonl", r"row 2, column 'image': expected an image path")
    path.write_text(good + "\n" + json.dumps({"question": "q", "kind": "essay"}))
    _fails(store, path, "jsonl", r"row 2, column 'kind': expected mc, tf or open")
    path.write_text("[1, 2]\n")
    _fails(store, path, "jsonl", r"row 1: expected a JSON object per line")
    _fails(store, tmp_path / "nope.jsonl", "jsonl", r"nope\.jsonl: no such file")


def test_benchmark_of_another_kind_is_not_overwritten(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps({"question": "q", "image": b64("red")}))
    import_dataset(store, path, "jsonl", "mixed")
    tsv = _table(tmp_path / "t.tsv", [TS, ["0", "q", "c", "r", "c", "t", b64("blue")]], "\t")
    with pytest.raises(DatasetError, match="already exists with kind 'jsonl'"):
        import_dataset(store, tsv, "touchstone", "mixed")
