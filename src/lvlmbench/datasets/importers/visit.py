"""VisIT-Bench CSV: instruction-following instances with an instruction-conditioned caption and a
human-verified reference.

Columns (case-insensitive): ``instruction`` (required); the images in ``image`` / ``image_url`` /
``image_path`` / ``images`` (a cell may hold a JSON or Python list) or numbered columns
``image_1``, ``image_2_url``, ... (multi-image rows; at least one image per row); caption in
``instruction_conditioned_caption`` (or ``caption``); a dense caption (``dense_caption``,
``image_dense_caption``, or ``images_dense_captions`` with one caption per image as in the
published multi-image CSV) is kept in ``meta["dense_caption"]`` and is the caption when there is
no instruction-conditioned one; reference in ``reference_output`` (or ``reference``,
``output_human_annotated``); family in ``instruction_category``; ``human_ratings_*`` columns go
to ``meta["human_ratings"]`` (True/False as booleans); an ``id``/``instance_id``/``index``
column keys the items (else the row number); every other non-empty cell goes to meta under its
column name.

The Hugging Face imagefolder layout (``test/metadata.csv`` beside the image files) names each
row's picture in ``file_name``, relative to the CSV: it is the image read, and the row's URL
columns are kept for joins only. Where ``image`` and ``image_url`` name the same picture (the
published CSV repeats the URL) it is read once. URLs are found by file name under ``--image-root``
when given. The join columns stay in meta whatever happens to the images: ``image`` and
``image_url`` (the raw cells), ``image_sources`` and ``image_aliases``.

The reference is taken as above except in the published layout, where it is the paper's
*human-verified* one: in the released CSVs (with a ``gpt4_prediction`` column) it is GPT-4's
answer on rows where people rated it correct (``human_ratings_gpt4_correct`` TRUE); other rows
have no reference (``item.reference`` None, ``meta["verified_reference"]`` False) and are left
out of the win rate vs reference. The published ``reference_output`` column is the source
dataset's own label (e.g. "the cube changed to green" beside GPT-4's full answer), not what the
leaderboard compares with: it is kept in ``meta["reference_output"]``. A file without
``gpt4_prediction`` (a user's own CSV) keeps its reference column as is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    ParsedItem,
    ProgressHook,
    Row,
    count_rows,
    parse_list,
    read_table,
    report_progress,
    require_columns,
)
from lvlmbench.datasets.importers._images import (
    ImageAccess,
    ResolvedImages,
    is_url,
    resolve_images,
)

__all__ = ["IMAGE_COLUMN", "parse_visit"]

IMAGE_COLUMN = re.compile(r"^(image|img)s?(_?\d+)?([ _-]?(url|path|file)s?)?$")
_CAPTIONS = ("instruction_conditioned_caption", "instruction-conditioned caption", "caption")
_DENSE = (
    "dense_caption",
    "dense caption",
    "image_dense_caption",
    "images_dense_captions",
    "image_dense_captions",
)
_REFERENCES = ("reference_output", "reference", "reference output", "output_human_annotated")
_GPT4 = "gpt4_prediction"
_MISSING = {"", "nan", "none", "null"}
_CATEGORIES = ("instruction_category", "category")
_KEYS = ("id", "instance_id", "index")


_FILE_NAME = "file_name"  # the Hugging Face imagefolder's metadata.csv column
_JOIN_COLUMNS = ("image", "image_url")


def image_columns(columns: list[str]) -> list[str]:
    """Image columns in order: ``file_name`` (HF imagefolder), unnumbered, then by number."""

    def order(name: str) -> tuple[int, str]:
        digits = re.search(r"\d+", name)
        return (int(digits.group()) if digits else -1, name)

    named = sorted((c for c in columns if IMAGE_COLUMN.match(c)), key=order)
    return ([_FILE_NAME] if _FILE_NAME in columns else []) + named


def _row_images(row: Row, images: list[str], base: Path, access: ImageAccess) -> ResolvedImages:
    """The row's pictures: from ``file_name`` when it has one (its URL columns then only join),
    else from every image column, the same picture named twice read once."""
    if row.get(_FILE_NAME):
        found = resolve_images(row, [_FILE_NAME], base, access=access)
        others = [row.get(c) for c in images if c != _FILE_NAME]
        for cell in others:
            values = parse_list(cell)
            found.aliases.extend(v for v in values or [cell] if v and is_url(v))
        return found
    return resolve_images(row, images, base, access=access)


def _first(row: Row, names: tuple[str, ...]) -> tuple[str | None, str | None]:
    for name in names:
        value = row.get(name)
        if value:
            return name, value
    return None, None


def _dense_caption(value: str | None) -> str | None:
    """A dense caption cell; a list of per-image captions (the multi-image CSV, padded with
    NaN) becomes "Image 1: ...\nImage 2: ..."."""
    if value is None:
        return None
    parts = parse_list(value)
    if parts is None:
        return value
    parts = [p for p in parts if p.lower() not in _MISSING]
    if len(parts) == 1:
        return parts[0]
    return "\n".join(f"Image {i}: {text}" for i, text in enumerate(parts, start=1)) or None


def _rating(value: str) -> str | bool:
    return {"true": True, "false": False}.get(value.lower(), value)


def _parse_row(
    row: Row, images: list[str], key_column: str | None, base: Path, access: ImageAccess
) -> ParsedItem:
    question = row.required("instruction", "the instruction text")
    found = _row_images(row, images, base, access)
    if not found.images and not found.urls and not found.missing:
        raise row.error("expected at least one image path, URL or base64 image", images[0])
    caption_col, caption = _first(row, _CAPTIONS)
    dense_col, dense_cell = _first(row, _DENSE)
    dense = _dense_caption(dense_cell)
    ref_col, reference = _first(row, _REFERENCES)
    verified: bool | None = None
    if _GPT4 in row.cells:  # the published layout: only a verified GPT-4 answer is a reference
        verified = _rating(row.get("human_ratings_gpt4_correct")) is True and bool(row.get(_GPT4))
        ref_col, reference = (_GPT4, row.get(_GPT4)) if verified else (None, None)
    cat_col, category = _first(row, _CATEGORIES)
    meta: dict[str, Any] = {"row": row.number, "image_sources": found.sources}
    if found.aliases:
        meta["image_aliases"] = found.aliases
    for column in (*_JOIN_COLUMNS, _FILE_NAME):  # what vote and prediction files join on
        value = row.get(column)
        if value and len(value) <= 2048:  # a URL or name, not inline image data
            meta[column] = value
    used = {"instruction", caption_col, dense_col, ref_col, cat_col, key_column, *images}
    ratings: dict[str, str | bool] = {}
    for column, value in row.cells.items():
        value = value.strip()
        if column in used or not value:
            continue
        if column.startswith("human_ratings"):
            ratings[column.removeprefix("human_ratings_")] = _rating(value)
        else:
            meta[column] = value
    if ratings:
        meta["human_ratings"] = ratings
    if dense is not None:
        meta["dense_caption"] = dense
    if verified is not None:
        meta["verified_reference"] = verified
    return ParsedItem(
        key=row.get(key_column) if key_column else f"row-{row.number}",
        row=row.number,
        question=question,
        images=found.images,
        image_urls=found.urls,
        missing_images=found.missing,
        images_from_root=found.from_root,
        reference=reference,
        caption=caption if caption is not None else dense,
        category=category,
        meta=meta,
    )


def parse_visit(
    path: Path, on_progress: ProgressHook | None = None, *, access: ImageAccess | None = None
) -> Iterator[ParsedItem]:
    """Validated items of a VisIT-Bench CSV, streamed; DatasetError at the first bad row.
    ``on_progress`` hears (rows validated, rows in the file); ``access`` says where pictures
    may be read (default: the file's folder)."""
    access = access if access is not None else ImageAccess(path.parent)
    columns, rows = read_table(path, ",")
    images = image_columns(columns)
    require_columns(path, columns, "instruction", tuple(images) or ("image",))
    key_column = next((k for k in _KEYS if k in columns), None)
    total = count_rows(path, ",") if on_progress is not None else 0
    for count, row in enumerate(rows, start=1):
        if key_column is not None:
            row.required(key_column, "an instance id")
        yield _parse_row(row, images, key_column, path.parent, access)
        report_progress(on_progress, count, total)
