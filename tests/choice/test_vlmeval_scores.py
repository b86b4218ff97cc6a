"""VLMEvalKit scores on imported datasets with imported prediction files, end to end through the
CLI (`import` dataset, `import -f predictions`, `evaluate --model NAME`): MMBench CircularEval
beside per-row accuracy, `--by l2-category`, MME acc / acc+ / score, TEST items not scored."""

from __future__ import annotations

import csv
import json
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from prediction_fixtures import (
    MMB_PREDICTION_HEADER,
    MME_PERCEPTION_CATEGORIES,
    MME_PREDICTIONS,
    MME_REASONING_CATEGORIES,
    mmbench_prediction_rows,
    mme_category_rows,
    write_mmbench,
    write_mme,
    write_tsv,
    write_xlsx,
)
from typer.testing import CliRunner

from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.choice.vlmeval_scores import circular_table, mme_table
from lvlmbench.cli import app
from lvlmbench.datasets.predictions import import_predictions
from lvlmbench.datasets.vlmeval_export import export_vlmeval
from lvlmbench.store import (
    Store,
    iter_items,
    iter_responses,
    put_benchmark,
    put_items,
    put_responses,
)

runner = CliRunner()


def _cli(db: Path, *args: str) -> Any:
    result = runner.invoke(app, [*args, "--store", str(db)])
    return result


def _evaluate_json(db: Path, *args: str) -> dict[str, Any]:
    result = _cli(db, "evaluate", *args, "--json")
    assert result.exit_code == 0, result.output
    parsed: dict[str, Any] = json.loads(result.output)
    return parsed


def _mmbench(tmp_path: Path) -> Path:
    db = tmp_path / "s.db"
    dataset = write_mmbench(tmp_path / "MMBench_DEV_EN.tsv")
    assert _cli(db, "import", str(dataset), "-f", "vlmeval").exit_code == 0
    preds = write_xlsx(
        tmp_path / "MyVLM_MMBench_DEV_EN.xlsx", MMB_PREDICTION_HEADER, mmbench_prediction_rows()
    )
    result = _cli(db, "import", str(preds), "-f", "predictions", "--name", "MMBench_DEV_EN")
    assert result.exit_code == 0, result.output
    assert "MyVLM (7)" in result.output and "1 without a prediction" in result.output
    return db


def test_circular_eval_beside_per_row_accuracy(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    report = _evaluate_json(db, "MMBench_DEV_EN", "--model", "MyVLM", "--by", "")
    # Per row: 7 copies, 1000003 has no prediction (failed, not counted) -> 6 answered;
    # wrong only 1000002 (B, key A) -> 5/6. Circular: question 1 right in all 3 copies;
    # question 2 wrong in its copy; question 3's copy unanswered -> wrong, incomplete -> 1/3.
    [row] = report["accuracy"]
    assert (row["correct"], row["answered"], row["failed"]) == (5, 6, 1)
    [circular] = report["circular"]
    assert (circular["rows_correct"], circular["rows"]) == (5, 6)
    assert (circular["questions_correct"], circular["questions"]) == (1, 3)
    assert circular["incomplete"] == 1
    assert circular["circular_accuracy"] == pytest.approx(1 / 3)
    assert "mme" not in report
    assert report["runs"] == []  # an imported model is scored from the store, never run


def test_by_any_metadata_column(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    for spelling in ("l2-category", "l2_category"):
        report = _evaluate_json(db, "MMBench_DEV_EN", "--model", "MyVLM", "--by", spelling)
        got = {r[spelling]: (r["correct"], r["answered"], r["failed"]) for r in report["accuracy"]}
        # perception: 1, 1000001, 2000001 all right; reasoning: 2 and 3 right, 1000002 wrong,
        # 1000003 failed.
        assert got == {"perception": (3, 3, 0), "reasoning": (2, 3, 1)}
    bad = _cli(db, "evaluate", "MMBench_DEV_EN", "--model", "MyVLM", "--by", "l3-category")
    assert bad.exit_code == 2
    assert "unknown facet 'l3-category'" in bad.output and "l2_category" in bad.output


def test_circular_eval_per_category_as_vlmeval_reports_it(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    report = _evaluate_json(db, "MMBench_DEV_EN", "--model", "MyVLM", "--by", "l2-category")
    got = {
        tuple(r.get("group", ["all"])): (r["questions_correct"], r["questions"], r["incomplete"])
        for r in report["circular"]
    }
    # perception holds question 1 (right in all 3 copies); reasoning questions 2 (its copy
    # 1000002 wrong) and 3 (copy 1000003 unanswered: wrong, incomplete). Per row the same
    # groups read 3/3 and 2/3; main printed only those and the pooled 1/3.
    assert got == {("perception",): (1, 1, 0), ("reasoning",): (0, 2, 1), ("all",): (1, 3, 1)}
    shown = _cli(db, "evaluate", "MMBench_DEV_EN", "--model", "MyVLM", "--by", "l2-category")
    assert "perception" in shown.output and "group" in shown.output, shown.output


def test_table_output_names_the_sections(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    result = _cli(db, "evaluate", "MMBench_DEV_EN", "--model", "MyVLM")
    assert result.exit_code == 0, result.output
    assert "CircularEval" in result.output and "scored from the store" in result.output
    assert "33.3" in result.output and "83.3" in result.output


def test_mme_acc_plus_and_score(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert _cli(db, "import", str(write_mme(tmp_path / "MME.tsv")), "-f", "vlmeval").exit_code == 0
    header = ["index", "category", "image_path", "question", "answer", "prediction"]
    rows = [[i, "x", "x", "x", "x", MME_PREDICTIONS[i]] for i in MME_PREDICTIONS]
    preds = write_tsv(tmp_path / "Bot_MME.tsv", header, rows)
    assert _cli(db, "import", str(preds), "-f", "predictions", "--name", "MME").exit_code == 0
    report = _evaluate_json(db, "MME", "--model", "Bot", "--by", "category")
    [mme] = report["mme"]
    cats = {c["category"]: c for c in mme["categories"]}
    # color: a.jpg both right, b.jpg second wrong -> acc 3/4 = 75, acc+ 1/2 = 50, score 125.
    # OCR: c.jpg first wrong -> acc 1/2 = 50, acc+ 0/1 = 0, score 50. Two of the ten
    # perception categories: no perception total (175 would be no MME score).
    assert (cats["color"]["acc"], cats["color"]["acc_plus"]) == (75.0, 50.0)
    assert cats["color"]["score"] == 125.0
    assert (cats["OCR"]["acc"], cats["OCR"]["acc_plus"], cats["OCR"]["score"]) == (50, 0, 50)
    assert mme["perception"] is None and mme["reasoning"] is None
    assert mme["totals"]["perception"]["text"] == "2 of 10 categories"
    assert "circular" not in report


def test_mme_failed_question_counts_wrong_and_an_unasked_picture_is_left_out(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.db"
    _cli(db, "import", str(write_mme(tmp_path / "MME.tsv")), "-f", "vlmeval")
    header = ["index", "prediction"]
    preds = write_tsv(tmp_path / "Bot_MME.tsv", header, [[1, "Yes"], [2, ""], [5, "Yes"]])
    assert _cli(db, "import", str(preds), "-f", "predictions", "--name", "MME").exit_code == 0
    store = Store.open(str(db))
    try:
        [row] = mme_table(store, "MME", models=["Bot"])
    finally:
        store.close()
    cats = {c.category: c for c in row.categories}
    # color, picture a: question 1 right, question 2's prediction empty (failed: wrong) -> acc
    # 1 of 2 = 50, acc+ 0 of 1. Picture b's questions 3 and 4 are not in the file: never asked,
    # neither right nor wrong, left out and counted (as VLMEvalKit scores the rows it has).
    color = cats["color"]
    assert (color.correct, color.unanswered, color.unasked_images) == (1, 1, 1)
    assert (color.acc, color.acc_plus) == (50, 0)
    # OCR: question 5 answered, 6 not in the file: no whole picture asked, so no OCR score (a
    # 0.0 over nothing read as a failed category), and no perception sum.
    assert "OCR" not in cats
    assert row.total("perception").value is None
    shown = _cli(db, "evaluate", "MME", "--model", "Bot")
    line = next(ln for ln in shown.output.splitlines() if "pictures not asked" in ln)
    assert line.split("│")[2].strip() == "2"  # b.jpg and c.jpg


def _withhold_keys(store: Store, source: str, name: str) -> None:
    """``source``'s items under benchmark ``name`` with their keys withheld, as a TEST split
    has them (items imported from VLMEvalKit keep ``index`` in meta)."""
    items = [
        i.model_copy(update={"benchmark": name, "id": f"{name}-{i.id}", "answer": None})
        for i in iter_items(store, source)
    ]
    put_items(store, items)
    put_benchmark(store, name, "vlmeval", {"format": "vlmeval", "sources": [f"{name}.tsv"]})


def test_test_split_scored_nowhere_exported_for_the_server(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    store = Store.open(str(db))
    try:
        _withhold_keys(store, "MMBench_DEV_EN", "MMBench_TEST_EN")
        preds = write_xlsx(
            tmp_path / "MyVLM_MMBench_TEST_EN.xlsx",
            MMB_PREDICTION_HEADER,
            mmbench_prediction_rows(),
        )
        import_predictions(store, preds, "MMBench_TEST_EN")
        [row] = accuracy_table(store, "MMBench_TEST_EN", models=["MyVLM"])
        # 6 answers (one empty cell is a failure), none scored: there is no key.
        assert (row.no_key, row.answered, row.correct, row.failed) == (6, 0, 0, 1)
        assert circular_table(store, "MMBench_TEST_EN") == []
        shown = _cli(db, "evaluate", "MMBench_TEST_EN", "--model", "MyVLM", "--by", "")
        assert shown.exit_code == 0 and "no key" in shown.output and "0.0" not in shown.output
        out = export_vlmeval(store, "MMBench_TEST_EN", "MyVLM", tmp_path / "out" / "p.xlsx")
    finally:
        store.close()
    assert (out.rows, out.without_prediction) == (7, 1)
    workbook = openpyxl.load_workbook(out.path, read_only=True)
    header, *rows = [list(r) for r in workbook.worksheets[0].iter_rows(values_only=True)]
    workbook.close()
    # The dataset's columns minus image (D was empty in every row; no answer on TEST) plus
    # prediction, in the dataset's row order, index as integers.
    assert header == [
        "index", "question", "A", "B", "C", "category", "source", "l2-category", "split",
        "prediction",
    ]  # fmt: skip
    assert [r[0] for r in rows] == [1, 2, 3, 1000001, 2000001, 1000002, 1000003]
    assert rows[4][1:5] == ["What colour is the car?", "green", "red", "blue"]
    assert [r[-1] for r in rows] == ["A", "B", "A", "C", "The answer is B.", "B", None]
    assert rows[0][7] == "perception"


def test_export_round_trip_through_import(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    out = tmp_path / "copy_MMBench_DEV_EN.tsv"
    args = ["export", "MMBench_DEV_EN", "-f", "vlmeval", "--model", "MyVLM", "--out", str(out)]
    result = _cli(db, *args)
    assert result.exit_code == 0, result.output
    assert "1 item(s) have no answer" in result.output
    with out.open(newline="") as handle:
        header = next(csv.reader(handle, delimiter="\t"))
    assert "answer" in header and header[-1] == "prediction" and "image" not in header
    imported = _cli(db, "import", str(out), "-f", "predictions", "--name", "MMBench_DEV_EN")
    assert imported.exit_code == 0, imported.output
    store = Store.open(str(db))
    try:
        original = {r.item_id: r.extracted for r in iter_responses(store, model="MyVLM")}
        copied = {r.item_id: r.extracted for r in iter_responses(store, model="copy")}
    finally:
        store.close()
    assert copied == original and len(copied) == 7


def test_export_needs_a_vlmeval_benchmark_and_a_model(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    no_model = _cli(db, "export", "MMBench_DEV_EN", "-f", "vlmeval", "--out", "x.xlsx")
    assert no_model.exit_code == 2 and "--model" in no_model.output
    nobody = ["export", "MMBench_DEV_EN", "-f", "vlmeval", "--model", "nobody", "--out", "x.tsv"]
    assert "no answers" in _cli(db, *nobody).output
    ts = tmp_path / "t.jsonl"
    ts.write_text(json.dumps({"id": "a", "question": "q", "image": "https://x/a.png"}))
    assert _cli(db, "import", str(ts), "-f", "jsonl", "--name", "plain").exit_code == 0
    plain = _cli(db, "export", "plain", "-f", "vlmeval", "--model", "m", "--out", "x.xlsx")
    assert plain.exit_code == 2 and "imported from a VLMEvalKit TSV" in plain.output


def test_accuracy_table_counts_unkeyed_answers(tmp_path: Path) -> None:
    db = _mmbench(tmp_path)
    store = Store.open(str(db))
    try:
        _withhold_keys(store, "MMBench_DEV_EN", "TEST")
        mixed = ["MMBench_DEV_EN", "TEST"]
        with pytest.raises(ValueError, match="choose from"):
            accuracy_table(store, mixed, ["nope"], models=["MyVLM"])
        import_predictions(store, tmp_path / "MyVLM_MMBench_DEV_EN.xlsx", "TEST", model="MyVLM")
        [row] = accuracy_table(store, mixed, models=["MyVLM"])
    finally:
        store.close()
    # DEV: 5 of 6 answered right; TEST: 6 answers without a key, not scored.
    assert (row.correct, row.answered, row.no_key, row.failed) == (5, 6, 6, 2)


def _mme_store(tmp_path: Path, categories: Sequence[str], wrong: Collection[int]) -> Path:
    """MME in VLMEvalKit's layout over ``categories`` (:func:`mme_category_rows`) and a
    prediction file of "Bot" right on every question but those indexed in ``wrong``."""
    db = tmp_path / "s.db"
    rows = mme_category_rows(categories)
    dataset = write_mme(tmp_path / "MME.tsv", with_image_path=True, rows_in=rows)
    assert _cli(db, "import", str(dataset), "-f", "vlmeval").exit_code == 0
    flip = {"Yes": "No", "No": "Yes"}
    predicted = [
        [index, category, path, question, answer, flip[answer] if index in wrong else answer]
        for index, category, path, question, answer, _ in rows
    ]
    header = ["index", "category", "image_path", "question", "answer", "prediction"]
    preds = write_tsv(tmp_path / "Bot_MME.tsv", header, predicted)
    assert _cli(db, "import", str(preds), "-f", "predictions", "--name", "MME").exit_code == 0
    return db


def _index_of(categories: Sequence[str], category: str, picture: int, answer: str) -> int:
    """The index mme_category_rows gives a question (pictures 1-2, "Yes" before "No")."""
    return 4 * categories.index(category) + 2 * (picture - 1) + (answer == "No") + 1


def test_mme_partial_set_prints_no_total(tmp_path: Path) -> None:
    # Five of the ten perception categories, as in real LLaVA-1.5-7B outputs covering half of
    # them: every question right but color's second picture's "No" question. Each category
    # scores 200 (acc 100 + acc+ 100) but color 125 (acc 3/4 = 75, acc+ 1/2 = 50): a sum
    # would print perception 925.0, which is no MME perception score (ten categories).
    categories = ["existence", "count", "position", "color", "OCR"]
    db = _mme_store(tmp_path, categories, {_index_of(categories, "color", 2, "No")})
    [mme] = _evaluate_json(db, "MME", "--model", "Bot")["mme"]
    assert {c["category"]: c["score"] for c in mme["categories"]} == {
        "OCR": 200.0, "color": 125.0, "count": 200.0, "existence": 200.0, "position": 200.0,
    }  # fmt: skip
    assert mme["perception"] is None and mme["reasoning"] is None
    perception = mme["totals"]["perception"]
    assert (perception["present"], perception["expected"], perception["complete"]) == (5, 10, False)
    assert perception["text"] == "5 of 10 categories"
    assert perception["missing"] == ["artwork", "celebrity", "landmark", "posters", "scene"]
    assert mme["totals"]["reasoning"]["text"] == "0 of 4 categories"
    shown = _cli(db, "evaluate", "MME", "--model", "Bot")
    assert shown.exit_code == 0, shown.output
    assert "925" not in shown.output
    # The cells wrap ("5 of 10" / "categories"): no number in the perception column.
    assert "5 of 10" in shown.output and "0 of 4" in shown.output, shown.output


def test_mme_complete_set_equals_vlmevalkit(tmp_path: Path) -> None:
    # All 14 categories. Wrong: color's second "No" question (color: acc 75 + acc+ 50 = 125),
    # both questions of OCR's first picture (acc 2/4 = 50 + acc+ 1/2 = 50 = 100) and
    # code_reasoning's first "Yes" question (125); every other category 200. VLMEvalKit's
    # MME_rating on the same file: perception = 8·200 + 125 + 100 = 1825,
    # reasoning = 3·200 + 125 = 725.
    categories = [*MME_PERCEPTION_CATEGORIES, *MME_REASONING_CATEGORIES]
    wrong = {
        _index_of(categories, "color", 2, "No"),
        _index_of(categories, "OCR", 1, "Yes"),
        _index_of(categories, "OCR", 1, "No"),
        _index_of(categories, "code_reasoning", 1, "Yes"),
    }
    db = _mme_store(tmp_path, categories, wrong)
    [mme] = _evaluate_json(db, "MME", "--model", "Bot")["mme"]
    scores = {c["category"]: c["score"] for c in mme["categories"]}
    assert (scores["color"], scores["OCR"], scores["code_reasoning"]) == (125.0, 100.0, 125.0)
    assert mme["perception"] == 1825.0 and mme["reasoning"] == 725.0
    assert mme["totals"]["perception"]["complete"] and mme["totals"]["reasoning"]["complete"]


def test_mme_epochs_average_within_the_question(tmp_path: Path) -> None:
    # Two epochs of Bot on color + OCR: epoch 0 right everywhere, epoch 1 wrong on both
    # questions of color's first picture. color: acc (4 + 2) / 8 = 75, acc+ (2 + 1) / 4 = 75,
    # score 150; OCR 200 in both epochs. Keeping one epoch would give 200 or 100.
    categories = ["color", "OCR"]
    db = _mme_store(tmp_path, categories, set())
    store = Store.open(str(db))
    try:
        first = {r.item_id: r for r in iter_responses(store, model="Bot")}
        items = {i.id: i for i in iter_items(store, "MME")}
        flipped = {_index_of(categories, "color", 1, a) for a in ("Yes", "No")}
        again = []
        for item_id, response in first.items():
            item = items[item_id]
            said = response.extracted
            if int(item.meta["index"]) in flipped:
                said = "no" if str(item.answer).lower() == "yes" else "yes"
            again.append(response.model_copy(update={"epoch": 1, "extracted": said}))
        put_responses(store, again)
    finally:
        store.close()
    [mme] = _evaluate_json(db, "MME", "--model", "Bot")["mme"]
    cats = {c["category"]: c for c in mme["categories"]}
    assert (cats["color"]["acc"], cats["color"]["acc_plus"]) == (75.0, 75.0)
    assert (cats["color"]["score"], cats["OCR"]["score"]) == (150.0, 200.0)
    assert cats["color"]["epochs"] == 2


def test_overall_over_part_of_the_categories_says_so(tmp_path: Path) -> None:
    # "Half" predicted only the perception rows (1, 1000001, 2000001), all right: its overall
    # is 3/3 over items of one of the two l2-categories, and says so; MyVLM covers both.
    db = _mmbench(tmp_path)
    perception = [r for r in mmbench_prediction_rows() if r[0] in (1, 1000001, 2000001)]
    preds = write_xlsx(tmp_path / "Half_MMBench_DEV_EN.xlsx", MMB_PREDICTION_HEADER, perception)
    result = _cli(db, "import", str(preds), "-f", "predictions", "--name", "MMBench_DEV_EN")
    assert result.exit_code == 0, result.output
    args = ("MMBench_DEV_EN", "--model", "MyVLM", "--model", "Half", "--by", "l2-category")
    overall = {r["model"]: r for r in _evaluate_json(db, *args)["overall"]}
    half = overall["Half"]
    assert (half["accuracy"], half["items"]) == (1.0, 3)
    assert half["coverage"] == {
        "text": "1 of 2 l2-category groups",
        "present": 1,
        "expected": 2,
        "complete": False,
        "missing": ["reasoning"],
    }
    assert overall["MyVLM"]["coverage"]["complete"]
    shown = _cli(db, "evaluate", *args)
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    line = next(i for i, text in enumerate(lines) if "│ Half" in text)  # the accuracy table
    assert "1 of 2 l2-category groups" in lines[line + 1]


def test_circular_eval_averages_epochs_within_the_item(tmp_path: Path) -> None:
    # A second epoch of MyVLM's predictions with copy 1000001 now wrong (B, key C).
    # Per row, each copy's epochs averaged: 1, 1000001 (1 of 2 = 0.5), 2000001, 2, 3 right,
    # 1000002 wrong, 1000003 failed twice (no score): (1 + 0.5 + 1 + 1 + 0 + 1) / 6 = 0.75.
    # Circular: question 1 right in epoch 0 only, 2 and 3 in neither: 1 of 3 × 2 = 1/6;
    # question 3's failed copy leaves it incomplete in both epochs.
    db = _mmbench(tmp_path)
    store = Store.open(str(db))
    try:
        items = {i.id: int(i.meta["index"]) for i in iter_items(store, "MMBench_DEV_EN")}
        again = [
            r.model_copy(update={"epoch": 1, "extracted": "B" if items[r.item_id] == 1000001
                                 else r.extracted})
            for r in iter_responses(store, model="MyVLM")
        ]  # fmt: skip
        put_responses(store, again)
    finally:
        store.close()
    report = _evaluate_json(db, "MMBench_DEV_EN", "--model", "MyVLM", "--by", "")
    [circular] = report["circular"]
    assert circular["row_accuracy"] == pytest.approx(0.75) and circular["copies"] == 6
    assert circular["circular_accuracy"] == pytest.approx(1 / 6)
    assert (circular["questions_correct"], circular["epochs"], circular["incomplete"]) == (1, 2, 2)
    [overall] = report["overall"]  # the accuracy table's rule: the same per-row figure
    assert overall["accuracy"] == pytest.approx(0.75) and overall["items"] == 6
