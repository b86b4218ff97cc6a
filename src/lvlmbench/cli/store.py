"""`lvlmbench store ...`: what is in the store."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from lvlmbench.cli._common import StoreOption, console, friendly_errors, open_store, print_json

__all__ = ["store_app"]

store_app = typer.Typer(help="Inspect the store.", no_args_is_help=True)


@store_app.command("info")
@friendly_errors
def info(
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Schema version, row counts and image files of the store."""
    opened = open_store(store, writable=False)
    try:
        details = opened.info()
    finally:
        opened.close()
    if as_json:
        print_json(details)
        return
    mode = ", read-only" if details["read_only"] else ""
    table = Table(title=f"store {details['url']} (schema {details['schema_version']}{mode})")
    table.add_column("table")
    table.add_column("rows", justify="right")
    for name, count in details["tables"].items():
        table.add_row(name, str(count))
    table.add_row("image files", f"{details['image_files']} ({details['image_bytes']:,} bytes)")
    console.print(table)
