"""The import use case: a dataset, a vote file or a model's prediction file into the store, in
a format named or detected, under both ``lvlmbench import`` and :func:`lvlmbench.api.import_file`.

:func:`import_format` settles the format and refuses bad options before any store is opened;
:func:`import_file` then imports (the whole file is checked before anything is written). Both
raise :class:`InvalidOptions` for refused options and :class:`DatasetError` (naming the file,
row and column) for a bad file.
"""

from __future__ import annotations

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
from lvlmbench.datasets.importers import unzip_limit
from lvlmbench.datasets.importers._common import ProgressHook
from lvlmbench.datasets.importers.hf import HF_FORMAT
from lvlmbench.store import Store
from lvlmbench.workflows._errors import InvalidOptions

__all__ = ["ImportOptions", "ImportResult", "import_file", "import_format"]


@dataclass(frozen=True)
class ImportOptions:
    """What to import and how (``lvlmbench import``'s arguments, same names and defaults)."""

    path: Path
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


@dataclass(frozen=True)
class ImportResult:
    """The format read (``detected`` when no format was named) and what was stored: an
    item or vote import's summary, or a prediction import's."""

    format: str
    detected: bool
    summary: ImportSummary | PredictionSummary

    @property
    def kind(self) -> str:
        """``items``, ``votes`` or ``predictions``."""
        return IMPORT_FORMATS.get_or_raise(self.format).kind


def import_format(options: ImportOptions) -> str:
    """The format ``options`` import in (named, else detected); InvalidOptions for options the
    format cannot take, DatasetError for a file no rule recognises. Opens no store."""
    path, fmt = options.path, options.format
    if fmt is not None:
        IMPORT_FORMATS.get_or_raise(fmt)  # UnknownName naming the known formats
    if path.is_dir() and fmt not in (None, HF_FORMAT):
        raise InvalidOptions(f"{path} is a directory, expected a dataset file")
    if not path.exists():
        raise InvalidOptions(f"{path}: no such file")
    with unzip_limit(options.max_unzipped_mb):  # detection opens a workbook too
        found = fmt if fmt is not None else detect_format(path)
    predictions = IMPORT_FORMATS.get_or_raise(found).kind == "predictions"
    if predictions:
        _answered_benchmark(options)
    elif options.model is not None or options.strict:
        raise InvalidOptions("--model and --strict are for prediction files (-f predictions)")
    return found


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
) -> ImportResult:
    """Import ``options.path`` in ``fmt`` (default: :func:`import_format`). ``on_validate``
    hears (rows checked, rows) while the file is validated, ``on_progress`` (items written,
    items) while it is stored; re-importing the same file adds nothing."""
    found = fmt if fmt is not None else import_format(options)
    if IMPORT_FORMATS.get_or_raise(found).kind == "predictions":
        benchmark = _answered_benchmark(options)
        with unzip_limit(options.max_unzipped_mb):
            predicted = import_predictions(
                store, options.path, benchmark, model=options.model, strict=options.strict
            )
        return ImportResult(found, options.format is None, predicted)
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
    return ImportResult(found, options.format is None, summary)
