"""Files in the real projects' layouts imported by detection (no -f): what each item holds, the
join columns kept in meta, and the error for a file no rule recognises."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import dataset_layouts as layouts
import pyarrow.parquet as pq
import pytest
from PIL import Image

from lvlmbench.datasets import (
    DatasetError,
    detect_format,
    export_jsonl,
    export_parquet,
    import_dataset,
)
from lvlmbench.datasets.importers import FormatRule, format_rules, item_id, register_format
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, get_benchmark, iter_items, iter_responses, list_benchmarks

B64 = Callable[[str], str]
PNG = Callable[..., bytes]


def _items(store: Store, path: Path, name: str, fmt: str) -> list:  # type: ignore[type-arg]
    assert detect_format(path) == fmt
    summary = import_dataset(store, path, name=name)
    assert summary.format == fmt
    items = list(iter_items(store, name))
    assert len(items) == summary.rows
    return items


def test_visit_single_image_csv(tmp_path: Path, store: Store) -> None:
    path = layouts.visit_single(tmp_path / "visit_bench_single_image.csv")
    first, sofa, repeat = _items(store, path, "visit", "visit")
    # image and image_url name the same picture: one URL to fetch, not two.
    assert first.meta["image_urls"] == [layouts.S3 + "Animals/dog%201.jpg"]
    assert first.meta["image_aliases"] == [layouts.S3 + "Animals/dog%201.jpg"]
    assert first.meta["image_url"] == first.meta["image"] == layouts.S3 + "Animals/dog%201.jpg"
    assert first.caption == "A dog running on\ngrass."
    # The published layout's reference is GPT-4's answer where people rated it correct.
    assert first.reference == "Running." and first.meta["reference_output"] == "It runs."
    assert first.meta["human_ratings"]["gpt4_correct"] is True
    assert sofa.question == 'Write a "catchy" title.' and sofa.category == "Catchy Titles"
    assert first.meta["source_key"] == "row-1" and repeat.id == item_id("visit", "row-3")


def test_visit_multi_image_csv_with_nan_lists(tmp_path: Path, store: Store) -> None:
    path = layouts.visit_multi(tmp_path / "visit_bench_multi_images.csv")
    pair, single = _items(store, path, "multi", "visit")
    assert len(pair.meta["image_urls"]) == 2
    assert pair.caption == "Image 1: An old car.\nImage 2: A new car."
    assert single.reference is None and single.caption == "A castle."


def test_hf_imagefolder_metadata_csv(tmp_path: Path, store: Store, png: PNG) -> None:
    path = layouts.visit_hf_folder(tmp_path, png)
    red, blue = _items(store, path, "hf", "visit")
    assert len(red.images) == 1 and "image_urls" not in red.meta
    assert store.read_image(red.images[0]) == png("red")
    assert red.meta["file_name"] == "0001.png"
    assert red.meta["image_url"] == layouts.S3 + "x/red.jpg"  # still there for joins
    assert store.read_image(blue.images[0]) == png("blue")


def test_touchstone_tsv(tmp_path: Path, store: Store, png: PNG, b64: B64) -> None:
    path = layouts.touchstone(tmp_path / "touchstone_20230831.tsv", b64)
    first, chinese = _items(store, path, "ts", "touchstone")
    assert first.question == "What is\tshown?\nAnswer briefly."
    assert chinese.question == "图中是什么颜色？" and chinese.caption is None
    assert chinese.reference == "蓝色。" and chinese.meta["index"] == "1"
    assert store.read_image(chinese.images[0]) == png("blue")


def test_mmbench_dev_and_test(tmp_path: Path, store: Store, b64: B64) -> None:
    dev = layouts.mmbench(tmp_path / "MMBench_DEV_EN.tsv", b64)
    base, circular, hinted = _items(store, dev, "mmb-dev", "vlmeval")
    assert base.options == {"A": "red", "B": "blue", "C": "green"} and base.answer == "A"
    assert circular.answer == "C" and circular.images == base.images
    assert circular.meta["image_group"] == "5" == base.meta["image_group"]
    assert hinted.question.startswith("Hint: Look at the edge.\n")
    assert "split" not in base.meta or base.meta["split"] == "dev"
    test = layouts.mmbench(tmp_path / "MMBench_TEST_EN.tsv", b64, test=True)
    items = _items(store, test, "mmb-test", "vlmeval")
    assert all(i.kind == "mc" and i.answer is None for i in items)
    assert [i.meta["split"] for i in items] == ["test"] * 3
    assert items[0].options == base.options


def test_mc_row_without_answer_outside_test_split_is_an_error(
    tmp_path: Path, store: Store, b64: B64
) -> None:
    path = layouts.write_table(
        tmp_path / "dev.tsv",
        [
            ["index", "question", "A", "B", "answer", "split", "image"],
            ["1", "Which?", "x", "y", "", "dev", b64("red")],
        ],
        "\t",
    )
    with pytest.raises(DatasetError, match=r"row 1 \(line 2\), column 'answer'.*TEST split"):
        import_dataset(store, path)
    assert list_benchmarks(store) == []


def test_seedbench_and_mme(tmp_path: Path, store: Store, png: PNG, b64: B64) -> None:
    (seed,) = _items(
        store, layouts.seedbench(tmp_path / "SEEDBench_IMG.tsv", b64), "seed", "vlmeval"
    )
    assert seed.answer == "D" and seed.meta["source_key"] == "42"
    path = layouts.mme(tmp_path / "MME.tsv", b64)
    red_yes, red_no, blue_yes = _items(store, path, "mme", "vlmeval")
    assert (red_yes.kind, red_yes.answer, red_no.answer) == ("tf", "true", "false")
    # image_path is a name, not a file: the images come from the base64 / index cells.
    assert red_no.images == red_yes.images and store.read_image(red_yes.images[0]) == png("red")
    assert red_yes.meta["image_path"] == "color/0001.png"
    assert red_yes.meta["image_group"] == red_no.meta["image_group"] == "color/0001.png"
    assert blue_yes.meta["image_group"] == "color/0002.png"


def test_mmmu_nine_options_and_image_lists(
    tmp_path: Path, store: Store, png: PNG, b64: B64
) -> None:
    choice, open_item = _items(
        store, layouts.mmmu(tmp_path / "MMMU_DEV_VAL.tsv", b64), "mmmu", "vlmeval"
    )
    assert list(choice.options) == list("ABCDEFGHI") and choice.answer == "I"
    assert choice.options["I"] == "<image 2>"
    assert [store.read_image(h) for h in choice.images] == [png("red"), png("blue")]
    assert choice.meta["image_path"] == ["validation_Art_1_1.png", "validation_Art_1_2.png"]
    assert "<image 1>" in choice.question
    assert open_item.kind == "open" and open_item.reference == "a square"


def test_llava_bench_questions(tmp_path: Path, store: Store, png: PNG) -> None:
    path = layouts.llava_bench(tmp_path / "llava-bench-in-the-wild", png)
    colour, detail, missing = _items(store, path, "llava", "llava")
    assert colour.reference == "Red." and detail.reference is None
    assert colour.caption == "A red square." and colour.category == "conv"
    assert colour.images == detail.images and len(colour.images) == 1
    with Image.open(store.image_path(colour.images[0])) as picture:
        red, green, blue = picture.convert("RGB").getpixel((5, 4))  # type: ignore[misc]
    assert red > 200 and green < 60 and blue < 60
    assert colour.meta["question_id"] == "0" and colour.id == item_id("llava", "0")
    assert missing.images == [] and missing.meta["missing_images"] == ["002.jpg"]
    assert missing.question == "什么动物？"


def test_llava_image_paths_resolve_relative_to_the_file_first(
    tmp_path: Path, store: Store, png: PNG
) -> None:
    """A name written relative to the file (``images/001.jpg``) or a picture beside the file is
    read as written even though an ``images/`` folder exists; a bare name only in ``images/``
    is still found there."""
    path = layouts.llava_bench(tmp_path / "bench", png)
    (path.parent / "cover.png").write_bytes(png("blue"))
    (path.parent / "images" / "cover.png").write_bytes(png("green"))  # not the one meant
    lines = [
        {"question_id": 0, "image": "images/001.jpg", "text": "What colour is it?"},
        {"question_id": 1, "image": "cover.png", "text": "And this one?"},
        {"question_id": 2, "image": "001.jpg", "text": "Bare name."},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    written, beside, bare = _items(store, path, "llava", "llava")
    assert written.images == bare.images and len(written.images) == 1
    assert [store.read_image(h) for h in beside.images] == [png("blue")]
    assert written.meta.get("missing_images") in (None, [])


def test_our_jsonl_and_export_round_trip(tmp_path: Path, store: Store, b64: B64) -> None:
    source = layouts.mmbench(tmp_path / "MMBench_DEV_EN.tsv", b64)
    import_dataset(store, source, name="orig")
    originals = list(iter_items(store, "orig"))
    exported = export_jsonl(store, "orig", tmp_path / "out")
    assert detect_format(exported) == "jsonl"
    import_dataset(store, exported, name="copy")
    copies = list(iter_items(store, "copy"))
    assert [c.id for c in copies] == [item_id("copy", o.meta["source_key"]) for o in originals]
    for original, copy in zip(originals, copies, strict=True):
        assert (copy.question, copy.options, copy.answer, copy.images) == (
            original.question,
            original.options,
            original.answer,
            original.images,
        )
        assert copy.meta["index"] == original.meta["index"]
    # Importing the export under the original name changes nothing: same ids, same content.
    again = import_dataset(store, exported, name="orig-2")
    assert again.items_added == 3
    assert {i.id for i in iter_items(store, "orig-2")} == {
        item_id("orig-2", o.meta["source_key"]) for o in originals
    }


def test_unrecognised_file_lists_what_was_looked_for(tmp_path: Path, store: Store) -> None:
    path = layouts.write_table(tmp_path / "odd.csv", [["foo", "bar"], ["1", "2"]])
    with pytest.raises(DatasetError) as caught:
        import_dataset(store, path)
    message = str(caught.value)
    assert str(path) in message and "columns: bar, foo" in message
    for rule in format_rules():
        assert f"{rule.name} (" in message
    assert "touchstone (TSV: index, question, image" in message
    assert list_benchmarks(store) == [] and get_benchmark(store, "odd") is None
    jsonl = tmp_path / "odd.jsonl"
    jsonl.write_text(json.dumps({"prompt": "x"}) + "\n")
    with pytest.raises(DatasetError, match=r"jsonl with fields: prompt"):
        detect_format(jsonl)


def test_a_registered_rule_is_tried_before_the_dataset_rules(tmp_path: Path) -> None:
    path = layouts.write_table(
        tmp_path / "preds.tsv", [["index", "question", "image_path", "prediction"]], "\t"
    )
    # A VLMEvalKit prediction file keeps the dataset's columns: the predictions rule (priority
    # 10) is tried before the vlmeval dataset rule (100), and a rule below 10 before both.
    assert detect_format(path) == "predictions"
    assert (
        detect_format(
            layouts.write_table(tmp_path / "d.tsv", [["index", "question", "image_path"]], "\t")
        )
        == "vlmeval"
    )
    rule = FormatRule(
        "test-predictions",
        "TSV: index + prediction",
        lambda s: {"index", "prediction"} <= s.columns,
        priority=5,
    )
    register_format(rule)
    try:
        assert detect_format(path) == "test-predictions"
    finally:
        from lvlmbench.datasets.importers import detect

        detect._RULES.remove(rule)


def test_mmmu_options_survive_the_parquet_export(tmp_path: Path, store: Store, b64: B64) -> None:
    import_dataset(store, layouts.mmmu(tmp_path / "MMMU_DEV_VAL.tsv", b64), name="mmmu")
    out = tmp_path / "mmmu.parquet"
    assert export_parquet(store, "mmmu", out) == 2
    first = pq.read_table(out).to_pylist()[0]
    assert (first["E"], first["I"], first["answer"]) == ("five", "<image 2>", "I")


def test_bad_llava_line_names_row_and_field(tmp_path: Path, store: Store, png: PNG) -> None:
    path = layouts.llava_bench(tmp_path / "llava", png)
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[1])
    broken["text"] = ""
    path.write_text("\n".join([lines[0], json.dumps(broken), lines[2]]), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"questions\.jsonl, row 2, column 'text': expected"):
        import_dataset(store, path)
    assert list_benchmarks(store) == []


async def test_test_split_items_are_evaluated(tmp_path: Path, store: Store, b64: B64) -> None:
    path = layouts.mmbench(tmp_path / "MMBench_TEST_EN.tsv", b64, test=True)
    import_dataset(store, path, name="mmb-test")
    client = ModelClient(load_chat_model("baseline/random"), store)
    summary = await run_examinee(store, "mmb-test", client)
    assert (summary.ok, summary.failed) == (3, 0)
    letters = {r.extracted for r in iter_responses(store, model="baseline/random")}
    assert letters <= {"A", "B", "C"} and None not in letters
