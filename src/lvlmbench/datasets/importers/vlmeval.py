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
from lvlmbench.datasets.importers._images import ImageRoot, ResolvedImages, resolve_images

__all__ = ["OPTION_LETTERS", "parse_vlmeval"]

OPTION_LETTERS = tuple("ABCDEFGHI")
_OPTIONS = tuple(letter.lower() for letter in OPTION_LETTERS)
_KNOWN = {"index", "question", "image", "image_path", "answer", "hint", "category", *_OPTIONS}
_YES_NO = {"yes": "true", "no": "false"}
_MISSING = {"", "nan", "none"}


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
    options = {
        L: row.get(L.lower()) for L in OPTION_LETTERS if row.get(L.lower()).lower() not in _MISSING
    }
    answer = row.get("answer")
    if options:
        if len(options) < 2:
            raise row.error("expected at least two options (columns A, B, ...)", "b")
        key, extra = _choice_answer(row, options, has_answer)
        return "mc", options, key, None, extra
    if answer.lower() in _YES_NO:
        return "tf", {}, _YES_NO[answer.lower()], None, {"answer_raw": answer}
    return "open", {}, None, answer or None, {}


def _images(
    row: Row, by_index: dict[str, Row], base: Path, root: ImageRoot | None
) -> tuple[ResolvedImages, str | None]:
    """The row's images and, where its ``image`` cell names another row, that row's index."""
    cell = row.get("image")
    source, shared = row, None
    if cell and len(cell) <= 64 and cell in by_index and cell != row.get("index"):
        source, shared = by_index[cell], cell  # VLMEvalKit's shared image: another row's index
    column = "image" if source.get("image") else "image_path"
    return resolve_images(source, [column], base, root=root), shared


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
    row: Row, by_index: dict[str, Row], has_answer: bool, base: Path, root: ImageRoot | None
) -> ParsedItem:
    question = row.required("question", "the question text")
    found, shared = _images(row, by_index, base, root)
    if not found.images and not found.urls and not found.missing:
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
    )


def parse_vlmeval(
    path: Path, on_progress: ProgressHook | None = None, *, root: ImageRoot | None = None
) -> list[ParsedItem]:
    """Validated items of a VLMEvalKit TSV; DatasetError at the first bad row. ``on_progress``
    hears (rows validated, rows in the file); ``root`` is the ``--image-root`` folder."""
    columns, stream = read_table(path, "\t")
    require_columns(path, columns, "index", "question", ("image", "image_path"))
    rows = list(stream)
    by_index: dict[str, Row] = {}
    for row in rows:
        by_index.setdefault(row.required("index", "the row's index"), row)
    parsed = []
    for row in rows:
        parsed.append(_parse_row(row, by_index, "answer" in columns, path.parent, root))
        report_progress(on_progress, len(parsed), len(rows))
    return parsed
