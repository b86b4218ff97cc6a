"""TouchStone TSV: questions with a fine-grained human annotation and a caption-assisted reference.

Columns (case-insensitive): ``index`` (required, keys the items), ``question`` (required),
``image`` (required: base64, or a JSON/Python list of base64 images for multi-image questions;
paths and URLs are accepted too), ``human_annotation`` (the caption), ``gpt4_ha_answer`` (the
reference, "GPT4-HA"), ``category`` (the ability), ``task_name`` (the sub-task, in
:attr:`BenchmarkItem.task_name`); every other non-empty cell goes to meta under its column name.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    ParsedItem,
    ProgressHook,
    count_rows,
    read_table,
    report_progress,
    require_columns,
)
from lvlmbench.datasets.importers._images import ImageAccess, resolve_images
from lvlmbench.types import TASK_NAME

__all__ = ["parse_touchstone"]

_META_KEYS = {"task_name": TASK_NAME}
"""Columns whose meta key other packages read, through the item's typed accessors."""
_KNOWN = {"index", "question", "image", "human_annotation", "gpt4_ha_answer", "category"}


def parse_touchstone(
    path: Path, on_progress: ProgressHook | None = None, *, access: ImageAccess | None = None
) -> Iterator[ParsedItem]:
    """Validated items of a TouchStone TSV, streamed; DatasetError at the first bad row.
    ``on_progress`` hears (rows validated, rows in the file); ``access`` says where pictures
    may be read (default: the file's folder)."""
    access = access if access is not None else ImageAccess(path.parent)
    columns, rows = read_table(path, "\t")
    require_columns(path, columns, "index", "question", "image")
    total = count_rows(path, "\t") if on_progress is not None else 0
    for count, row in enumerate(rows, start=1):
        key = row.required("index", "the question's index")
        question = row.required("question", "the question text")
        found = resolve_images(row, ["image"], path.parent, access=access)
        if not found.images and not found.urls and not found.missing:
            raise row.error("expected a base64 image (or a list of them)", "image")
        meta: dict[str, Any] = {"row": row.number, "index": key}
        if len(found.sources) > 1 or any(s != "base64" for s in found.sources):
            meta["image_sources"] = found.sources
        for column, value in row.cells.items():
            if column not in _KNOWN and value.strip():
                meta[_META_KEYS.get(column, column)] = value.strip()
        yield (
            ParsedItem(
                key=key,
                row=row.number,
                question=question,
                images=found.images,
                image_urls=found.urls,
                missing_images=found.missing,
                images_from_root=found.from_root,
                reference=row.get("gpt4_ha_answer") or None,
                caption=row.get("human_annotation") or None,
                category=row.get("category") or None,
                meta=meta,
            )
        )
        report_progress(on_progress, count, total)
