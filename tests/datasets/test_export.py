"""Exporting a stored benchmark (datasets.export and `lvlmbench export`): JSONL + image files,
and parquet that Hugging Face ``datasets`` loads offline with decoded images."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pngs import marked_image
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.datasets import export_jsonl, export_parquet
from lvlmbench.store import Store, iter_items, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

BENCH = "exp-bench"
runner = CliRunner()


def _items(store: Store) -> list[BenchmarkItem]:
    red, blue, green = (store.put_image(marked_image(c, (6, 4))) for c in ("red", "blue", "green"))
    meta = {"capability": "spatial understanding", "general_aspect": "position"}
    return [
        BenchmarkItem(
            id="mc-1",
            benchmark=BENCH,
            question="Where is the circle?",
            kind="mc",
            images=[red],
            options={"A": "left", "B": "right", "C": "above", "D": "below"},
            answer="C",
            caption="A red circle above a square.",
            meta={**meta, "fine_aspect": "above and below", "difficulty": "hard", "errors": []},
        ),
        BenchmarkItem(
            id="mc-2",
            benchmark=BENCH,
            question="Which colour is the square? Ünïcode ✓",
            kind="mc",
            images=[red],  # shares its image with mc-1: one file, two items
            options={"A": "red", "B": "blue", "C": "green", "D": "black"},
            answer="A",
            meta={**meta, "fine_aspect": "colour", "difficulty": "easy"},
        ),
        BenchmarkItem(
            id="tf-1",
            benchmark=BENCH,
            question="Is the square blue?",
            kind="tf",
            images=[blue],
            answer="true",
            category="basic understanding",
            meta={"difficulty": "medium", "seed": 7},
        ),
        BenchmarkItem(
            id="open-1",
            benchmark=BENCH,
            question="Compare the two pictures.",
            kind="open",
            images=[green, blue],
            reference="The first is green, the second blue.",
        ),
        BenchmarkItem(
            id="open-2",
            benchmark=BENCH,
            question="Write a poem.",
            kind="open",
            reference="Roses are red.",
        ),
    ]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    (tmp_path / "store").mkdir()
    opened = Store.open(str(tmp_path / "store" / "s.db"))
    put_items(opened, _items(opened))
    put_benchmark(opened, BENCH, "autobench", {})
    # Another benchmark in the same store must not leak into the export.
    put_items(opened, [BenchmarkItem(id="other", benchmark="other", question="q")])
    yield opened
    opened.close()


def test_jsonl_round_trip_keeps_every_item_and_image(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = export_jsonl(store, BENCH, out)
    assert path == out / "items.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    stored = list(iter_items(store, BENCH))
    assert [r["id"] for r in records] == [item.id for item in stored]
    for record, item in zip(records, stored, strict=True):
        files = record.pop("image_files")
        assert BenchmarkItem.model_validate(record) == item
        assert files == [f"images/{digest}.png" for digest in item.images]
        for name, digest in zip(files, item.images, strict=True):
            data = (out / name).read_bytes()
            assert hashlib.sha256(data).hexdigest() == digest
            assert data == store.read_image(digest)
    # Three distinct images, the shared one written once.
    assert len(list((out / "images").iterdir())) == 3
    mc1 = next(r for r in records if r["id"] == "mc-1")
    assert (mc1["answer"], mc1["options"]["C"], mc1["kind"]) == ("C", "above", "mc")
    assert "Ünïcode ✓" in path.read_text(encoding="utf-8")


def test_jsonl_export_is_repeatable(store: Store, tmp_path: Path) -> None:
    first = export_jsonl(store, BENCH, tmp_path / "out").read_bytes()
    assert export_jsonl(store, BENCH, tmp_path / "out").read_bytes() == first


def test_parquet_loads_with_datasets_offline(store: Store, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")

    path = tmp_path / "out" / "data.parquet"
    assert export_parquet(store, BENCH, path, batch_size=2) == 5
    loaded = datasets.load_dataset(
        "parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "hf-cache")
    )
    assert isinstance(loaded.features["image"], datasets.Image)
    assert loaded.num_rows == 5
    assert isinstance(loaded.features["image_2"], datasets.Image)  # open-1 has two pictures
    assert loaded.features["seed"] == datasets.Value("int64")
    assert "benchmark" not in loaded.features and "E" not in loaded.features
    stored = list(iter_items(store, BENCH))
    meta_columns = ("capability", "general_aspect", "fine_aspect", "difficulty", "seed")
    for row, item in zip(loaded, stored, strict=True):
        assert (row["id"], row["kind"]) == (item.id, item.kind)
        assert (row["question"], row["answer"], row["reference"]) == (
            item.question,
            item.answer,
            item.reference,
        )
        assert {k: row[k] for k in "ABCD"} == {k: item.options.get(k) for k in "ABCD"}
        assert (row["caption"], row["category"]) == (item.caption, item.category)
        # Scalar meta entries are columns of their own; the rest is the JSON `meta` column.
        flat = {k: row[k] for k in meta_columns if row[k] is not None}
        assert {**json.loads(row["meta"] or "{}"), **flat} == item.meta
        for column, index in (("image", 0), ("image_2", 1)):
            if len(item.images) <= index:
                assert row[column] is None
                continue
            # The picture, decoded by PIL, pixel for pixel.
            expected = Image.open(io.BytesIO(store.read_image(item.images[index])))
            assert row[column].size == expected.size
            assert np.array_equal(np.asarray(row[column]), np.asarray(expected))
    mc1 = next(row for row in loaded if row["id"] == "mc-1")
    assert (mc1["difficulty"], json.loads(mc1["meta"])) == ("hard", {"errors": []})

    # The Dataset.from_parquet path reads the same rows.
    again = datasets.Dataset.from_parquet(str(path), cache_dir=str(tmp_path / "hf-cache2"))
    assert again["id"] == [item.id for item in stored]


def test_unknown_benchmark_is_a_clear_error(store: Store, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'nosuch' has no items"):
        export_jsonl(store, "nosuch", tmp_path / "out")
    target = tmp_path / "out" / "data.parquet"
    with pytest.raises(ValueError, match="'nosuch' has no items"):
        export_parquet(store, "nosuch", target)
    assert not target.exists()


def test_cli_export_writes_jsonl_images_and_parquet(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "cli-out"
    result = runner.invoke(app, ["export", BENCH, "--out", str(out), "--store", store.url])
    assert result.exit_code == 0, result.output
    assert "(5 rows)" in result.output
    assert len((out / "items.jsonl").read_text(encoding="utf-8").splitlines()) == 5
    assert len(list((out / "images").glob("*.png"))) == 3
    assert (out / "data" / "test-00000-of-00001.parquet").stat().st_size > 0
    assert (out / "README.md").read_text(encoding="utf-8").startswith("---\nlicense:")
    assert not list(out.rglob("*.partial"))

    bare = tmp_path / "bare"
    result = runner.invoke(
        app, ["export", BENCH, "--out", str(bare), "--no-parquet", "--store", store.url]
    )
    assert result.exit_code == 0, result.output
    assert (bare / "items.jsonl").exists() and not (bare / "data").exists()


def test_cli_export_of_unknown_benchmark_exits_2(store: Store, tmp_path: Path) -> None:
    out = tmp_path / "cli-out"
    result = runner.invoke(app, ["export", "nosuch", "--out", str(out), "--store", store.url])
    assert result.exit_code == 2
    assert "no benchmark 'nosuch'" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()
