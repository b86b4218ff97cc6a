"""Export a stored benchmark so other tools can run it: JSONL + image files, and parquet that
Hugging Face ``datasets`` loads with decoded images.

The parquet is written with pyarrow directly and carries the ``huggingface`` schema metadata
that ``datasets`` reads its features from (images as {bytes, path} structs), so exporting needs
pyarrow only, not the whole ``datasets`` stack.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.store import Store, iter_items
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem

__all__ = ["export_jsonl", "export_parquet"]

_LETTERS = tuple("ABCDEFGHI")  # MMMU has up to nine options
_STRING_COLUMNS = (
    "id",
    "benchmark",
    "kind",
    "question",
    *_LETTERS,
    "answer",
    "reference",
    "caption",
    "capability",
    "general_aspect",
    "fine_aspect",
    "difficulty",
    "meta",
)


def _flat(item: BenchmarkItem) -> dict[str, Any]:
    meta = item.meta
    row: dict[str, Any] = {
        "id": item.id,
        "benchmark": item.benchmark,
        "kind": item.kind,
        "question": item.question,
        "answer": item.answer,
        "reference": item.reference,
        "caption": item.caption,
        "capability": str(meta.get("capability", item.category or "")),
        "general_aspect": str(meta.get("general_aspect", "")),
        "fine_aspect": str(meta.get("fine_aspect", "")),
        "difficulty": str(meta.get("difficulty", "")),
        "meta": json.dumps(meta, sort_keys=True, default=str),
    }
    for letter in _LETTERS:
        row[letter] = item.options.get(letter)
    return row


def export_jsonl(store: Store, benchmark: str, out_dir: Path) -> Path:
    """Write ``out_dir/items.jsonl`` (one item per line, image paths relative to ``out_dir``)
    and copy the images to ``out_dir/images/``. Returns the JSONL path."""
    if store.count(tables.items, benchmark=benchmark) == 0:
        raise ValueError(f"benchmark {benchmark!r} has no items in {store.url}")
    images_dir = out_dir / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "items.jsonl"
    with path.open("w", encoding="utf-8") as sink:
        for item in iter_items(store, benchmark):
            names = []
            for digest in item.images:
                target = images_dir / f"{digest}.png"
                if not target.exists():
                    shutil.copyfile(store.image_path(digest), target)
                names.append(f"images/{digest}.png")
            record = {**item.model_dump(mode="json"), "image_files": names}
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def _hf_metadata() -> bytes:
    features: dict[str, Any] = {
        name: {"dtype": "string", "_type": "Value"} for name in _STRING_COLUMNS
    }
    features["image"] = {"_type": "Image"}
    return json.dumps({"info": {"features": features}}).encode("utf-8")


def _batches(store: Store, benchmark: str, size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for item in iter_items(store, benchmark):
        row = _flat(item)
        digest = item.images[0] if item.images else None
        row["image"] = (
            {"bytes": store.read_image(digest), "path": f"{digest}.png"} if digest else None
        )
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def export_parquet(store: Store, benchmark: str, path: Path, batch_size: int = 256) -> int:
    """Write the benchmark as one parquet file (first image per item) and return the row count.
    Load it with ``datasets.load_dataset("parquet", data_files=str(path))``."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("parquet export needs pyarrow: pip install 'lvlmbench[export]'") from None
    image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    fields = [pa.field(name, pa.string()) for name in _STRING_COLUMNS]
    schema = pa.schema(
        [*fields, pa.field("image", image_type)], metadata={b"huggingface": _hf_metadata()}
    )
    rows = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(str(path), schema) as writer:
        for batch in _batches(store, benchmark, batch_size):
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            rows += len(batch)
    if rows == 0:
        path.unlink(missing_ok=True)
        raise ValueError(f"benchmark {benchmark!r} has no items in {store.url}")
    return rows
