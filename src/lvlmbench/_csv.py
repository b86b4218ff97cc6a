"""Every CSV lvlmbench writes goes through :func:`write_csv`, so no cell can run as a
spreadsheet formula.

Benchmark, model, judge and group names come from users and model providers. A cell starting
with ``=``, ``+``, ``-``, ``@``, tab or carriage return is read by Excel, LibreOffice and Google
Sheets as a formula (``=HYPERLINK(...)`` leaks data on a click, ``=cmd|...`` once ran
programs), so such text cells get a leading ``'``: spreadsheets show the text, and the quote
is the documented marker of "this is text". Plain numbers (``-0.5``, ``+3``, ``1e-3``) and a
lone ``-`` (the "no such facet" placeholder, which no spreadsheet evaluates) are left alone, so
numeric columns stay numeric.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["csv_safe", "write_csv"]

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_safe(value: Any) -> Any:
    """``value`` as it may go into a CSV cell: text that a spreadsheet would run as a formula
    gets a leading ``'``; numbers, plain-number text and everything else are unchanged."""
    if not isinstance(value, str) or not value.startswith(_FORMULA_STARTS):
        return value
    if value == "-" or _PLAIN_NUMBER.fullmatch(value):  # "-" is the "no group" placeholder
        return value
    return "'" + value


def write_csv(path: Path, fieldnames: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> Path:
    """Write ``rows`` (dicts keyed by ``fieldnames``) with a header, every cell and header
    neutralised by :func:`csv_safe`; returns ``path``."""
    safe_names = [str(csv_safe(name)) for name in fieldnames]
    with path.open("w", newline="", encoding="utf-8") as sink:
        writer = csv.writer(sink)
        writer.writerow(safe_names)
        for row in rows:
            writer.writerow([csv_safe(row.get(name)) for name in fieldnames])
    return path
