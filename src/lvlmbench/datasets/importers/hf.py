"""Hugging Face datasets: parquet files, a Hub-layout folder (``data/test-00000-of-00001.parquet``,
as ``lvlmbench export`` writes it) or a ``save_to_disk`` folder (``dataset_info.json``,
``state.json`` and Arrow files; a ``DatasetDict`` folder imports its ``test`` split).

Columns: ``question`` or ``instruction`` (required); image columns (the ``Image`` feature's
``{bytes, path}`` struct, or a list of them) in column order; options as letter columns ``A``..``I``
or an ``options``/``choices`` list (an integer ``answer`` then indexes it); ``answer``, ``kind``,
``reference``, ``caption``, ``category`` as in JSONL; ``id`` keys the item (else the row number);
a ``meta`` column of JSON objects is merged into the item's meta, and every other column goes to
meta under its name (empty cells left out). ``lvlmbench export`` writes exactly these columns, so
its items read back equal; an exported item keeps the key it was first imported under
(``meta.source_key``), so ids are the original import's under the same benchmark name.

Reading needs pyarrow (the ``export`` extra); ``datasets`` itself is not needed.
"""

from __future__ import annotations

import json
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
from lvlmbench.datasets.importers._images import ImageRoot, check_image
from lvlmbench.datasets.importers.jsonl import item_kind

__all__ = [
    "EXPORT_METADATA_KEY",
    "HF_FORMAT",
    "META_COLUMN",
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
        state = json.loads((path / "state.json").read_text(encoding="utf-8"))
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
            splits = json.loads((path / "dataset_dict.json").read_text(encoding="utf-8"))["splits"]
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


def _tables(kind: str, files: list[Path]) -> Iterator[tuple[Path, Any]]:
    """(file, pyarrow.Table) of every file, in order; DatasetError for an unreadable one."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError(files[0], _PYARROW_MISSING) from None
    for file in files:
        try:
            if kind == "parquet":
                table = pq.read_table(str(file))
            else:  # datasets writes Arrow IPC streams
                with pa.memory_map(str(file)) as source:
                    table = pa.ipc.open_stream(source).read_all()
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(file, f"not a readable {kind} file: {exc}") from None
        yield file, table


def hf_benchmark_name(path: Path) -> str:
    """The default benchmark name: the exported benchmark's (from the parquet metadata of
    ``lvlmbench export``), else the folder's (or file's) name."""
    fallback = path.name if path.is_dir() else path.stem
    try:
        kind, files = locate_hf_files(path)
        if kind == "parquet":
            import pyarrow.parquet as pq

            metadata = pq.read_schema(str(files[0])).metadata or {}
            if EXPORT_METADATA_KEY in metadata:
                return str(json.loads(metadata[EXPORT_METADATA_KEY])["benchmark"])
    except (ImportError, OSError, ValueError, KeyError, TypeError):
        pass  # the import itself reports what is wrong with the files
    return fallback


def _image_columns(schema: Any) -> list[str]:
    import pyarrow as pa

    def is_image(kind: Any) -> bool:
        return bool(pa.types.is_struct(kind) and {"bytes", "path"} <= {f.name for f in kind})

    return [
        f.name
        for f in schema
        if is_image(f.type) or (pa.types.is_list(f.type) and is_image(f.type.value_type))
    ]


def _image_bytes(row: Row, column: str, value: dict[str, Any], base: Path) -> bytes:
    data = value.get("bytes")
    if data is None and value.get("path"):
        file = Path(str(value["path"]))
        file = file if file.is_absolute() else base / file
        if not file.is_file():
            raise row.error(f"image has no bytes and its path {value['path']!r} is no file", column)
        data = file.read_bytes()
    if not isinstance(data, bytes):
        raise row.error("expected an image ({bytes, path}) with bytes or a readable path", column)
    problem = check_image(data)
    if problem is not None:
        raise row.error(f"not a readable image: {problem}", column)
    return data


def _images(row: Row, record: dict[str, Any], columns: list[str], base: Path) -> list[bytes]:
    images = []
    for column in columns:
        value = record.get(column)
        for one in value if isinstance(value, list) else [value]:
            if one is not None:
                images.append(_image_bytes(row, column, one, base))
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
            decoded = json.loads(packed) if isinstance(packed, str) else None
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
    path: Path, number: int, record: dict[str, Any], images: list[str], base: Path
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
        images=_images(row, record, images, base),
        kind=kind,
        options=options,
        answer=answer,
        reference=reference,
        caption=str(caption) if caption not in (None, "") else None,
        category=str(category) if category not in (None, "") else None,
        meta=meta,
    )


def parse_hf(
    path: Path, on_progress: ProgressHook | None = None, *, root: ImageRoot | None = None
) -> list[ParsedItem]:
    """Validated items of a parquet file or dataset folder; DatasetError at the first bad row
    (rows numbered from 1 across all files). ``root`` is unused: images are in the files."""
    kind, files = locate_hf_files(path)
    base = path if path.is_dir() else path.parent
    parsed: list[ParsedItem] = []
    for file, table in _tables(kind, files):
        require_columns(file, table.column_names, ("question", "instruction"))
        images = _image_columns(table.schema)
        for batch in table.to_batches(max_chunksize=256):
            for record in batch.to_pylist():
                parsed.append(_parse_row(file, len(parsed) + 1, record, images, base))
                report_progress(on_progress, len(parsed), table.num_rows)
    if not parsed:
        raise DatasetError(path, "no items: the dataset has no rows")
    return parsed
