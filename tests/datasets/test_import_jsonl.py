"""Generic JSONL import: documented fields, images as path/base64/data URL/URL, kinds, meta."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.store import Store, iter_items


def write_jsonl(tmp_path: Path, png: Callable[..., bytes], b64: Callable[[str], str]) -> Path:
    (tmp_path / "pics").mkdir()
    (tmp_path / "pics" / "red.png").write_bytes(png("red"))
    records = [
        {
            "id": "q1",
            "question": "What is shown?",
            "image": "pics/red.png",
            "reference": "A red square.",
            "caption": "A red square.",
            "category": "description",
            "source": "handmade",
            "meta": {"difficulty": "easy"},
        },
        {
            "instruction": "Pick the colour of the second image.",
            "images": [f"data:image/png;base64,{b64('blue')}", b64("green")],
            "options": ["blue", "green", "red", "grey"],
            "answer": "b",
        },
        {"id": 7, "question": "Is the square red?", "image": "pics/red.png", "answer": "yes"},
        {"id": "web", "question": "Caption this.", "image_url": "http://example.com/a.png"},
    ]
    path = tmp_path / "mine.jsonl"
    path.write_text(
        "\n".join(json.dumps(r) for r in records[:2])
        + "\n\n"
        + "\n".join(json.dumps(r) for r in records[2:])
        + "\n"
    )
    return path


def test_jsonl_fields(
    tmp_path: Path, store: Store, png: Callable[..., bytes], b64: Callable[[str], str]
) -> None:
    path = write_jsonl(tmp_path, png, b64)
    summary = import_dataset(store, path, "jsonl")
    # red.png is named twice and counted once: red, blue, green
    assert (summary.benchmark, summary.items_added, summary.images) == ("mine", 4, 3)
    assert summary.urls_not_fetched == ["http://example.com/a.png"]
    first, choice, truth, web = iter_items(store, "mine")
    assert first.id == item_id("mine", "q1") and choice.id == item_id("mine", "line-2")
    assert truth.id == item_id("mine", "7")
    assert first.kind == "open" and first.reference == "A red square."
    assert first.caption == "A red square." and first.category == "description"
    assert first.meta["source"] == "handmade" and first.meta["difficulty"] == "easy"
    assert first.images == [hashlib.sha256(png("red")).hexdigest()]
    assert choice.kind == "mc" and choice.answer == "B" and choice.options["B"] == "green"
    assert choice.question == "Pick the colour of the second image."
    assert choice.images == [hashlib.sha256(png(c)).hexdigest() for c in ("blue", "green")]
    assert truth.kind == "tf" and truth.answer == "true"
    assert truth.meta["row"] == 4  # line numbers count the blank line
    assert web.images == [] and web.meta["image_urls"] == ["http://example.com/a.png"]
    assert import_dataset(store, path, "jsonl").items_added == 0
    assert len(list(iter_items(store, "mine"))) == 4
