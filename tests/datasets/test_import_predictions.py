"""Prediction files stored as a model's responses: VLMEvalKit .xlsx/.tsv (model from the file
name), VisIT-Bench '<model> prediction' columns, TouchStone submissions, JSONL; rows joined by
the file's keys, unmatched rows reported by key, empty cells stored as errors with a reason,
bad files rejected with file/row/column and nothing stored."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from prediction_fixtures import (
    MMB_PREDICTION_HEADER,
    mmbench_prediction_rows,
    write_mmbench,
    write_tsv,
    write_xlsx,
)

from lvlmbench.datasets import DatasetError, import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.datasets.predictions import (
    import_predictions,
    looks_like_predictions,
    model_from_file_name,
)
from lvlmbench.store import Store, iter_responses
from lvlmbench.types import Status

BENCH = "MMBench_DEV_EN"


def _mmbench(store: Store, tmp_path: Path) -> None:
    import_dataset(store, write_mmbench(tmp_path / f"{BENCH}.tsv"), "vlmeval", BENCH)


def _responses(store: Store, model: str) -> dict[str, tuple[str, str | None, Status, str | None]]:
    return {
        r.item_id: (r.text, r.extracted, r.status, r.reason)
        for r in iter_responses(store, model=model)
    }


def test_vlmeval_xlsx_named_by_file_joined_by_index(store: Store, tmp_path: Path) -> None:
    _mmbench(store, tmp_path)
    extra = [[999, "Not here", None, "x", "y", None, None, "A", "c", "s", "l2", "dev", "A"]]
    path = write_xlsx(
        tmp_path / f"MyVLM_{BENCH}.xlsx", MMB_PREDICTION_HEADER, mmbench_prediction_rows(extra)
    )
    assert looks_like_predictions(path)

    summary = import_predictions(store, path, BENCH)

    assert summary.layout == "vlmeval"
    assert summary.models == {"MyVLM": 7}
    assert (summary.ok, summary.missing, summary.unparseable) == (6, 1, 0)
    assert summary.unmatched == 1 and summary.unmatched_keys == ["row 8: index 999"]
    got = _responses(store, "MyVLM")
    # Extraction as in a model run: a sentence gives its letter.
    assert got[item_id(BENCH, "2000001")][:3] == ("The answer is B.", "B", Status.OK)
    assert got[item_id(BENCH, "1")][1] == "A"
    text, extracted, status, reason = got[item_id(BENCH, "1000003")]
    assert (text, extracted, status) == ("", None, Status.ERROR)
    assert reason is not None and "row 7" in reason and "'prediction'" in reason


def test_reimport_replaces_and_model_option_renames(store: Store, tmp_path: Path) -> None:
    _mmbench(store, tmp_path)
    rows = mmbench_prediction_rows()
    path = write_tsv(tmp_path / "preds.tsv", MMB_PREDICTION_HEADER, rows)
    with pytest.raises(DatasetError, match="pass --model NAME"):
        import_predictions(store, path, BENCH)
    assert list(iter_responses(store)) == []
    import_predictions(store, path, BENCH, model="other/vlm")
    rows[0][-1] = "B"
    write_tsv(path, MMB_PREDICTION_HEADER, rows)
    import_predictions(store, path, BENCH, model="other/vlm")
    got = _responses(store, "other/vlm")
    assert len(got) == 7 and got[item_id(BENCH, "1")][1] == "B"


def test_vlmeval_failure_marker_is_an_error(store: Store, tmp_path: Path) -> None:
    _mmbench(store, tmp_path)
    rows = mmbench_prediction_rows()
    rows[1][-1] = "Failed to obtain answer via API. Timeout"
    path = write_tsv(tmp_path / f"M_{BENCH}.tsv", MMB_PREDICTION_HEADER, rows)
    import_predictions(store, path, BENCH)
    text, _, status, reason = _responses(store, "M")[item_id(BENCH, "2")]
    assert status is Status.ERROR and text.startswith("Failed") and "call failed" in str(reason)


def test_strict_unmatched_is_an_error_and_stores_nothing(store: Store, tmp_path: Path) -> None:
    _mmbench(store, tmp_path)
    extra = [[4242, "q", None, "x", "y", None, None, "A", "c", "s", "l2", "dev", "A"]]
    path = write_xlsx(tmp_path / "p.xlsx", MMB_PREDICTION_HEADER, mmbench_prediction_rows(extra))
    with pytest.raises(DatasetError, match=r"1 row\(s\) match no item.*index 4242"):
        import_predictions(store, path, BENCH, model="m", strict=True)
    assert list(iter_responses(store)) == []


def _bad(tmp_path: Path, header: list[str], rows: list[list[object]]) -> Path:
    return write_tsv(tmp_path / "bad_preds.tsv", header, rows)


@pytest.mark.parametrize(
    ("header", "rows", "message"),
    [
        (["question", "prediction"], [["q", "A"]], r"bad_preds.tsv.*column 'index'"),
        (["index", "prediction"], [["1", "A"], ["", "B"]], r"row 2.*column 'index'"),
        (["index", "prediction"], [["1", "A"], ["1.0", "B"]], r"row 2.*same item as row 1"),
        (["index", "answer_text"], [["1", "A"]], r"not a prediction file.*'prediction'"),
        (["index", "prediction"], [["77", "A"]], r"none of the 1 rows matches.*index 77"),
    ],
)
def test_bad_prediction_files(
    store: Store, tmp_path: Path, header: list[str], rows: list[list[object]], message: str
) -> None:
    _mmbench(store, tmp_path)
    with pytest.raises(DatasetError, match=message):
        import_predictions(store, _bad(tmp_path, header, rows), BENCH, model="m")
    assert list(iter_responses(store)) == []


def test_unknown_benchmark_and_broken_xlsx(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "m_X.xlsx"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DatasetError, match="no benchmark 'X'"):
        import_predictions(store, path, "X")
    _mmbench(store, tmp_path)
    with pytest.raises(DatasetError, match=r"m_X.xlsx: not a readable .xlsx"):
        import_predictions(store, path, BENCH, model="m")


def test_model_from_file_name() -> None:
    names = [BENCH, "MMBench"]
    assert model_from_file_name(Path(f"Qwen2-VL_7B_{BENCH}.xlsx"), names) == "Qwen2-VL_7B"
    assert model_from_file_name(Path("llava_mmbench.tsv"), names) == "llava"
    assert model_from_file_name(Path(f"{BENCH}.xlsx"), names) is None
    assert model_from_file_name(Path("preds.xlsx"), names) is None


VISIT_URLS = ["https://ex.org/v/dog.jpg", "https://ex.org/v/cat.png", "https://ex.org/v/dog.jpg"]
VISIT_INSTRUCTIONS = ["Describe the dog.", "Write a  poem\nabout the cat.", "Describe the dog."]


def _visit(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "visit.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["instruction", "instruction_category", "image", "reference_output"])
        for url, text in zip(VISIT_URLS, VISIT_INSTRUCTIONS, strict=True):
            writer.writerow([text, "creative", url, "ref"])
    import_dataset(store, path, "visit", "visit")


def test_visit_prediction_columns_by_image_and_instruction(store: Store, tmp_path: Path) -> None:
    _visit(store, tmp_path)
    path = tmp_path / "predictions.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["instruction", "instruction_category", "image", "llava-1.5 prediction",
             "My Model v2 prediction"]
        )  # fmt: skip
        # Rows in another order, the URL written as a bare file name, whitespace changed.
        writer.writerow(["Write a poem about the cat.", "creative", "cat.png", "purr", "meow"])
        writer.writerow(["Describe the dog.", "creative", VISIT_URLS[0], "dog one", ""])
        writer.writerow(["Describe the dog.", "creative", VISIT_URLS[0], "dog two", "woof"])
        writer.writerow(["Describe the dog.", "creative", VISIT_URLS[0], "dog three", "x"])
    assert looks_like_predictions(path)

    summary = import_predictions(store, path, "visit")

    assert summary.layout == "visit" and summary.rows == 4
    assert summary.models == {"llava-1.5": 3, "My Model v2": 3}
    assert summary.missing == 1 and summary.unmatched == 2
    assert all("Describe the dog." in k for k in summary.unmatched_keys)
    llava = _responses(store, "llava-1.5")
    assert llava[item_id("visit", "row-1")][0] == "dog one"
    assert llava[item_id("visit", "row-2")][0] == "purr"
    assert llava[item_id("visit", "row-3")][0] == "dog two"
    assert _responses(store, "My Model v2")[item_id("visit", "row-1")][2] is Status.ERROR
    # --model picks one of the file's models.
    with pytest.raises(DatasetError, match="several models"):
        import_predictions(store, path, "visit", model="nobody")


def test_touchstone_submission_and_jsonl(
    store: Store, tmp_path: Path, b64: Callable[[str], str]
) -> None:
    header = ["index", "question", "human_annotation", "gpt4_ha_answer", "category", "task_name"]
    rows = [
        [10, "What is shown?", "A red square.", "A red square.", "basic", "describe"],
        [11, "Tell a story.", "A blue square.", "Once...", "storytelling", "story"],
    ]
    dataset = write_tsv(tmp_path / "ts.tsv", [*header, "image"], [[*r, b64("red")] for r in rows])
    import_dataset(store, dataset, "touchstone", "ts")
    # The README's submission: the dataset's columns (no image) plus response.
    sub = write_tsv(tmp_path / "sub.tsv", [*header, "response"], [[*r, "ans"] for r in rows])
    summary = import_predictions(store, sub, "ts", model="qwen-vl")
    assert summary.layout == "touchstone" and summary.models == {"qwen-vl": 2}
    assert _responses(store, "qwen-vl")[item_id("ts", "11")][0] == "ans"
    # A converter that kept the image column (and wrote .xlsx): read the same way.
    kept = [[*r, b64("red"), f"kept {r[0]}"] for r in rows]
    xlsx = write_xlsx(tmp_path / "sub.xlsx", [*header, "image", "response"], kept)
    assert import_predictions(store, xlsx, "ts", model="cogvlm").models == {"cogvlm": 2}
    assert _responses(store, "cogvlm")[item_id("ts", "10")][0] == "kept 10"

    lines = [{"question_id": 10, "text": "a square", "model_id": "llava-v1.5-13b"}]
    lines += [{"index": "11", "answer": "story"}]
    jsonl = tmp_path / "answers.jsonl"
    jsonl.write_text("\n".join(json.dumps(x) for x in lines))
    assert looks_like_predictions(jsonl)
    with pytest.raises(DatasetError, match="does not name its model"):
        import_predictions(store, jsonl, "ts")
    summary = import_predictions(store, jsonl, "ts", model="llava")
    assert summary.layout == "jsonl" and summary.models == {"llava": 2}


def test_item_files_are_not_predictions(tmp_path: Path) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "a", "question": "q", "answer": "A"}))
    assert not looks_like_predictions(items)
    llava_questions = tmp_path / "questions.jsonl"
    record = {"question_id": 0, "image": "001.jpg", "text": "What is it?", "category": "conv"}
    llava_questions.write_text(json.dumps(record))
    assert not looks_like_predictions(llava_questions)
    assert not looks_like_predictions(write_mmbench(tmp_path / "MMBench.tsv"))
    visit = tmp_path / "v.csv"
    visit.write_text("instruction,image,gpt4_prediction\nq,https://x/a.jpg,p\n")
    assert not looks_like_predictions(visit)


def test_cli_bad_prediction_file_exit_2_store_unchanged(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from lvlmbench.cli import app

    runner = CliRunner()
    db = str(tmp_path / "s.db")
    dataset = write_mmbench(tmp_path / f"{BENCH}.tsv")
    assert (
        runner.invoke(app, ["import", str(dataset), "-f", "vlmeval", "--store", db]).exit_code == 0
    )
    bad = write_tsv(tmp_path / "M_bad.tsv", ["index", "prediction"], [[1, "A"], ["", "B"]])
    base = ["import", str(bad), "-f", "predictions", "--store", db]
    result = runner.invoke(app, [*base, "--name", BENCH, "--model", "m"])
    assert result.exit_code == 2
    assert "M_bad.tsv, row 2 (line 3), column 'index'" in result.output
    assert runner.invoke(app, base).exit_code == 2  # no --name: which benchmark?
    extra = write_tsv(tmp_path / "M_x.tsv", ["index", "prediction"], [[1, "A"], [5, "B"]])
    args = ["import", str(extra), "-f", "predictions", "--store", db, "--name", BENCH]
    strict = runner.invoke(app, [*args, "--model", "m", "--strict"])
    assert strict.exit_code == 2 and "index 5" in strict.output
    store = Store.open(db)
    try:
        assert list(iter_responses(store)) == []
    finally:
        store.close()
    loose = runner.invoke(app, [*args, "--model", "m", "--json"])
    assert loose.exit_code == 0, loose.output
    summary = json.loads(loose.output)
    assert summary["unmatched"] == 1 and summary["unmatched_keys"] == ["row 2: index 5"]
    assert summary["models"] == {"m": 1}
    shown = runner.invoke(app, [*args, "--model", "m"])
    assert "1 row(s) match no item" in shown.output and "row 2: index 5" in shown.output
    flags = ["import", str(dataset), "-f", "vlmeval", "--model", "m", "--store", db]
    dataset_flags = runner.invoke(app, flags)
    assert dataset_flags.exit_code == 2 and "prediction files" in dataset_flags.output
