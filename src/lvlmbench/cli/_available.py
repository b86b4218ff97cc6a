"""`lvlmbench ls --available`: the standard benchmarks `lvlmbench import NAME` can fetch."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from lvlmbench.cli._common import BadInput, console, print_json
from lvlmbench.datasets.catalog import (
    CatalogError,
    StandardBenchmark,
    cache_root,
    cached_file,
    standard_benchmarks,
)

__all__ = ["print_available"]


def _fields(entry: StandardBenchmark) -> dict[str, Any]:
    cached = cached_file(entry)
    return {
        **entry.model_dump(),
        "source": entry.source,
        "cached": str(cached) if cached.is_file() else None,
    }


def print_available(as_json: bool) -> None:
    """The catalog as a table (or JSON): name, kind, rows, licence, source, checksum, and
    whether a download of it is in the cache."""
    try:
        entries = standard_benchmarks()
    except CatalogError as exc:
        raise BadInput(str(exc)) from None
    if as_json:
        print_json([_fields(entry) for entry in entries])
        return
    table = Table(
        title=f"standard benchmarks (lvlmbench import NAME; cache {cache_root()})",
        title_justify="left",
    )
    for column in ("name", "kind", "rows", "licence", "source", "checksum", "cached"):
        table.add_column(column, justify="right" if column == "rows" else "left")
    for entry in entries:
        checksum = entry.checksum
        table.add_row(
            entry.name,
            entry.kind,
            f"{entry.items:,}" if entry.items is not None else "?",
            entry.licence or "see source",
            entry.source,
            checksum.algorithm if checksum is not None else "none published",
            "yes" if cached_file(entry).is_file() else "",
        )
    console.print(table)
    console.print(
        "rows: as published, '?' where not known here; licence: as the authors state it, "
        "'see source' where not checked here",
        highlight=False,
        markup=False,
    )
