"""TouchStone TSV import: base64 images (one or a list), human annotation as caption, the
caption-assisted reference, ability and sub-task."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.store import Store, get_benchmark, iter_items
from lvlmbench.types import TASK_NAME

HEADER = [
    "index",
    "question",
    "human_annotation",
    "gpt4_ha_answer",
    "category",
    "task_name",
    "image",
]


def write_touchstone(path: Path, b64: Callable[[str], str]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(HEADER)
        writer.writerow(
            [
                "0",
                "Describe the image in detail.",
                "A red square, slightly off-centre pixel in the corner.",
                "The image shows a red square.",
                "basic description",
                "detailed description",
                b64("red"),
            ]
        )
        writer.writerow(
            [
                "17",
                "What differs between the two images?",
                "Image 1: blue square. Image 2: green square.",
                "The first is blue and the second green.",
                "multi-image analysis",
                "image comparison",
                json.dumps([b64("blue"), b64("green")]),
            ]
        )
    return path


def test_touchstone_items(
    tmp_path: Path, store: Store, b64: Callable[[str], str], png: Callable[..., bytes]
) -> None:
    path = write_touchstone(tmp_path / "touchstone.tsv", b64)
    summary = import_dataset(store, path, "touchstone", "ts")
    assert (summary.rows, summary.items_added, summary.images) == (2, 2, 3)
    single, multi = iter_items(store, "ts")
    assert single.id == item_id("ts", "0") and multi.id == item_id("ts", "17")
    assert single.caption == "A red square, slightly off-centre pixel in the corner."
    assert single.reference == "The image shows a red square."
    assert single.category == "basic description" and single.kind == "open"
    assert single.meta["task_name"] == "detailed description" and single.meta["index"] == "0"
    assert single.images == [hashlib.sha256(png("red")).hexdigest()]
    assert multi.images == [hashlib.sha256(png(c)).hexdigest() for c in ("blue", "green")]
    for digest in single.images + multi.images:
        assert hashlib.sha256(store.image_path(digest).read_bytes()).hexdigest() == digest
    bench = get_benchmark(store, "ts")
    assert bench is not None and bench.kind == "touchstone"
    again = import_dataset(store, path, "touchstone", "ts")
    assert (again.items_added, again.items_unchanged) == (0, 2)
    assert len(list(iter_items(store, "ts"))) == 2


def test_touchstone_concatenates_multi_image_questions(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    path = write_touchstone(tmp_path / "touchstone.tsv", b64)
    summary = import_dataset(store, path, "touchstone", concat_images=True)
    assert summary.benchmark == "touchstone" and summary.concatenated == 1
    _, multi = iter_items(store, "touchstone")
    assert len(multi.images) == 1 and len(multi.meta["original_images"]) == 2


def test_task_name_reaches_the_score_judge_through_the_item(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    # The importer writes the sub-task where BenchmarkItem.task_name (what the score judge's
    # per-task table reads) finds it; an item without one has None, not "".
    path = write_touchstone(tmp_path / "touchstone.tsv", b64)
    import_dataset(store, path, "touchstone", "ts")
    single, multi = iter_items(store, "ts")
    assert (single.task_name, multi.task_name) == ("detailed description", "image comparison")
    assert single.meta[TASK_NAME] == "detailed description"
    assert single.model_copy(update={"meta": {}}).task_name is None
    assert single.model_copy(update={"meta": {TASK_NAME: ""}}).task_name is None
