"""VLMEvalKit-style TSV (MMBench, SEED-Bench, MME, ... as VLMEvalKit distributes them).

Columns (case-insensitive): ``index`` (required, keys the items), ``question`` (required),
``image`` (required: base64, a JSON/Python list of base64 images for multi-image rows, or, as
VLMEvalKit does for repeated pictures, the ``index`` of another row whose image it shares; an
``image_path`` column of paths/URLs may stand in for it), ``answer``, option columns ``A`` to
``H``, ``hint`` (shown before the question as "Hint: ..."), ``category``, ``l2-category``.

An item with options is multiple choice (kind "mc"; ``answer`` must be one of its letters).
Without options, a yes/no answer makes a true/false item (kind "tf", the original answer in
``meta["answer_raw"]``) and any other answer an open item whose reference it is. Every other
non-empty cell goes to meta under its column name (``l2-category`` as ``l2_category``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    ParsedItem,
    ProgressHook,
    Row,
    read_table,
    report_progress,
    require_columns,
)
from lvlmbench.datasets.importers._images import ResolvedImages, resolve_images

__all__ = ["parse_vlmeval"]

_LETTERS = tuple("ABCDEFGH")
_OPTIONS = tuple(letter.lower() for letter in _LETTERS)
_KNOWN = {"index", "question", "image", "image_path", "answer", "hint", "category", *_OPTIONS}
_YES_NO = {"yes": "true", "no": "false"}


def _kind(row: Row) -> tuple[str, dict[str, str], str | None, str | None, dict[str, Any]]:
    """kind, options, answer key, reference and extra meta of a row."""
    options = {L: row.get(L.lower()) for L in _LETTERS if row.get(L.lower()) not in ("", "nan")}
    answer = row.get("answer")
    if options:
        if len(options) < 2:
            raise row.error("expected at least two options (columns A, B, ...)", "b")
        key = answer.upper()
        if key not in options:
            raise row.error(
                f"expected one of the option letters {', '.join(options)}, found {answer!r}",
                "answer",
            )
        return "mc", options, key, None, {}
    if answer.lower() in _YES_NO:
        return "tf", {}, _YES_NO[answer.lower()], None, {"answer_raw": answer}
    return "open", {}, None, answer or None, {}


def _images(
    row: Row, by_index: dict[str, Row], image_columns: list[str], base: Path
) -> tuple[ResolvedImages, str | None]:
    cell = row.get("image")
    if cell and len(cell) <= 64 and cell in by_index and cell != row.get("index"):
        target = by_index[cell]  # VLMEvalKit's shared image: the index of another row
        return resolve_images(target, image_columns, base), cell
    return resolve_images(row, image_columns, base), None


def parse_vlmeval(path: Path, on_progress: ProgressHook | None = None) -> list[ParsedItem]:
    """Validated items of a VLMEvalKit TSV; DatasetError at the first bad row. ``on_progress``
    hears (rows validated, rows in the file)."""
    columns, stream = read_table(path, "\t")
    require_columns(path, columns, "index", "question", ("image", "image_path"))
    image_columns: list[str] = [c for c in ("image", "image_path") if c in columns]
    rows = list(stream)
    by_index: dict[str, Row] = {}
    for row in rows:
        by_index.setdefault(row.required("index", "the row's index"), row)
    parsed = []
    for row in rows:
        question = row.required("question", "the question text")
        found, shared = _images(row, by_index, image_columns, path.parent)
        if not found.images and not found.urls:
            raise row.error("expected a base64 image (or a list of them)", image_columns[0])
        kind, options, answer, reference, extra = _kind(row)
        meta: dict[str, Any] = {"row": row.number, "index": row.get("index"), **extra}
        if shared is not None:
            meta["image_from_index"] = shared
        hint = row.get("hint")
        if hint and hint.lower() != "nan":
            meta["hint"] = hint
            question = f"Hint: {hint}\n{question}"
        for column, value in row.cells.items():
            if column not in _KNOWN and value.strip():
                meta[column.replace("-", "_")] = value.strip()
        parsed.append(
            ParsedItem(
                key=row.get("index"),
                row=row.number,
                question=question,
                images=found.images,
                image_urls=found.urls,
                kind=kind,
                options=options,
                answer=answer,
                reference=reference,
                category=row.get("category") or None,
                meta=meta,
            )
        )
        report_progress(on_progress, len(parsed), len(rows))
    return parsed
