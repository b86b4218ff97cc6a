"""Export a stored benchmark so other tools can run it, in the Hugging Face Hub's layout::

    OUT/README.md                           dataset card (YAML front matter + prose)
    OUT/data/test-00000-of-00001.parquet    the `test` split, images embedded
    OUT/items.jsonl, OUT/images/            the same items as JSON lines + image files
    OUT/benchmark.json                      the benchmark's kind and stored definition

The parquet is written with pyarrow directly and carries the ``huggingface`` schema metadata
that ``datasets`` reads its features from (``Image`` features as {bytes, path} structs), so
exporting needs pyarrow only, not the whole ``datasets`` stack. Columns: ``id``, ``image`` (and
``image_2``... for items with more pictures), ``question``, ``kind``, the option letters used,
``answer``, ``reference``, ``caption``, ``category``, one typed column per meta entry that is a
scalar on every item that has it (``capability``, ``difficulty``, ...) and ``meta``: the rest of
the item's meta as a JSON object. ``lvlmbench import OUT`` reads it back to equal items.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lvlmbench.datasets._export_layout import COLUMNS_AFTER_OPTIONS, TEXT_COLUMNS, ExportLayout
from lvlmbench.datasets.card import dataset_card
from lvlmbench.datasets.importers.hf import EXPORT_METADATA_KEY, META_COLUMN
from lvlmbench.datasets.importers.jsonl import EXPORTED_BENCHMARK, EXPORTED_ITEMS
from lvlmbench.store import Store, count_items, get_benchmark, iter_items
from lvlmbench.types import BenchmarkItem

__all__ = [
    "PARQUET_PATH",
    "ExportLayout",
    "HubExport",
    "export_hub",
    "export_jsonl",
    "export_parquet",
    "plan_export",
    "write_parquet",
]

PARQUET_PATH = "data/test-00000-of-00001.parquet"
"""Where the `test` split goes, relative to the export folder (the Hub's naming)."""
_LETTERS = tuple("ABCDEFGHI")  # MMMU has up to nine options
_RESERVED = {"id", "instruction", "options", "choices", "images", META_COLUMN}
_RESERVED |= {*TEXT_COLUMNS, *COLUMNS_AFTER_OPTIONS, *_LETTERS}
_IMAGE_COLUMN = re.compile(r"^image(_\d+)?$")
_FIRST_META = ("capability", "general_aspect", "fine_aspect", "difficulty")
_PYARROW_MISSING = "parquet export needs pyarrow: pip install 'lvlmbench[export]'"


def _scalar_dtype(value: Any) -> str | None:
    """The HF ``Value`` dtype a meta value is stored as, None when it is not a plain scalar."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64" if -(2**63) <= value < 2**63 else None
    if isinstance(value, float):
        return "float64"
    return "string" if isinstance(value, str) else None


def plan_export(store: Store, benchmark: str) -> ExportLayout:
    """One pass over the items: which columns the export needs; ValueError when it has none."""
    stored = get_benchmark(store, benchmark)
    if stored is None or count_items(store, benchmark) == 0:
        raise ValueError(f"benchmark {benchmark!r} has no items in {store.url}")
    layout = ExportLayout(benchmark, stored.kind, stored.data)
    letters: set[str] = set()
    dtypes: dict[str, set[str | None]] = {}
    digests: set[str] = set()
    most_images = 0
    for item in iter_items(store, benchmark):
        layout.rows += 1
        letters |= set(item.options)
        most_images = max(most_images, len(item.images))
        digests.update(item.images)
        layout.kinds[item.kind] += 1
        layout.capabilities[str(item.meta.get("capability") or item.category or "")] += 1
        layout.difficulties[str(item.meta.get("difficulty") or "")] += 1
        for key, value in item.meta.items():
            dtypes.setdefault(key, set()).add(_scalar_dtype(value))
    unknown = letters - set(_LETTERS)
    if unknown:
        raise ValueError(f"option letters {sorted(unknown)} are beyond A..I")
    layout.letters = [letter for letter in _LETTERS if letter in letters]
    extra = [f"image_{n}" for n in range(2, most_images + 1)]
    layout.image_columns = ["image", *extra] if most_images else []
    flat = {k: next(iter(d)) for k, d in dtypes.items() if len(d) == 1 and None not in d}
    flat = {k: t for k, t in flat.items() if k not in _RESERVED and not _IMAGE_COLUMN.match(k)}
    order = [k for k in _FIRST_META if k in flat] + sorted(k for k in flat if k not in _FIRST_META)
    layout.meta_columns = {k: str(flat[k]) for k in order}
    layout.images = len(digests)
    return layout


def export_jsonl(store: Store, benchmark: str, out_dir: Path) -> Path:
    """Write ``out_dir/items.jsonl`` (one item per line, image paths relative to ``out_dir`` in
    ``image_files``), copy the images to ``out_dir/images/`` and write the benchmark's kind and
    definition to ``out_dir/benchmark.json``. Returns the JSONL path."""
    if count_items(store, benchmark) == 0:
        raise ValueError(f"benchmark {benchmark!r} has no items in {store.url}")
    definition = get_benchmark(store, benchmark)
    images_dir = out_dir / "images"
    images_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / EXPORTED_ITEMS
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as sink:
        for item in iter_items(store, benchmark):
            names = []
            for digest in item.images:
                stored = store.image_path(digest)  # .png, or .jpg for a JPEG kept as given
                target = images_dir / stored.name
                if not target.exists():
                    shutil.copyfile(stored, target)
                names.append(f"images/{stored.name}")
            record = {**item.model_dump(mode="json"), "image_files": names}
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    os.replace(partial, path)  # a reader never sees half a file
    if definition is not None:  # what `import` restores the benchmark from (kind, report)
        own = {"benchmark": benchmark, "kind": definition.kind, "data": definition.data.as_json()}
        (out_dir / EXPORTED_BENCHMARK).write_text(
            json.dumps(own, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    return path


def _hf_metadata(layout: ExportLayout) -> dict[bytes, bytes]:
    features: dict[str, Any] = {}
    for name, dtype in layout.features():
        image = {"_type": "Image"}
        features[name] = image if dtype == "image" else {"dtype": dtype, "_type": "Value"}
    # The benchmark's own definition (kind and stored data: AutoBench-V's generation report)
    # travels with it, so importing the export under its name restores the benchmark as it was.
    ours = {
        "benchmark": layout.benchmark,
        "kind": layout.kind,
        "data": layout.data.as_json(),
        "version": 1,
    }
    return {
        b"huggingface": json.dumps({"info": {"features": features}}).encode("utf-8"),
        EXPORT_METADATA_KEY: json.dumps(ours).encode("utf-8"),
    }


def _row(store: Store, item: BenchmarkItem, layout: ExportLayout) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": item.id,
        "question": item.question,
        "kind": item.kind,
        **{letter: item.options.get(letter) for letter in layout.letters},
        "answer": item.answer,
        "reference": item.reference,
        "caption": item.caption,
        "category": item.category,
    }
    for index, column in enumerate(layout.image_columns):
        digest = item.images[index] if index < len(item.images) else None
        row[column] = (
            {"bytes": store.read_image(digest), "path": store.image_path(digest).name}
            if digest
            else None
        )
    for key in layout.meta_columns:
        row[key] = item.meta.get(key)
    rest = {k: v for k, v in item.meta.items() if k not in layout.meta_columns}
    row[META_COLUMN] = json.dumps(rest, sort_keys=True, ensure_ascii=False) if rest else None
    return row


def _batches(store: Store, layout: ExportLayout, size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for item in iter_items(store, layout.benchmark):
        batch.append(_row(store, item, layout))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def write_parquet(store: Store, layout: ExportLayout, path: Path, batch_size: int = 256) -> None:
    """Write ``layout``'s benchmark to ``path`` (via a temporary file: never half written)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(_PYARROW_MISSING) from None
    arrow_types = {
        "string": pa.string(),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "bool": pa.bool_(),
        "image": pa.struct([("bytes", pa.binary()), ("path", pa.string())]),
    }
    schema = pa.schema(
        [pa.field(name, arrow_types[dtype]) for name, dtype in layout.features()],
        metadata=_hf_metadata(layout),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with pq.ParquetWriter(str(partial), schema) as writer:
        for batch in _batches(store, layout, batch_size):
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    # A split's num_bytes is the size of its Arrow data as `datasets` reads the parquet back
    # (a table built from Python rows can differ by a few bytes), read batch by batch.
    written = pq.ParquetFile(str(partial))
    layout.num_bytes = sum(b.nbytes for b in written.iter_batches(batch_size=batch_size))
    layout.download_size = partial.stat().st_size
    os.replace(partial, path)


def export_parquet(store: Store, benchmark: str, path: Path, batch_size: int = 256) -> int:
    """Write the benchmark as one parquet file and return the row count. Load it with
    ``datasets.load_dataset("parquet", data_files=str(path))``."""
    layout = plan_export(store, benchmark)
    write_parquet(store, layout, path, batch_size)
    return layout.rows


@dataclass(frozen=True)
class HubExport:
    """What :func:`export_hub` wrote."""

    parquet: Path
    card: Path
    jsonl: Path | None
    rows: int
    license: str


def export_hub(
    store: Store,
    benchmark: str,
    out_dir: Path,
    *,
    license: str | None = None,
    jsonl: bool = True,
    batch_size: int = 256,
) -> HubExport:
    """Write the Hub layout (``data/test-00000-of-00001.parquet`` + ``README.md`` card) and, with
    ``jsonl``, ``items.jsonl`` + ``images/`` into ``out_dir``. ``license`` defaults to the
    card's choice (see :func:`~lvlmbench.datasets.card.dataset_card`)."""
    layout = plan_export(store, benchmark)
    parquet = out_dir / PARQUET_PATH
    write_parquet(store, layout, parquet, batch_size)
    text, chosen = dataset_card(layout, license)
    card = out_dir / "README.md"
    card.write_text(text, encoding="utf-8")
    lines = export_jsonl(store, benchmark, out_dir) if jsonl else None
    return HubExport(parquet, card, lines, layout.rows, chosen)
