"""Reading JSON records from users' files: JSON Lines line by line and a JSON array element by
element (a file is never read whole), every record through :func:`lvlmbench.ids.load_json`
(nesting bounded by :data:`~lvlmbench.ids.MAX_JSON_DEPTH`), every error a
:class:`DatasetError` naming the file and row.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from lvlmbench.datasets.importers._common import MAX_CELL_CHARS, DatasetError
from lvlmbench.ids import MAX_JSON_DEPTH, JSONTooDeep, check_json_depth, load_json

__all__ = ["iter_json_array", "iter_json_lines", "iter_json_records", "json_error"]

_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"
_WHITESPACE = " \t\r\n"
_DECODER = json.JSONDecoder()


def json_error(
    path: Path, exc: ValueError, row: int | None, line: int | None = None
) -> DatasetError:
    """The DatasetError for a record that :func:`load_json` refused."""
    if isinstance(exc, JSONTooDeep):
        return DatasetError(path, str(exc), row=row, line=line)
    if isinstance(exc, json.JSONDecodeError):
        return DatasetError(
            path, f"not valid JSON: {exc.msg} at column {exc.colno}", row=row, line=line
        )
    return DatasetError(path, f"not valid JSON: {exc}", row=row, line=line)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line; DatasetError for a line longer than
    :data:`MAX_CELL_CHARS` bytes (it is never read whole). Read as bytes: a text file's
    ``readline(limit)`` costs ten times a binary one's."""
    with path.open("rb") as handle:
        line = 0
        while raw := handle.readline(MAX_CELL_CHARS + 1):
            line += 1
            if len(raw) > MAX_CELL_CHARS:
                raise DatasetError(
                    path, f"the line is longer than {MAX_CELL_CHARS:,} bytes", row=line
                )
            if line == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            if raw.strip():
                yield line, raw.decode("utf-8")


def iter_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of a JSON Lines file; DatasetError naming
    the line that is not valid JSON, nests too deep, is too long or is not an object."""
    for line, text in _lines(path):
        try:
            record = load_json(text)
        except ValueError as exc:
            raise json_error(path, exc, line) from None
        if not isinstance(record, dict):
            raise DatasetError(path, "expected a JSON object per line", row=line)
        yield line, record


class _ArrayReader:
    """The elements of a JSON array read from a text stream one at a time: the buffer holds
    the element being decoded (and a chunk), never the file."""

    def __init__(self, path: Path, handle: TextIO) -> None:
        self.path = path
        self.handle = handle
        self.buffer = ""
        self.pos = 0
        self.line = 1  # the line of self.pos
        self.eof = False

    def _more(self, at_least: int = _CHUNK) -> bool:
        if self.eof:
            return False
        self.line += self.buffer.count("\n", 0, self.pos)
        self.buffer = self.buffer[self.pos :]
        self.pos = 0
        chunk = self.handle.read(max(at_least, _CHUNK))
        self.eof = len(chunk) == 0
        self.buffer += chunk
        return not self.eof

    def _skip_space(self) -> str:
        """The next non-blank character (read as needed), "" at the end of the file."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self._more():
                return ""

    def _line_here(self) -> int:
        return self.line + self.buffer.count("\n", 0, self.pos)

    def _decode(self, row: int) -> Any:
        """The element starting at ``pos``; reads more while it is cut off by the buffer's end
        (each read doubles what is asked, so a long element is decoded O(log n) times)."""
        want = _CHUNK
        while True:
            line = self._line_here()
            try:
                value, end = _DECODER.raw_decode(self.buffer, self.pos)
            except RecursionError:
                raise json_error(self.path, JSONTooDeep(MAX_JSON_DEPTH), row, line) from None
            except json.JSONDecodeError as exc:
                if len(self.buffer) - self.pos > MAX_CELL_CHARS:
                    raise DatasetError(
                        self.path,
                        f"the record is longer than {MAX_CELL_CHARS:,} characters",
                        row=row,
                        line=line,
                    ) from None
                if self._more(want):
                    want *= 2
                    continue
                where = self.line + self.buffer.count("\n", 0, exc.pos)
                raise DatasetError(
                    self.path, f"not valid JSON: {exc.msg}", row=row, line=where
                ) from None
            try:  # the decoder alone refuses only near 1,000 levels: the same limit as lines
                check_json_depth(self.buffer[self.pos : end])
            except JSONTooDeep as exc:
                raise json_error(self.path, exc, row, line) from None
            self.pos = end
            return value

    def _expect_end(self, row: int) -> None:
        if self._skip_space():
            raise DatasetError(
                self.path,
                "not valid JSON: more data after the array's closing ']' (one array per file, "
                "or one object per line)",
                row=row,
                line=self._line_here(),
            )

    def __iter__(self) -> Iterator[tuple[int, int, Any]]:
        if self._skip_space() != "[":
            raise DatasetError(self.path, "expected a JSON array ([ ... ])")
        self.pos += 1
        row = 0
        if self._skip_space() == "]":
            self.pos += 1
            self._expect_end(0)
            return
        while True:
            row += 1
            line = self._line_here()
            yield row, line, self._decode(row)
            after = self._skip_space()
            self.pos += 1
            if after == "]":
                self._expect_end(row)
                return
            if after != ",":
                found = repr(after) if after else "the end of the file"
                raise DatasetError(
                    self.path,
                    f"not valid JSON: expected ',' or ']' after it, found {found}",
                    row=row,
                    line=self._line_here(),
                )
            if self._skip_space() == "]":
                raise DatasetError(self.path, "not valid JSON: a trailing comma", row=row)


def iter_json_array(path: Path) -> Iterator[tuple[int, int, Any]]:
    """(element number from 1, its line, the value) of a file holding one JSON array, read
    element by element; DatasetError naming the element that is not valid JSON or nests too
    deep."""
    with path.open(encoding="utf-8-sig") as handle:
        yield from _ArrayReader(path, handle)


def iter_json_records(path: Path) -> Iterator[tuple[int, int, Any]]:
    """(record number, line, value) of a JSON array file or a JSON Lines file (told apart by
    the first non-blank character), streamed; DatasetError naming the record."""
    with path.open(encoding="utf-8-sig") as handle:
        first = ""
        while not first:
            chunk = handle.read(4096)
            if not chunk:
                return
            first = chunk.lstrip()[:1]
    if first == "[":
        yield from iter_json_array(path)
        return
    for number, (line, text) in enumerate(_lines(path), start=1):
        try:
            value = load_json(text)
        except ValueError as exc:
            raise json_error(path, exc, number, line) from None
        yield number, line, value
