"""VLMEvalKit TSV import: multiple choice with options A-D, yes/no as true/false, open answers,
shared images by index, multi-image lists written as Python literals, hints and l2-category."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable
from pathlib import Path

from lvlmbench.datasets import import_dataset
from lvlmbench.store import Store, iter_items

HEADER = [
    "index",
    "question",
    "hint",
    "A",
    "B",
    "C",
    "D",
    "answer",
    "category",
    "l2-category",
    "image",
]


def write_vlmeval(path: Path, b64: Callable[[str], str]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(HEADER)
        writer.writerow(
            [
                "1",
                "What colour?",
                "nan",
                "red",
                "blue",
                "green",
                "grey",
                "a",
                "colour",
                "perception",
                b64("red"),
            ]
        )
        writer.writerow(
            [
                "2",
                "Which is bigger?",
                "Look closely.",
                "left",
                "right",
                "nan",
                "nan",
                "B",
                "size",
                "reasoning",
                "1",
            ]
        )
        writer.writerow(["3", "Is it blue?", "", "", "", "", "", "Yes", "colour", "", b64("blue")])
        writer.writerow(
            [
                "4",
                "Compare the images.",
                "",
                "",
                "",
                "",
                "",
                "They differ.",
                "multi",
                "",
                str([b64("blue"), b64("green")]),
            ]
        )
    return path


def test_vlmeval_kinds_and_images(
    tmp_path: Path, store: Store, b64: Callable[[str], str], png: Callable[..., bytes]
) -> None:
    path = write_vlmeval(tmp_path / "MMBench_tiny.tsv", b64)
    summary = import_dataset(store, path, "vlmeval")
    # distinct pictures: red (row 2 shows row 1's), blue (rows 3 and 4), green
    assert (summary.benchmark, summary.items_added, summary.images) == ("MMBench_tiny", 4, 3)
    mc, shared, tf, open_item = iter_items(store, "MMBench_tiny")
    assert mc.kind == "mc" and mc.answer == "A"
    assert mc.options == {"A": "red", "B": "blue", "C": "green", "D": "grey"}
    assert mc.category == "colour" and mc.meta["l2_category"] == "perception"
    assert "hint" not in mc.meta and mc.question == "What colour?"
    assert shared.options == {"A": "left", "B": "right"} and shared.answer == "B"
    assert shared.images == mc.images and shared.meta["image_from_index"] == "1"
    assert shared.question == "Hint: Look closely.\nWhich is bigger?"
    assert tf.kind == "tf" and tf.answer == "true" and tf.meta["answer_raw"] == "Yes"
    assert open_item.kind == "open" and open_item.reference == "They differ."
    assert open_item.images == [hashlib.sha256(png(c)).hexdigest() for c in ("blue", "green")]
    again = import_dataset(store, path, "vlmeval")
    assert again.items_added == 0 and again.items_unchanged == 4
