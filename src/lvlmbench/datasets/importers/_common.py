"""What every importer shares: the error type, table reading and the parsed-row record.

Importers stream a file as :class:`ParsedItem` values, one row at a time (images decoded and
checked). An import reads the file twice: once to validate every row, writing nothing, then
again to write, so a bad row never leaves half an import behind and memory never holds the
file.
"""

from __future__ import annotations

import ast
import csv
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from lvlmbench.ids import JSONTooDeep, load_json

__all__ = [
    "MAX_CELL_CHARS",
    "MAX_COLUMNS",
    "MAX_HEADER_CHARS",
    "DatasetError",
    "ParsedItem",
    "ProgressHook",
    "Row",
    "check_header",
    "check_header_line",
    "count_lines",
    "count_rows",
    "not_utf8",
    "parse_list",
    "read_table",
    "report_progress",
    "require_columns",
    "shown_names",
]

MAX_CELL_CHARS = 64 << 20
"""Longest cell (or JSON line) read: a row's base64 pictures are a few MB even in MMMU; a cell
this long is a broken or hostile file, and reading on would hold it all in memory."""
MAX_HEADER_CHARS = 1 << 20
"""Longest header line read before it is parsed: 1,000 columns of 1,000 characters."""

MAX_COLUMNS = 1_000
"""Most columns a table may have. The widest published layouts (FORMATS.md: VLMEvalKit's MMMU
TSV with options A-I, VisIT-Bench's CSV) have 12-20; a VisIT-Bench submission adds one per model
and our wide votes CSV one per annotator. A header far wider is a broken or hostile file, and
every row of it would be as wide."""

ProgressHook = Callable[[int, int], None]
"""Called with (done, total) as rows are validated or items written."""


class DatasetError(ValueError):
    """A dataset file that cannot be imported; the message names file, row and column."""

    def __init__(
        self,
        path: Path,
        message: str,
        *,
        row: int | None = None,
        line: int | None = None,
        column: str | None = None,
    ) -> None:
        where = str(path)
        if row is not None:
            where += f", row {row}"
            if line is not None and line != row:
                where += f" (line {line})"
        if column is not None:
            where += f", column {column!r}"
        super().__init__(f"{where}: {message}")
        self.path = path
        self.row = row
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Row:
    """One data row: 1-based row number (header excluded), the file line it ended on, and its
    cells by column name (as :func:`read_table` returned it)."""

    path: Path
    number: int
    line: int
    cells: dict[str, str]

    def error(self, message: str, column: str | None = None) -> DatasetError:
        """A :class:`DatasetError` located at this row (and column)."""
        return DatasetError(self.path, message, row=self.number, line=self.line, column=column)

    def get(self, column: str) -> str:
        """The stripped cell, or "" when the column is absent or empty."""
        return (self.cells.get(column) or "").strip()

    def required(self, column: str, expected: str = "a non-empty value") -> str:
        """The stripped cell; DatasetError when it is empty."""
        value = self.get(column)
        if not value:
            raise self.error(f"expected {expected}, found an empty cell", column)
        return value


@dataclass
class ParsedItem:
    """One validated item, ready to write: images as bytes, URLs that were not fetched."""

    key: str
    """Row key the item id is derived from (the file's id/index column, else the row number)."""
    row: int
    question: str
    images: list[bytes] = field(default_factory=list)
    image_urls: list[str] = field(default_factory=list)
    missing_images: list[str] = field(default_factory=list)
    """Bare image file names not found (the user downloads them; see ``--image-root``)."""
    images_from_root: int = 0
    kind: str = "open"
    options: dict[str, str] = field(default_factory=dict)
    answer: str | None = None
    reference: str | None = None
    caption: str | None = None
    category: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    image_of: str | None = None
    """The key of the item whose pictures this one shows (VLMEvalKit's ``image`` cell holding
    another row's index): the writer gives it that item's stored images."""
    shares_images: bool = False
    """Whether other items show this one's pictures (the writer remembers its images)."""
    exported_id: str | None = None
    """The item's id in the ``lvlmbench export`` it was read from: kept when the export is
    imported under the benchmark's own name (see ``write_items``' ``restored``)."""


def read_table(
    path: Path, delimiter: str, keep_case: bool = False
) -> tuple[list[str], Iterator[Row]]:
    """Column names (stripped; lower-cased unless ``keep_case``) and a stream of rows of a
    CSV/TSV file.

    Cells may be large (base64 images), so the csv module's field limit is lifted.
    """
    _lift_field_limit()
    handle = path.open(newline="", encoding="utf-8-sig")
    try:
        check_header_line(path, handle)
    except BaseException:
        handle.close()
        raise
    reader = csv.reader(handle, delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        handle.close()
        raise DatasetError(path, "the file is empty (expected a header row)") from None
    except csv.Error as exc:
        handle.close()
        raise DatasetError(path, f"not a readable table: {exc}") from None
    columns = [c.strip() if keep_case else c.strip().lower() for c in header]
    try:
        check_header(path, columns)
    except DatasetError:
        handle.close()
        raise

    def rows() -> Iterator[Row]:
        with handle:
            number = 0
            while True:
                try:
                    cells = next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:
                    raise DatasetError(
                        path, f"malformed row: {exc}", row=number + 1, line=reader.line_num
                    ) from None
                if not any(c.strip() for c in cells):
                    continue  # blank line
                number += 1
                if len(cells) != len(columns):
                    raise DatasetError(
                        path,
                        f"expected {len(columns)} cells (one per header column), found "
                        f"{len(cells)}",
                        row=number,
                        line=reader.line_num,
                    )
                yield Row(path, number, reader.line_num, dict(zip(columns, cells, strict=True)))

    return columns, rows()


def check_header(path: Path, columns: list[str]) -> None:
    """DatasetError for a header with more than :data:`MAX_COLUMNS` columns or a column named
    twice (case ignored; empty names, as spreadsheets pad rows, are not compared). Linear: a
    hostile header of 100,000 columns is answered at once."""
    if len(columns) > MAX_COLUMNS:
        raise DatasetError(
            path,
            f"the header has {len(columns):,} columns; expected at most {MAX_COLUMNS:,} (the "
            "widest published layout has about 20; a votes file has one per annotator: split "
            "a wider one)",
        )
    counts = Counter(c.lower() for c in columns if c)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        raise DatasetError(path, f"duplicate column(s) in the header: {shown_names(duplicates)}")


def shown_names(names: list[str], limit: int = 20) -> str:
    """``names`` joined by commas, the first ``limit`` of them and a count of the rest."""
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names) - limit:,} more)" if len(names) > limit else "")


def check_header_line(path: Path, handle: TextIO) -> None:
    """DatasetError when the first line is longer than :data:`MAX_HEADER_CHARS` (it would be
    parsed into that many columns first); the handle is left at the start."""
    first = handle.readline(MAX_HEADER_CHARS + 1)
    handle.seek(0)
    if len(first) > MAX_HEADER_CHARS:
        raise DatasetError(
            path,
            f"the header row is longer than {MAX_HEADER_CHARS:,} characters; expected at most "
            f"{MAX_COLUMNS:,} column names",
        )


def _lift_field_limit() -> None:
    # Cells may hold base64 pictures, far over the csv module's 128 KiB default.
    csv.field_size_limit(MAX_CELL_CHARS)


def count_rows(path: Path, delimiter: str) -> int:
    """The number of data rows :func:`read_table` would yield, for a progress total.

    An extra read of the file, but a cheap one next to validating (images are decoded there).
    It never raises: where the file cannot be read (bad encoding, a malformed row) it returns
    the rows counted so far and leaves the error to the validating pass, so errors and their
    order are those of validation alone.
    """
    _lift_field_limit()
    count = 0
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            next(reader, None)  # the header
            for cells in reader:
                if any(c.strip() for c in cells):  # read_table skips blank lines
                    count += 1
    except (OSError, UnicodeDecodeError, csv.Error):
        pass
    return count


def count_lines(path: Path) -> int:
    """Non-blank lines of a text file (JSONL items), for a progress total, read in chunks (a
    line is never held whole); like :func:`count_rows`, it never raises."""
    count = 0
    blank = True  # the line being read has only whitespace so far
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                *ended, rest = chunk.split(b"\n")
                for piece in ended:
                    if not blank or (piece and not piece.isspace()):
                        count += 1
                    blank = True
                blank = blank and (not rest or rest.isspace())
        count += not blank
    except OSError:
        pass
    return count


def report_progress(on_progress: ProgressHook | None, done: int, total: int) -> None:
    """Tell ``on_progress`` (if any) that ``done`` rows are validated. The total is a pre-count
    that stops early at an unreadable spot, so it is never reported below ``done``."""
    if on_progress is not None:
        on_progress(done, max(done, total))


def require_columns(path: Path, columns: list[str], *required: str | tuple[str, ...]) -> None:
    """DatasetError naming the first required column (or group of alternatives) missing."""
    for need in required:
        options = (need,) if isinstance(need, str) else need
        if not any(o in columns for o in options):
            wanted = " or ".join(repr(o) for o in options)
            error = DatasetError(
                path, f"missing required column {wanted}; the header has: {shown_names(columns)}"
            )
            error.column = options[0]
            raise error


def parse_list(value: str) -> list[str] | None:
    """A cell holding a list (JSON, or a Python literal as VLMEvalKit writes) as strings; None
    when the cell is not a list."""
    text = value.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    parsed: Any
    try:
        parsed = load_json(text)
    except JSONTooDeep:
        return None
    except ValueError:
        try:
            parsed = ast.literal_eval(_without_nan(ast.parse(text, mode="eval")))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    if not isinstance(parsed, list):
        return None
    return [str(v).strip() for v in parsed if v is not None and str(v).strip()]


class _NanToNone(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id.lower() == "nan":
            return ast.copy_location(ast.Constant(None), node)
        return node


def _without_nan(tree: ast.AST) -> ast.AST:
    """``tree`` with bare ``NaN`` names as None: pandas writes missing list entries as NaN,
    which neither JSON nor Python literals allow next to quoted strings."""
    cleaned: ast.AST = _NanToNone().visit(tree)
    return cleaned


def not_utf8(path: Path, exc: UnicodeDecodeError) -> DatasetError:
    """The error for a file that is not UTF-8 text, naming the first undecodable byte."""
    return DatasetError(
        path,
        f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} cannot be decoded); "
        "re-save the file as UTF-8",
    )
