"""Reading a prediction table as rows of text cells: VLMEvalKit's ``.xlsx`` (pandas
``to_excel``), and CSV/TSV through the importers' :func:`read_table`.

Column names keep their case here: VisIT-Bench's ``<model name> prediction`` columns carry the
model's name. Lookups go through :func:`column_map` (lower-cased name → the header's name).
"""

from __future__ import annotations

from pathlib import Path

from lvlmbench.datasets.importers._common import (
    DatasetError,
    Row,
    check_header,
    not_utf8,
    read_table,
)
from lvlmbench.datasets.importers._workbook import (
    EXCEL_SUFFIXES,
    cell_text,
    excel_header,
    open_workbook,
)

__all__ = ["EXCEL_SUFFIXES", "cell_text", "column_map", "read_header", "read_prediction_table"]


def column_map(columns: list[str]) -> dict[str, str]:
    """Lower-cased, stripped column name → the header's own spelling."""
    return {c.strip().lower(): c for c in columns}


def _read_xlsx(path: Path) -> tuple[list[str], list[Row]]:
    workbook = open_workbook(path)  # the archive's sizes checked first: no zip bomb inflates
    try:
        sheet = workbook.worksheets[0]
        values = sheet.iter_rows(values_only=True)
        header = next(values, None)
        if header is None:
            raise DatasetError(path, "the first sheet is empty (expected a header row)")
        columns = [cell_text(v).strip() for v in header]
        check_header(path, columns)
        rows: list[Row] = []
        for line, raw in enumerate(values, start=2):
            texts = [cell_text(v) for v in raw]
            if not any(t.strip() for t in texts):
                continue
            cells = {c: (texts[i] if i < len(texts) else "") for i, c in enumerate(columns) if c}
            rows.append(Row(path, len(rows) + 1, line, cells))
        return columns, rows
    finally:
        workbook.close()


def _delimiter(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return ","
    if suffix == ".tsv":
        return "\t"
    with path.open(encoding="utf-8-sig", errors="replace") as handle:
        first = handle.readline()
    return "\t" if "\t" in first else ","


def read_prediction_table(path: Path) -> tuple[list[str], list[Row]]:
    """Header (case kept) and data rows of a ``.xlsx``, ``.csv`` or ``.tsv`` prediction file;
    DatasetError naming the file (and row) when it cannot be read."""
    if path.suffix.lower() in EXCEL_SUFFIXES:
        return _read_xlsx(path)
    if path.suffix.lower() == ".xls":
        raise DatasetError(path, "an old-style .xls workbook; save it as .xlsx (or .tsv)")
    try:
        columns, rows = read_table(path, _delimiter(path), keep_case=True)
        return columns, list(rows)
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None


def read_header(path: Path) -> list[str]:
    """Just the header of a prediction table (for format detection: the rows, which may hold
    megabytes of base64, are not read)."""
    if path.suffix.lower() in EXCEL_SUFFIXES:
        return excel_header(path)
    columns, rows = read_table(path, _delimiter(path), keep_case=True)
    close = getattr(rows, "close", None)
    if callable(close):
        close()
    return columns
