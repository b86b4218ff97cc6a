"""Importers of published benchmarks into the store: VisIT-Bench CSV (and its Hugging Face
``metadata.csv``), TouchStone TSV, VLMEvalKit TSV, LLaVA-Bench questions.jsonl, generic JSONL,
Hugging Face parquet / save_to_disk folders (and ``lvlmbench export`` output, both ways); and
vote files (our wide human votes, VisIT-Bench's human preferences, FastChat's human
judgments, VisIT-Bench's leaderboard battles), see :mod:`.vote_formats`. The format is
detected from the file's columns or first record (:func:`detect_format`) unless named.

Every importer streams its file row by row. An import reads the file twice: first it validates
every row (images decoded, columns checked, keys unique) and writes nothing; only when all rows
are good does it read the file again and write, in batches, the benchmark's row last. So a bad
row, even the millionth, leaves nothing behind, and memory stays the same whatever the file's
size (what must be remembered per row is kept on disk, :mod:`._scratch`). The error
(:class:`DatasetError`, a ValueError) names the file, row and column and what was expected.
Item ids are content ids of the benchmark name and the row key, so re-importing adds nothing,
and an import cut short (killed while writing) is finished by running it again. Image URLs are
never downloaded: with an image root they are found there by file name, else they are kept in
``meta["image_urls"]`` and evaluating such an item fails with a reason naming the URL. Image
paths are read only under the file's folder or the image root unless ``allow_images_outside``
(see :mod:`._images`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from lvlmbench.datasets.importers._common import DatasetError, ParsedItem, ProgressHook, not_utf8
from lvlmbench.datasets.importers._images import ImageAccess, ImageRoot
from lvlmbench.datasets.importers._scratch import DiskMap, Scratch
from lvlmbench.datasets.importers._workbook import (
    DEFAULT_MAX_UNZIPPED_MB,
    MAX_UNZIPPED_ENV,
    unzip_limit,
)
from lvlmbench.datasets.importers._write import ImportSummary, item_id, write_items
from lvlmbench.datasets.importers.detect import (
    FileSample,
    FormatRule,
    detect_format,
    format_rules,
    register_format,
)
from lvlmbench.datasets.importers.hf import (
    HF_FORMAT,
    exported_benchmark,
    hf_benchmark_name,
    parse_hf,
)
from lvlmbench.datasets.importers.jsonl import exported_jsonl_benchmark, parse_jsonl
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
from lvlmbench.registry import Registry
from lvlmbench.store import Store, StoredBenchmark

__all__ = [
    "DEFAULT_MAX_UNZIPPED_MB",
    "FORMATS",
    "IMPORT_FORMATS",
    "MAX_UNZIPPED_ENV",
    "VOTE_FORMATS",
    "DatasetError",
    "FileSample",
    "FormatRule",
    "ImageAccess",
    "ImageRoot",
    "ImportFormat",
    "ImportSummary",
    "ParsedItem",
    "detect_format",
    "detect_vote_format",
    "format_rules",
    "import_dataset",
    "item_id",
    "parse_items",
    "register_format",
    "register_parser",
    "unzip_limit",
]


class _Parser(Protocol):
    def __call__(
        self,
        path: Path,
        on_progress: ProgressHook | None = None,
        *,
        access: ImageAccess | None = None,
    ) -> Iterator[ParsedItem]: ...


@dataclass(frozen=True)
class ImportFormat:
    """What ``lvlmbench import -f NAME`` reads: items (through ``parse``), votes (see
    :mod:`.vote_formats`) or a model's predictions (:mod:`lvlmbench.datasets.predictions`)."""

    kind: Literal["items", "votes", "predictions"]
    parse: _Parser | None = None


IMPORT_FORMATS: Registry[ImportFormat] = Registry("import format")
"""Every format ``lvlmbench import`` and :func:`import_dataset` read, in the order the CLI
offers them; :func:`register_parser` adds an item format."""
FORMATS = IMPORT_FORMATS
"""The format names (an alias kept for callers that tested ``fmt in FORMATS``)."""


def register_parser(name: str, parse: _Parser, *, help: str = "") -> None:
    """Make ``name`` an item format: ``lvlmbench import FILE -f name`` and
    :func:`import_dataset` stream ``parse(path, on_progress, access=...)``. Pair it with a
    :func:`register_format` rule so the format is also detected."""
    IMPORT_FORMATS.add(name, ImportFormat("items", parse), help=help)


for _name, _parse, _help in (
    ("visit", parse_visit, "VisIT-Bench CSV (or its Hugging Face metadata.csv)"),
    ("touchstone", parse_touchstone, "TouchStone TSV"),
    ("jsonl", parse_jsonl, "generic JSONL"),
    ("vlmeval", parse_vlmeval, "VLMEvalKit TSV/XLSX"),
    ("llava", parse_llava, "LLaVA-Bench questions.jsonl"),
    (HF_FORMAT, parse_hf, "Hugging Face parquet or folder, or `lvlmbench export` output"),
):
    register_parser(_name, _parse, help=_help)
for _name in VOTE_FORMATS:
    IMPORT_FORMATS.add(_name, ImportFormat("votes"), help="vote file")
IMPORT_FORMATS.add("predictions", ImportFormat("predictions"), help="a model's prediction file")


def _parser(fmt: str) -> _Parser:
    entry = IMPORT_FORMATS.get(fmt)
    if entry is None or entry.parse is None:
        items = [name for name, f in IMPORT_FORMATS.items() if f.parse is not None]
        raise ValueError(f"unknown item format {fmt!r}; known: {', '.join(items)}")
    return entry.parse


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


def _image_access(
    path: Path, fmt: str, image_root: Path | None, allow_outside: bool
) -> ImageAccess:
    folder = path if fmt == HF_FORMAT and path.is_dir() else path.parent
    root = ImageRoot(image_root) if image_root is not None else None
    return ImageAccess(folder, root, allow_outside=allow_outside)


def iter_parsed(
    path: Path,
    fmt: str,
    access: ImageAccess,
    *,
    on_progress: ProgressHook | None = None,
    keys: DiskMap | None = None,
) -> Iterator[ParsedItem]:
    """The items of an item file in ``fmt``, streamed and checked (text sizes; unique keys,
    remembered in ``keys``, when given); DatasetError at the first problem."""
    parse = _parser(fmt)
    if not (path.is_file() or (fmt == HF_FORMAT and path.is_dir())):
        raise DatasetError(path, "no such file")
    try:
        for item in parse(path, on_progress, access=access):
            check_text_sizes(path, item)
            first = keys.setdefault(item.key, str(item.row)) if keys is not None else None
            if first is not None:
                raise DatasetError(
                    path,
                    f"duplicate key {item.key!r} (already used by row {first}); expected each "
                    "id/index once",
                    row=item.row,
                )
            yield item
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None


def parse_items(
    path: Path,
    fmt: str,
    *,
    on_progress: ProgressHook | None = None,
    image_root: Path | None = None,
    allow_images_outside: bool = False,
) -> list[ParsedItem]:
    """Validated items of an item file in ``fmt``, all in memory (:func:`import_dataset`
    streams instead); DatasetError at the first problem. ``on_progress`` hears (rows
    validated, rows in the file) as validation goes; URLs and file names are looked up by name
    under ``image_root`` (a folder of downloaded images); image paths outside the file's folder
    and ``image_root`` are refused unless ``allow_images_outside``."""
    access = _image_access(path, fmt, image_root, allow_images_outside)
    with Scratch() as scratch:
        return list(
            iter_parsed(path, fmt, access, on_progress=on_progress, keys=scratch.map("keys"))
        )


def _exported(path: Path, fmt: str) -> StoredBenchmark | None:
    """The benchmark an ``lvlmbench export`` (Hub folder or items.jsonl) holds, else None."""
    if fmt == HF_FORMAT:
        return exported_benchmark(path)
    return exported_jsonl_benchmark(path) if fmt == "jsonl" else None


def _restored(path: Path, fmt: str, benchmark: str) -> StoredBenchmark | None:
    """The benchmark an ``lvlmbench export`` holds when it is imported under that benchmark's
    own name (the default): restored with its ids, kind and definition. Under another name it
    is a new benchmark, its ids derived from that name as any import's."""
    exported = _exported(path, fmt)
    return exported if exported is not None and exported.name == benchmark else None


def _default_name(path: Path, fmt: str) -> str:
    """The benchmark a file imports into without ``--name``: an export's own benchmark, else
    the file's stem (a Hugging Face folder's name)."""
    exported = _exported(path, fmt)
    if exported is not None:
        return exported.name
    return hf_benchmark_name(path) if fmt == HF_FORMAT else path.stem


def import_dataset(
    store: Store,
    path: str | Path,
    fmt: str | None = None,
    name: str | None = None,
    *,
    concat_images: bool = False,
    image_root: Path | None = None,
    allow_images_outside: bool = False,
    max_unzipped_mb: int | None = None,
    on_validate: ProgressHook | None = None,
    on_progress: ProgressHook | None = None,
    judge: str | None = None,
) -> ImportSummary:
    """Import ``path`` in format ``fmt`` (see :data:`IMPORT_FORMATS`; None: detected from the file)
    into benchmark ``name`` (default: the file's stem; for an ``lvlmbench export`` folder, the
    exported benchmark's name). ``concat_images`` stores multi-image
    rows as one side-by-side image (the originals stay in the store, listed in
    ``meta["original_images"]``); ``image_root`` is a folder where URL and file-name images are
    found by file name; image paths leading outside the file's folder and ``image_root`` are
    refused unless ``allow_images_outside``; ``max_unzipped_mb`` raises the limit on what a
    workbook may unzip to. Votes go to the benchmark ``name`` names, which must exist;
    ``judge`` names the judge of a battle dump (default: its ``engine`` field). ``on_validate``
    hears (rows validated, rows) while the file is checked, ``on_progress`` (items written,
    items) while it is stored."""
    path = Path(path)
    with unzip_limit(max_unzipped_mb):
        if fmt is None:
            fmt = detect_format(path)
        benchmark = name or _default_name(path, fmt)
        kind = IMPORT_FORMATS.get_or_raise(fmt).kind
        if kind == "predictions":
            raise ValueError(f"{fmt!r} files are imported with datasets.import_predictions")
        if kind == "votes":
            return import_vote_file(store, path, fmt, benchmark, judge=judge)
        try:
            check_benchmark_name(benchmark)
        except ValueError as exc:
            raise DatasetError(path, f"{exc} (choose one with --name)") from None
        access = _image_access(path, fmt, image_root, allow_images_outside)
        with Scratch() as scratch:
            checked = iter_parsed(
                path, fmt, access, on_progress=on_validate, keys=scratch.map("keys")
            )
            rows = sum(1 for _ in checked)  # the validating pass: nothing is written
            access.validated = True
            return write_items(
                store,
                benchmark,
                fmt,
                path,
                iter_parsed(path, fmt, access),
                concat_images=concat_images,
                on_progress=on_progress,
                image_root=image_root,
                total=rows,
                scratch=scratch,
                restored=_restored(path, fmt, benchmark),
            )
