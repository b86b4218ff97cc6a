"""The import use case: a dataset, a vote file or a model's prediction file into the store, in
a format named or detected, under both ``lvlmbench import`` and :func:`lvlmbench.api.import_file`.

:func:`fetch_standard` turns a standard benchmark's name (``MMBench_DEV_EN``; see
:mod:`lvlmbench.datasets.catalog`) into its verified local file, downloading it once when
online; :func:`import_format` settles the format and refuses bad options before any store is
opened; :func:`import_file` then imports (the whole file is checked before anything is
written). They raise :class:`InvalidOptions` for refused options, :class:`CatalogError` for a
named benchmark that cannot be had (saying what to download), and :class:`DatasetError`
(naming the file, row and column) for a bad file.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from lvlmbench.datasets import (
    IMPORT_FORMATS,
    ImportSummary,
    PredictionSummary,
    detect_format,
    import_dataset,
    import_predictions,
)
from lvlmbench.datasets.catalog import ByteProgress, Located, close_names, find_benchmark, locate
from lvlmbench.datasets.importers import unzip_limit
from lvlmbench.datasets.importers._common import ProgressHook
from lvlmbench.datasets.importers.hf import HF_FORMAT
from lvlmbench.store import Store
from lvlmbench.workflows._errors import InvalidOptions

__all__ = ["ImportOptions", "ImportResult", "fetch_standard", "import_file", "import_format"]


@dataclass(frozen=True)
class ImportOptions:
    """What to import and how (``lvlmbench import``'s arguments, same names and defaults)."""

    path: Path
    """A file or folder, or the name of a standard benchmark (``lvlmbench ls --available``)
    when no such file exists."""
    format: str | None = None
    """A name of :data:`lvlmbench.datasets.IMPORT_FORMATS`; None: detected from the file."""
    name: str | None = None
    """The benchmark (default: the file's stem); for votes and predictions, the one they
    answer, which must exist."""
    concat_images: bool = False
    image_root: Path | None = None
    allow_images_outside: bool = False
    max_unzipped_mb: int | None = None
    judge: str | None = None
    """Battles and FastChat's model-judge records: the judge's name (default: the file's
    ``engine`` field; FastChat: the first entry of its judge list, e.g. ``gpt-4``)."""
    model: str | None = None
    """Predictions: the model whose answers the file holds (default: the name the file gives)."""
    strict: bool = False
    """Predictions: a row matching no item is an error (nothing stored)."""
    file: Path | None = None
    """A standard benchmark named in ``path``: read this local copy of it (checked against the
    published checksum) instead of the cache or a download."""
    offline: bool | None = None
    """A standard benchmark: never download (None: as ``LVLMBENCH_OFFLINE`` /
    ``HF_HUB_OFFLINE`` say)."""


@dataclass(frozen=True)
class ImportResult:
    """The format read (``detected`` when no format was named) and what was stored: an
    item or vote import's summary, or a prediction import's."""

    format: str
    detected: bool
    summary: ImportSummary | PredictionSummary
    standard: Located | None = None
    """The standard benchmark's file imported, when a name was given instead of a file."""

    @property
    def kind(self) -> str:
        """``items``, ``votes`` or ``predictions``."""
        return IMPORT_FORMATS.get_or_raise(self.format).kind

    @property
    def rows_differ(self) -> str | None:
        """A standard benchmark whose file has another number of rows than its authors'
        (a different release, or a truncated copy): what differs, else None."""
        if self.standard is None or self.standard.entry.items is None:
            return None
        expected, rows = self.standard.entry.items, self.summary.rows
        if rows == expected:
            return None
        name = self.standard.entry.name
        return f"{name} has {expected:,} rows as published; this file had {rows:,}"


def fetch_standard(
    options: ImportOptions, *, on_download: ByteProgress | None = None
) -> tuple[ImportOptions, Located | None]:
    """``options`` unchanged when ``options.path`` exists; when it names a standard benchmark
    instead, its verified local file (found on this machine or downloaded into the cache,
    ``on_download`` hearing the bytes) with the benchmark's import format and name filled in
    where the options leave them open. Opens no store; CatalogError when the file cannot be
    had (offline and absent: what to download and where to put it)."""
    entry = None if options.path.exists() else find_benchmark(str(options.path))
    if entry is None:
        if options.file is not None:
            raise InvalidOptions(
                f"--file is for a standard benchmark named instead of a file; {options.path} "
                "is not one (lvlmbench ls --available lists them)"
            )
        return options, None
    found = locate(entry, file=options.file, offline=options.offline, on_progress=on_download)
    resolved = dataclasses.replace(
        options,
        path=found.path,
        format=options.format or entry.format,
        name=options.name or entry.name,
        file=None,
    )
    return resolved, found


def import_format(options: ImportOptions) -> str:
    """The format ``options`` import in (named, else detected; a standard benchmark's, fetched
    by :func:`fetch_standard` when ``options.path`` names one); InvalidOptions for options the
    format cannot take, DatasetError for a file no rule recognises. Opens no store."""
    options, _ = fetch_standard(options)
    path, fmt = options.path, options.format
    if fmt is not None:
        IMPORT_FORMATS.get_or_raise(fmt)  # UnknownName naming the known formats
    if path.is_dir() and fmt not in (None, HF_FORMAT):
        raise InvalidOptions(f"{path} is a directory, expected a dataset file")
    if not path.exists():
        raise InvalidOptions(_no_such_file(path))
    with unzip_limit(options.max_unzipped_mb):  # detection opens a workbook too
        found = fmt if fmt is not None else detect_format(path)
    predictions = IMPORT_FORMATS.get_or_raise(found).kind == "predictions"
    if predictions:
        _answered_benchmark(options)
    elif options.model is not None or options.strict:
        raise InvalidOptions("--model and --strict are for prediction files (-f predictions)")
    return found


def _no_such_file(path: Path) -> str:
    """A missing file may be a misspelt standard benchmark: say which names are close."""
    close = close_names(str(path))
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return (
        f"{path}: no such file, nor the name of a standard benchmark (lvlmbench ls "
        f"--available lists them){hint}"
    )


def _answered_benchmark(options: ImportOptions) -> str:
    if options.name is None:
        raise InvalidOptions(
            "--name: name the benchmark these predictions answer (import it first)"
        )
    return options.name


def import_file(
    store: Store,
    options: ImportOptions,
    fmt: str | None = None,
    *,
    on_validate: ProgressHook | None = None,
    on_progress: ProgressHook | None = None,
    standard: Located | None = None,
) -> ImportResult:
    """Import ``options.path`` in ``fmt`` (default: :func:`import_format`). ``on_validate``
    hears (rows checked, rows) while the file is validated, ``on_progress`` (items written,
    items) while it is stored; re-importing the same file adds nothing. A standard benchmark
    named in ``options.path`` is fetched first (:func:`fetch_standard`); ``standard``: the one
    a caller already fetched, kept on the result."""
    if standard is None:
        options, standard = fetch_standard(options)
    found = fmt if fmt is not None else import_format(options)
    if IMPORT_FORMATS.get_or_raise(found).kind == "predictions":
        benchmark = _answered_benchmark(options)
        with unzip_limit(options.max_unzipped_mb):
            predicted = import_predictions(
                store, options.path, benchmark, model=options.model, strict=options.strict
            )
        return ImportResult(found, options.format is None, predicted, standard)
    summary = import_dataset(
        store,
        options.path,
        found,
        options.name,
        concat_images=options.concat_images,
        image_root=options.image_root,
        allow_images_outside=options.allow_images_outside,
        max_unzipped_mb=options.max_unzipped_mb,
        on_validate=on_validate,
        on_progress=on_progress,
        judge=options.judge,
    )
    return ImportResult(found, options.format is None, summary, standard)
