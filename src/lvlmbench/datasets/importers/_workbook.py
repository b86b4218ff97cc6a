"""Opening ``.xlsx`` workbooks (VLMEvalKit writes its prediction files with pandas'
``to_excel``) without trusting the archive.

An ``.xlsx`` file is a zip of XML files. A 1 MB zip can hold a 1 GiB sheet (a zip bomb), and
openpyxl inflates and parses whatever it holds, so every workbook is checked before it is
opened, from the archive's directory alone (nothing is inflated): its members together may not
unzip to more than the limit (:data:`DEFAULT_MAX_UNZIPPED_MB`; ``--max-unzipped-mb`` or
``$LVLMBENCH_MAX_UNZIPPED_MB`` raise it for a trusted file), and no large member may expand more
than :data:`MAX_RATIO`-fold. Python's zipfile never inflates a member past the size the
directory declares (a member that lies fails its CRC check), so the declared sizes bound the
work.
"""

from __future__ import annotations

import contextlib
import os
import zipfile
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import DatasetError, check_header

__all__ = [
    "DEFAULT_MAX_UNZIPPED_MB",
    "EXCEL_SUFFIXES",
    "MAX_RATIO",
    "MAX_UNZIPPED_ENV",
    "cell_text",
    "check_archive",
    "excel_header",
    "max_unzipped_mb",
    "open_workbook",
    "unzip_limit",
]

EXCEL_SUFFIXES = (".xlsx", ".xlsm")
"""Workbooks read with openpyxl (VLMEvalKit writes its prediction files with pandas to_excel)."""

DEFAULT_MAX_UNZIPPED_MB = 512
"""Most MiB a workbook may unzip to. A VLMEvalKit prediction file for MMBench (17k rows)
unzips to about 10 MB, one with long open answers for 100k questions to a few hundred."""
MAX_UNZIPPED_ENV = "LVLMBENCH_MAX_UNZIPPED_MB"
MAX_RATIO = 100
"""Most a member over :data:`_RATIO_FROM` bytes may expand: spreadsheet XML compresses 5-30
fold; the issue's bomb, a 1 GiB sheet in 1 MB, 1,000 fold."""
_RATIO_FROM = 8 << 20  # below this a high ratio is harmless (a sheet of one repeated cell)

_limit: ContextVar[int | None] = ContextVar("max_unzipped_mb", default=None)


@contextlib.contextmanager
def unzip_limit(megabytes: int | None) -> Iterator[None]:
    """Within the block, workbooks may unzip to ``megabytes`` MiB (None: the default, or
    ``$LVLMBENCH_MAX_UNZIPPED_MB``); the CLI's ``--max-unzipped-mb``."""
    if megabytes is not None and megabytes < 1:
        raise ValueError(f"--max-unzipped-mb must be at least 1, got {megabytes}")
    token = _limit.set(megabytes)
    try:
        yield
    finally:
        _limit.reset(token)


def max_unzipped_mb() -> int:
    """The limit in force: :func:`unzip_limit`'s, else ``$LVLMBENCH_MAX_UNZIPPED_MB``'s, else
    :data:`DEFAULT_MAX_UNZIPPED_MB`. ValueError naming the variable when it is no number."""
    chosen = _limit.get()
    if chosen is not None:
        return chosen
    text = os.environ.get(MAX_UNZIPPED_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_UNZIPPED_MB
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"${MAX_UNZIPPED_ENV} must be a whole number of MiB >= 1, got {text!r}")
    return value


def check_archive(path: Path) -> None:
    """DatasetError when the zip at ``path`` would unzip to more than the limit, or a large
    member expands more than :data:`MAX_RATIO`-fold; reads only the archive's directory."""
    try:
        limit = max_unzipped_mb()
    except ValueError as exc:
        raise DatasetError(path, str(exc)) from None
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise DatasetError(path, f"not a readable .xlsx workbook ({exc})") from None
    raise_hint = f"--max-unzipped-mb or ${MAX_UNZIPPED_ENV} raise the limit for a file you trust"
    total = sum(member.file_size for member in members)
    if total > limit << 20:
        raise DatasetError(
            path,
            f"the workbook unzips to {total / 2**20:,.0f} MiB, over the limit of {limit:,} MiB "
            f"(a zip bomb, or far larger than any prediction file; {raise_hint})",
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _RATIO_FROM and ratio > MAX_RATIO:
            raise DatasetError(
                path,
                f"{member.filename} expands {ratio:,.0f}-fold ({member.compress_size:,} bytes "
                f"to {member.file_size:,}); spreadsheets expand at most ~{MAX_RATIO}-fold: a "
                "zip bomb?",
            )


def open_workbook(path: Path) -> Any:
    """The workbook at ``path``, opened read-only by openpyxl once :func:`check_archive`
    passed; DatasetError naming the file when it is not a readable workbook."""
    check_archive(path)
    try:
        import openpyxl  # a core dependency, imported only when a workbook is read
    except ImportError:  # only a broken install lacks it
        raise DatasetError(path, "reading .xlsx needs openpyxl: pip install openpyxl") from None
    try:
        return openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise DatasetError(path, f"not a readable .xlsx workbook ({exc})") from None


def cell_text(value: Any) -> str:
    """A spreadsheet cell as the text a TSV would hold: empty for None, ``12`` for the float
    12.0 (pandas writes integer columns holding NaN as floats), ``str`` otherwise."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def excel_header(path: Path) -> list[str]:
    """The first row of a workbook's first sheet, as text (the rows are not read)."""
    workbook = open_workbook(path)
    try:
        first = next(workbook.worksheets[0].iter_rows(values_only=True, max_row=1), ())
        header = [cell_text(v).strip() for v in first]
    finally:
        workbook.close()
    check_header(path, header)
    return header
