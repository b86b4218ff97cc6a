"""VLMEvalKit-style TSV (MMBench, SEED-Bench, MME, MMMU, ... as VLMEvalKit distributes them).

Columns (case-insensitive): ``index`` (required, keys the items), ``question`` (required),
``image`` (base64, a JSON/Python list of base64 images for multi-image rows, or, as VLMEvalKit
does for repeated pictures, the ``index`` of another row whose image it shares), ``image_path``
(a file name, or a list of them, used only where ``image`` is empty: MME's and MMMU's
``image_path`` names the file VLMEvalKit dumps the image to, not a file that exists; it is kept
in ``meta["image_path"]``), ``answer``, option columns ``A`` to ``I`` (MMMU goes past D; missing
options are NaN), ``hint`` (shown before the question as "Hint: ..."), ``category``,
``l2-category``, ``split``.

An item with options is multiple choice (kind "mc"; ``answer`` must be one of its letters). A
file without an ``answer`` column (a TEST split, e.g. MMBench_TEST) imports its choice rows with
``answer=None`` and ``meta["split"]`` = the row's ``split`` cell, else "test"; a row of a file
that has the column may leave it empty only when its ``split`` says test. Without options, a
yes/no answer makes a true/false item (kind "tf", the original answer in ``meta["answer_raw"]``)
and any other answer an open item whose reference it is. ``meta["image_group"]`` names the
picture an item asks about (its ``image_path``, else the index of the row holding the image),
so MME's acc+ can pair the two questions of an image. MMMU's ``<image N>`` placeholders stay in
the text; the images are stored in list order and the examinee message places image N there.
Every other non-empty cell goes to meta under its column name (``l2-category`` as
``l2_category``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    ParsedItem,
    ProgressHook,
    Row,
    parse_list,
    read_table,
    report_progress,
    require_columns,
)
from lvlmbench.datasets.importers._images import ImageAccess, ResolvedImages, resolve_images
from lvlmbench.datasets.importers._scratch import DiskMap, Scratch

__all__ = ["OPTION_LETTERS", "parse_vlmeval"]

OPTION_LETTERS = tuple("ABCDEFGHI")
_OPTIONS = tuple(letter.lower() for letter in OPTION_LETTERS)
_KNOWN = {"index", "question", "image", "image_path", "answer", "hint", "category", *_OPTIONS}
_YES_NO = {"yes": "true", "no": "false"}
_MISSING = {"", "nan", "none"}
_REFERENCE_CHARS = 64  # an image cell this short may be another row's index, never base64


def _choice_answer(
    row: Row, options: dict[str, str], has_answer: bool
) -> tuple[str | None, dict[str, Any]]:
    answer = row.get("answer")
    split = row.get("split")
    if not answer and (not has_answer or split.lower() == "test"):
        return None, {"split": split or "test"}  # a TEST split: the key is withheld
    key = answer.upper()
    if key not in options:
        raise row.error(
            f"expected one of the option letters {', '.join(options)}, found {answer!r}"
            + ("" if answer else " (only a TEST split row may leave it empty)"),
            "answer",
        )
    return key, {}


def _kind(
    row: Row, has_answer: bool
) -> tuple[str, dict[str, str], str | None, str | None, dict[str, Any]]:
    """kind, options, answer key, reference and extra meta of a row."""
    cells = {
        letter: row.get(column) for letter, column in zip(OPTION_LETTERS, _OPTIONS, strict=True)
    }
    options = {letter: text for letter, text in cells.items() if text.lower() not in _MISSING}
    answer = row.get("answer")
    if options:
        if len(options) < 2:
            raise row.error("expected at least two options (columns A, B, ...)", "b")
        key, extra = _choice_answer(row, options, has_answer)
        return "mc", options, key, None, extra
    if answer.lower() in _YES_NO:
        return "tf", {}, _YES_NO[answer.lower()], None, {"answer_raw": answer}
    return "open", {}, None, answer or None, {}


@dataclass(frozen=True)
class _Shared:
    """What a pass over the file's ``index`` and ``image`` columns learns (kept on disk):
    every row's index, and the rows whose ``image`` cell holds another row's index."""

    indexes: DiskMap
    """index -> the ``image`` cell when it is short (a candidate reference), else ""."""
    targets: DiskMap
    """indexes that other rows' ``image`` cells name."""

    def reference(self, row: Row) -> str | None:
        """The index the row's ``image`` cell names, if it names another row's."""
        cell = row.get("image")
        if cell and len(cell) <= _REFERENCE_CHARS and cell != row.get("index"):
            return cell if cell in self.indexes else None
        return None


def _index_pass(rows: Iterator[Row], scratch: Scratch) -> _Shared:
    """Read the rows once for their indexes and short ``image`` cells (images not decoded)."""
    shared = _Shared(scratch.map("indexes"), scratch.map("targets"))
    candidates = scratch.map("candidates")
    for row in rows:
        index = row.required("index", "the row's index")
        cell = row.get("image")
        short = cell if cell and len(cell) <= _REFERENCE_CHARS and cell != index else ""
        shared.indexes.setdefault(index, short)
        if short:
            candidates.setdefault(short)
    for cell in candidates.first(len(candidates)):
        if cell in shared.indexes:
            shared.targets.setdefault(cell)
    return shared


def _images(
    row: Row, shared: _Shared, base: Path, access: ImageAccess
) -> tuple[ResolvedImages, str | None]:
    """The row's own images, or (nothing, the index of the row whose image it shares)."""
    target = shared.reference(row)
    if target is not None:
        chained = shared.indexes.get(target)
        if chained and chained in shared.indexes:  # that row shows yet another row's image
            raise row.error(
                f"the image cell names row {target!r}, whose own image cell names row "
                f"{chained!r}; expected the index of a row with an image",
                "image",
            )
        return ResolvedImages(), target
    column = "image" if row.get("image") else "image_path"
    return resolve_images(row, [column], base, access=access), None


def _image_meta(row: Row, shared: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if shared is not None:
        meta["image_from_index"] = shared
    path = row.get("image_path")
    if path:
        names = parse_list(path)  # MMMU: a list of names, one per image
        meta["image_path"] = path if names is None else names[0] if len(names) == 1 else names
    group = meta.get("image_path")
    meta["image_group"] = str(group) if group else (shared or row.get("index"))
    return meta


def _parse_row(
    row: Row, shared_images: _Shared, has_answer: bool, base: Path, access: ImageAccess
) -> ParsedItem:
    question = row.required("question", "the question text")
    found, shared = _images(row, shared_images, base, access)
    if shared is None and not found.images and not found.urls and not found.missing:
        raise row.error(
            "expected a base64 image (or a list of them), another row's index, or an "
            "image_path file",
            "image",
        )
    kind, options, answer, reference, extra = _kind(row, has_answer)
    meta: dict[str, Any] = {"row": row.number, "index": row.get("index"), **extra}
    meta.update(_image_meta(row, shared))
    hint = row.get("hint")
    if hint and hint.lower() not in _MISSING:
        meta["hint"] = hint
        question = f"Hint: {hint}\n{question}"
    for column, value in row.cells.items():
        if column not in _KNOWN and value.strip() and column not in meta:
            meta[column.replace("-", "_")] = value.strip()
    return ParsedItem(
        key=row.get("index"),
        row=row.number,
        question=question,
        images=found.images,
        image_urls=found.urls,
        missing_images=found.missing,
        images_from_root=found.from_root,
        kind=kind,
        options=options,
        answer=answer,
        reference=reference,
        category=row.get("category") or None,
        meta=meta,
        image_of=shared,
        shares_images=row.get("index") in shared_images.targets,
    )


def parse_vlmeval(
    path: Path, on_progress: ProgressHook | None = None, *, access: ImageAccess | None = None
) -> Iterator[ParsedItem]:
    """Validated items of a VLMEvalKit TSV, streamed; DatasetError at the first bad row.
    ``on_progress`` hears (rows validated, rows in the file); ``access`` says where pictures
    may be read (default: the file's folder). A first pass reads only the ``index`` and
    ``image`` cells, so a row may share the image of a row further down."""
    access = access if access is not None else ImageAccess(path.parent)
    columns, first_pass = read_table(path, "\t")
    require_columns(path, columns, "index", "question", ("image", "image_path"))
    with Scratch() as scratch:
        shared = _index_pass(first_pass, scratch)
        total = len(shared.indexes)
        _, rows = read_table(path, "\t")
        for count, row in enumerate(rows, start=1):
            yield _parse_row(row, shared, "answer" in columns, path.parent, access)
            report_progress(on_progress, count, total)
