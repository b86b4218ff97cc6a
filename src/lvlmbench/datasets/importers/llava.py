"""LLaVA-Bench (in the wild) ``questions.jsonl``: one JSON object per line with ``question_id``
(keys the items), ``image`` (a file name), ``text`` (the question) and ``category`` (conv,
detail, complex).

The pictures ship separately (the benchmark's ``images/`` folder): a name or relative path is
looked up relative to the file first (so ``images/001.jpg`` works as written), then in an
``images/`` folder beside it, then by name under ``--image-root``; a name found
nowhere is recorded in ``meta["missing_images"]`` and the item fails at evaluation naming it.
Where the benchmark's ``answers_gpt4.jsonl`` (``question_id``, ``text``) sits beside the file
its answers become the references, and ``context.jsonl`` (``image``, ``caption``) gives the
captions. ``meta["question_id"]`` keeps the join column of answer/prediction files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    DatasetError,
    ParsedItem,
    ProgressHook,
    Row,
    count_lines,
    report_progress,
)
from lvlmbench.datasets.importers._images import ImageAccess, resolve_images
from lvlmbench.datasets.importers._json_files import iter_json_lines

__all__ = ["parse_llava"]

_REFERENCES = "answers_gpt4.jsonl"
_CONTEXT = "context.jsonl"
_KNOWN = {"question_id", "image", "text", "category"}


def _side_file(path: Path, name: str, key: str, value: str) -> dict[str, str]:
    """``key`` → ``value`` of a companion JSONL beside ``path`` (empty when there is none)."""
    side = path.parent / name
    if not side.is_file() or side == path:
        return {}
    found: dict[str, str] = {}
    for line, record in iter_json_lines(side):
        if key not in record or not isinstance(record.get(value), str):
            raise DatasetError(side, f"expected fields {key!r} and {value!r}", row=line)
        found.setdefault(str(record[key]), record[value].strip())
    return found


def _field(row: Row, record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        raise row.error(f"expected a non-empty string, found {value!r}", name)
    return str(value).strip()


def _folder_of(name: str, folder: Path, images_dir: Path) -> Path:
    """The folder ``name`` is relative to: the file's own when it is there (a path written
    relative to the file, such as ``images/001.jpg``), else ``images/`` beside the file when
    that has it; otherwise the file's folder, where a missing name is reported."""
    if (folder / name).is_file() or not (images_dir / name).is_file():
        return folder
    return images_dir


def parse_llava(
    path: Path, on_progress: ProgressHook | None = None, *, access: ImageAccess | None = None
) -> Iterator[ParsedItem]:
    """Validated items of a LLaVA-Bench questions.jsonl, streamed; DatasetError at the first
    bad line. ``access`` says where pictures may be read (default: the file's folder)."""
    access = access if access is not None else ImageAccess(path.parent)
    total = count_lines(path) if on_progress is not None else 0
    references = _side_file(path, _REFERENCES, "question_id", "text")
    captions = _side_file(path, _CONTEXT, "image", "caption")
    images_dir = path.parent / "images"
    count = 0
    for line, record in iter_json_lines(path):
        row = Row(path, line, line, {})
        key = _field(row, record, "question_id")
        name = _field(row, record, "image")
        cell = Row(path, line, line, {"image": name})
        base = _folder_of(name, path.parent, images_dir)
        found = resolve_images(cell, ["image"], base, access=access)
        meta: dict[str, Any] = {"row": line, "question_id": key, "image_sources": found.sources}
        meta.update({k: v for k, v in record.items() if k not in _KNOWN})
        yield (
            ParsedItem(
                key=key,
                row=line,
                question=_field(row, record, "text"),
                images=found.images,
                image_urls=found.urls,
                missing_images=found.missing,
                images_from_root=found.from_root,
                reference=references.get(key),
                caption=captions.get(name),
                category=str(record.get("category") or "").strip() or None,
                meta=meta,
            )
        )
        count += 1
        report_progress(on_progress, count, total)
    if not count:
        raise DatasetError(path, "no items: the file has no JSON lines")
