"""Hugging Face datasets: parquet files, a Hub-layout folder (``data/test-00000-of-00001.parquet``,
as ``lvlmbench export`` writes it) or a ``save_to_disk`` folder (``dataset_info.json``,
``state.json`` and Arrow files; a ``DatasetDict`` folder imports its ``test`` split).

Columns: ``question`` or ``instruction`` (required); image columns (the ``Image`` feature's
``{bytes, path}`` struct, or a list of them) in column order; options as letter columns ``A``..``I``
or an ``options``/``choices`` list (an integer ``answer`` then indexes it); ``answer``, ``kind``,
``reference``, ``caption``, ``category`` as in JSONL; ``id`` keys the item (else the row number);
a ``meta`` column of JSON objects is merged into the item's meta, and every other column goes to
meta under its name (empty cells left out). ``lvlmbench export`` writes exactly these columns, so
its items read back equal. Imported under the exported benchmark's own name (the default), an
export restores that benchmark: its items keep their ids, and its kind and definition
(AutoBench-V's generation report: plan, self-check) come from the parquet metadata. Under
another name the ids derive from that name and the key each item was first imported under
(``meta.source_key``, else its id), as for any import.

Reading needs pyarrow (the ``export`` extra); ``datasets`` itself is not needed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    DatasetError,
    ParsedItem,
    ProgressHook,
    Row,
    report_progress,
    require_columns,
)
from lvlmbench.datasets.importers._images import ImageAccess
from lvlmbench.datasets.importers.jsonl import item_kind
from lvlmbench.ids import JSONTooDeep, load_json
from lvlmbench.store import StoredBenchmark

__all__ = [
    "EXPORT_METADATA_KEY",
    "HF_FORMAT",
    "META_COLUMN",
    "exported_benchmark",
    "hf_benchmark_name",
    "is_hf_dataset",
    "locate_hf_files",
    "parse_hf",
]

HF_FORMAT = "hf"
META_COLUMN = "meta"
"""JSON objects: the meta entries that are not scalar columns of their own."""
EXPORT_METADATA_KEY = b"lvlmbench"
"""Parquet schema metadata ``lvlmbench export`` adds: the benchmark's name and kind."""
_LETTERS = tuple("ABCDEFGHI")
_OPTION_LISTS = ("options", "choices")
_CONSUMED = {"id", "question", "instruction", "kind", "answer", "reference", "caption"}
_CONSUMED |= {"category", META_COLUMN, *_LETTERS}
_SHARD = re.compile(r"^(?P<split>[A-Za-z0-9_.]+?)-\d{5}-of-\d{5}\.parquet$")
_PYARROW_MISSING = "reading parquet/Arrow needs pyarrow: pip install 'lvlmbench[export]'"


def is_hf_dataset(path: Path) -> bool:
    """Whether ``path`` is a parquet file or a folder holding a dataset's parquet/Arrow files."""
    if path.is_file():
        return path.suffix.lower() == ".parquet"
    if not path.is_dir():
        return False
    markers = ("dataset_dict.json", "state.json")
    return any((path / m).is_file() for m in markers) or any(path.rglob("*.parquet"))


def _save_to_disk_files(path: Path) -> list[Path]:
    try:
        state = load_json((path / "state.json").read_text(encoding="utf-8"))
        names = [entry["filename"] for entry in state["_data_files"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(
            path / "state.json", f"not a datasets save_to_disk state: {exc}"
        ) from None
    return [path / name for name in names]


def _pick_split(path: Path, splits: list[str]) -> str:
    if "test" in splits or len(splits) == 1:
        return "test" if "test" in splits else splits[0]
    raise DatasetError(
        path,
        f"several splits ({', '.join(splits)}) and none is 'test'; import one split's folder "
        "or files",
    )


def _parquet_split(path: Path, file: Path) -> str:
    shard = _SHARD.match(file.name)
    if shard:
        return shard["split"]
    return file.parent.name if file.parent != path else ""


def locate_hf_files(path: Path) -> tuple[str, list[Path]]:
    """("parquet" or "arrow", the files to read) for a parquet file or a dataset folder."""
    if path.is_file():
        return "parquet", [path]
    if (path / "dataset_dict.json").is_file():
        try:
            splits = load_json((path / "dataset_dict.json").read_text(encoding="utf-8"))["splits"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DatasetError(path / "dataset_dict.json", f"not a DatasetDict: {exc}") from None
        return locate_hf_files(path / _pick_split(path, [str(s) for s in splits]))
    if (path / "state.json").is_file():
        return "arrow", _save_to_disk_files(path)
    files = sorted(path.rglob("*.parquet"))
    if not files:
        raise DatasetError(
            path,
            "a folder with no dataset: expected parquet files (data/test-00000-of-00001.parquet, "
            "as `lvlmbench export` writes) or a datasets save_to_disk folder (state.json)",
        )
    by_split: dict[str, list[Path]] = {}
    for file in files:
        by_split.setdefault(_parquet_split(path, file), []).append(file)
    return "parquet", by_split[_pick_split(path, sorted(by_split))]


def _batches(kind: str, file: Path) -> tuple[Any, int, Iterator[Any]]:
    """(schema, rows, record batches of at most 256 rows) of one file, read batch by batch
    (a parquet file or Arrow stream is never loaded whole); DatasetError when unreadable."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError(file, _PYARROW_MISSING) from None

    def stream() -> Iterator[Any]:
        try:
            if kind == "parquet":
                yield from pq.ParquetFile(str(file)).iter_batches(batch_size=256)
            else:  # datasets writes Arrow IPC streams
                with pa.memory_map(str(file)) as source:
                    yield from pa.ipc.open_stream(source)
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(file, f"not a readable {kind} file: {exc}") from None

    try:
        if kind == "parquet":
            parquet = pq.ParquetFile(str(file))
            return parquet.schema_arrow, parquet.metadata.num_rows, stream()
        with pa.memory_map(str(file)) as source:
            reader = pa.ipc.open_stream(source)
            schema, rows = reader.schema, 0
            for batch in reader:  # counted without keeping a batch: the progress total
                rows += batch.num_rows
        return schema, rows, stream()
    except (OSError, pa.ArrowException) as exc:
        raise DatasetError(file, f"not a readable {kind} file: {exc}") from None


def hf_benchmark_name(path: Path) -> str:
    """The default benchmark name: the exported benchmark's (from the parquet metadata of
    ``lvlmbench export``), else the folder's (or file's) name."""
    exported = exported_benchmark(path)
    if exported is not None:
        return exported.name
    return path.name if path.is_dir() else path.stem


def exported_benchmark(path: Path) -> StoredBenchmark | None:
    """The benchmark an ``lvlmbench export`` holds, as it was stored: its name, kind and
    definition (AutoBench-V's generation report), from the parquet metadata the export writes.
    None for any other dataset, or metadata that does not read (the import itself reports
    what is wrong with the files); an export written before the definition travelled with it
    gives its kind with an empty definition."""
    try:
        kind, files = locate_hf_files(path)
        if kind != "parquet":
            return None
        import pyarrow.parquet as pq

        ours = (pq.read_schema(str(files[0])).metadata or {}).get(EXPORT_METADATA_KEY)
        if ours is None:
            return None
        record = load_json(ours)
        return StoredBenchmark(
            name=str(record["benchmark"]),
            kind=str(record.get("kind") or HF_FORMAT),
            data=record.get("data") or {},
        )
    except (ImportError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _image_columns(schema: Any) -> list[str]:
    import pyarrow as pa

    def is_image(kind: Any) -> bool:
        return bool(pa.types.is_struct(kind) and {"bytes", "path"} <= {f.name for f in kind})

    return [
        f.name
        for f in schema
        if is_image(f.type) or (pa.types.is_list(f.type) and is_image(f.type.value_type))
    ]


def _image_bytes(
    row: Row, column: str, value: dict[str, Any], base: Path, access: ImageAccess
) -> bytes:
    data = value.get("bytes")
    if data is None and value.get("path"):
        file = Path(str(value["path"]))
        file = file if file.is_absolute() else base / file
        if not file.is_file():
            raise row.error(f"image has no bytes and its path {value['path']!r} is no file", column)
        if not access.allows(file):
            raise row.error(
                f"image path {value['path']!r} lies outside {access.where()} (links and '..' "
                "followed); pass --allow-images-outside for a dataset you trust",
                column,
            )
        data = access.read(file)
    if not isinstance(data, bytes):
        raise row.error("expected an image ({bytes, path}) with bytes or a readable path", column)
    problem = access.check(data)
    if problem is not None:
        raise row.error(f"not a readable image: {problem}", column)
    return data


def _images(
    row: Row, record: dict[str, Any], columns: list[str], base: Path, access: ImageAccess
) -> list[bytes]:
    images = []
    for column in columns:
        value = record.get(column)
        for one in value if isinstance(value, list) else [value]:
            if one is not None:
                images.append(_image_bytes(row, column, one, base, access))
    return images


def _options(row: Row, record: dict[str, Any]) -> tuple[dict[str, str], str | None]:
    """Options by letter and the list column they came from (None: letter columns)."""
    lettered = {k: str(record[k]) for k in _LETTERS if record.get(k) not in (None, "")}
    if lettered:
        return lettered, None
    for column in _OPTION_LISTS:
        value = record.get(column)
        if isinstance(value, list) and value:
            return {chr(ord("A") + i): str(v) for i, v in enumerate(value)}, column
        if value is not None and not isinstance(value, list):
            raise row.error("expected a list of options", column)
    return {}, None


def _meta(row: Row, record: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    packed = record.get(META_COLUMN)
    if packed not in (None, ""):
        try:
            decoded = load_json(packed) if isinstance(packed, str) else None
        except JSONTooDeep as exc:
            raise row.error(str(exc), META_COLUMN) from None
        except ValueError:
            decoded = None
        if not isinstance(decoded, dict):
            raise row.error("expected a JSON object", META_COLUMN)
        meta.update(decoded)
    for name, value in record.items():
        if name in skip or name.startswith("__index_level_"):
            continue  # consumed, or the row index pandas writes along
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue  # an empty cell (pandas writes missing numbers as NaN)
        if isinstance(value, bytes):
            raise row.error("binary data is neither an image nor text; drop the column", name)
        meta[name] = (
            value if isinstance(value, str | int | float | bool | list | dict) else str(value)
        )
    return meta


def _parse_row(
    path: Path,
    number: int,
    record: dict[str, Any],
    images: list[str],
    base: Path,
    access: ImageAccess,
    exported: bool = False,
) -> ParsedItem:
    row = Row(path, number, number, {})
    question = next(
        (str(record[c]).strip() for c in ("question", "instruction") if record.get(c)), ""
    )
    if not question:
        raise row.error("expected a non-empty question (or instruction)", "question")
    options, list_column = _options(row, record)
    fields = {k: record.get(k) for k in ("answer", "reference", "kind", "split")}
    if isinstance(fields["answer"], int) and not isinstance(fields["answer"], bool) and list_column:
        index = fields["answer"]
        fields["answer"] = chr(ord("A") + index) if 0 <= index < len(options) else str(index)
    kind, answer, reference = item_kind(row, fields, options)
    meta = _meta(row, record, _CONSUMED | set(images) | {list_column or ""})
    key = meta.get("source_key") or record.get("id")
    caption, category = record.get("caption"), record.get("category")
    return ParsedItem(
        key=str(key) if key not in (None, "") else f"row-{number}",
        row=number,
        question=question,
        images=_images(row, record, images, base, access),
        kind=kind,
        options=options,
        answer=answer,
        reference=reference,
        caption=str(caption) if caption not in (None, "") else None,
        category=str(category) if category not in (None, "") else None,
        meta=meta,
        exported_id=str(record["id"]) if exported and record.get("id") else None,
    )


def parse_hf(
    path: Path, on_progress: ProgressHook | None = None, *, access: ImageAccess | None = None
) -> Iterator[ParsedItem]:
    """Validated items of a parquet file or dataset folder, streamed 256 rows at a time;
    DatasetError at the first bad row (rows numbered from 1 across all files). Images are in
    the files; an image given by path is read only where ``access`` allows (default: the
    dataset's folder)."""
    kind, files = locate_hf_files(path)
    base = path if path.is_dir() else path.parent
    access = access if access is not None else ImageAccess(base)
    count = 0
    for file in files:
        schema, rows, batches = _batches(kind, file)
        require_columns(file, list(schema.names), ("question", "instruction"))
        images = _image_columns(schema)
        exported = EXPORT_METADATA_KEY in (schema.metadata or {})
        for batch in batches:
            for record in batch.to_pylist():
                count += 1
                yield _parse_row(file, count, record, images, base, access, exported)
                report_progress(on_progress, count, rows)
    if not count:
        raise DatasetError(path, "no items: the dataset has no rows")
