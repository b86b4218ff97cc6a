"""Importers of published benchmarks into the store: VisIT-Bench CSV (and its Hugging Face
``metadata.csv``), TouchStone TSV, VLMEvalKit TSV, LLaVA-Bench questions.jsonl, generic JSONL,
Hugging Face parquet / save_to_disk folders (and ``lvlmbench export`` output, both ways); and
vote files (our wide human votes, VisIT-Bench's human preferences, FastChat's human
judgments, VisIT-Bench's leaderboard battles), see :mod:`.vote_formats`. The format is
detected from the file's columns or first record (:func:`detect_format`) unless named.

Every importer parses and validates the whole file first (images decoded, columns checked) and
writes only when all rows are good, so a bad row leaves nothing behind; the error
(:class:`DatasetError`, a ValueError) names the file, row and column and what was expected.
Item ids are content ids of the benchmark name and the row key, so re-importing adds nothing.
Image URLs are never downloaded: with an image root they are found there by file name, else
they are kept in ``meta["image_urls"]`` and evaluating such an item fails with a reason naming
the URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from lvlmbench.datasets.importers._common import DatasetError, ParsedItem, ProgressHook, not_utf8
from lvlmbench.datasets.importers._images import ImageRoot
from lvlmbench.datasets.importers._write import ImportSummary, item_id, write_items
from lvlmbench.datasets.importers.detect import (
    FileSample,
    FormatRule,
    detect_format,
    format_rules,
    register_format,
)
from lvlmbench.datasets.importers.hf import HF_FORMAT, hf_benchmark_name, parse_hf
from lvlmbench.datasets.importers.jsonl import parse_jsonl
from lvlmbench.datasets.importers.llava import parse_llava
from lvlmbench.datasets.importers.touchstone import parse_touchstone
from lvlmbench.datasets.importers.visit import parse_visit
from lvlmbench.datasets.importers.vlmeval import parse_vlmeval
from lvlmbench.datasets.importers.vote_formats import (
    VOTE_FORMATS,
    detect_vote_format,
    import_vote_file,
)
from lvlmbench.ids import check_benchmark_name
from lvlmbench.store import Store

__all__ = [
    "FORMATS",
    "VOTE_FORMATS",
    "DatasetError",
    "FileSample",
    "FormatRule",
    "ImageRoot",
    "ImportSummary",
    "ParsedItem",
    "detect_format",
    "detect_vote_format",
    "format_rules",
    "import_dataset",
    "item_id",
    "parse_items",
    "register_format",
]


class _Parser(Protocol):
    def __call__(
        self, path: Path, on_progress: ProgressHook | None = None, *, root: ImageRoot | None = None
    ) -> list[ParsedItem]: ...


_PARSERS: dict[str, _Parser] = {
    "visit": parse_visit,
    "touchstone": parse_touchstone,
    "jsonl": parse_jsonl,
    "vlmeval": parse_vlmeval,
    "llava": parse_llava,
    HF_FORMAT: parse_hf,
}
FORMATS = (*_PARSERS, *VOTE_FORMATS)
"""Format names accepted by :func:`import_dataset`."""


MAX_TEXT_CHARS = 200_000
"""Longest question, reference, caption or option accepted: real ones are a few thousand
characters; anything near this is a broken export (a whole file in one cell), not text."""


def check_text_sizes(path: Path, item: ParsedItem) -> None:
    """DatasetError naming the row and field of a text field over :data:`MAX_TEXT_CHARS`."""
    fields = {"question": item.question, "reference": item.reference, "caption": item.caption}
    fields |= {f"option {letter}": text for letter, text in item.options.items()}
    for name, text in fields.items():
        if text is not None and len(text) > MAX_TEXT_CHARS:
            raise DatasetError(
                path,
                f"{name} is {len(text):,} characters; expected at most {MAX_TEXT_CHARS:,}",
                row=item.row,
                column=name,
            )


def parse_items(
    path: Path,
    fmt: str,
    *,
    on_progress: ProgressHook | None = None,
    image_root: Path | None = None,
) -> list[ParsedItem]:
    """Validated items of an item file in ``fmt``; DatasetError at the first problem.
    ``on_progress`` hears (rows validated, rows in the file) as validation goes; URLs and file
    names are looked up by name under ``image_root`` (a folder of downloaded images)."""
    if fmt not in _PARSERS:
        raise ValueError(f"unknown item format {fmt!r}; known: {', '.join(_PARSERS)}")
    if not (path.is_file() or (fmt == HF_FORMAT and path.is_dir())):
        raise DatasetError(path, "no such file")
    root = ImageRoot(image_root) if image_root is not None else None
    try:
        parsed = _PARSERS[fmt](path, on_progress, root=root)
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    seen: dict[str, int] = {}
    for item in parsed:
        check_text_sizes(path, item)
        if item.key in seen:
            raise DatasetError(
                path,
                f"duplicate key {item.key!r} (already used by row {seen[item.key]}); "
                "expected each id/index once",
                row=item.row,
            )
        seen[item.key] = item.row
    return parsed


def import_dataset(
    store: Store,
    path: str | Path,
    fmt: str | None = None,
    name: str | None = None,
    *,
    concat_images: bool = False,
    image_root: Path | None = None,
    on_validate: ProgressHook | None = None,
    on_progress: ProgressHook | None = None,
    judge: str | None = None,
) -> ImportSummary:
    """Import ``path`` in format ``fmt`` (see :data:`FORMATS`; None: detected from the file)
    into benchmark ``name`` (default: the file's stem; for an ``lvlmbench export`` folder, the
    exported benchmark's name). ``concat_images`` stores multi-image
    rows as one side-by-side image (the originals stay in the store, listed in
    ``meta["original_images"]``); ``image_root`` is a folder where URL and file-name images are
    found by file name. Votes go to the benchmark ``name`` names, which must exist; ``judge``
    names the judge of a battle dump (default: its ``engine`` field). ``on_validate`` hears
    (rows validated, rows) while the file is checked, ``on_progress`` (items written, items)
    while it is stored."""
    path = Path(path)
    if fmt is None:
        fmt = detect_format(path)
    benchmark = name or (hf_benchmark_name(path) if fmt == HF_FORMAT else path.stem)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if fmt in VOTE_FORMATS:
        return import_vote_file(store, path, fmt, benchmark, judge=judge)
    try:
        check_benchmark_name(benchmark)
    except ValueError as exc:
        raise DatasetError(path, f"{exc} (choose one with --name)") from None
    parsed = parse_items(path, fmt, on_progress=on_validate, image_root=image_root)
    return write_items(
        store,
        benchmark,
        fmt,
        path,
        parsed,
        concat_images=concat_images,
        on_progress=on_progress,
        image_root=image_root,
    )
