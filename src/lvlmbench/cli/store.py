"""`lvlmbench store ...`: what is in the store."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from lvlmbench.cli._available import print_available
from lvlmbench.cli._common import StoreOption, console, friendly_errors, open_store, print_json
from lvlmbench.models import display_names
from lvlmbench.store import legacy_identities, list_stored

__all__ = ["list_store", "store_app"]

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
        details["legacy_identities"] = legacy_identities(opened.engine)
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
    if details["legacy_identities"]:
        # Schema 1 stored every model under provider/name whatever its endpoint.
        console.print(
            "stored before schema 2, endpoint not recorded: "
            + ", ".join(details["legacy_identities"]),
            markup=False,
            highlight=False,
        )


@friendly_errors
def list_store(
    store: StoreOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    available: Annotated[
        bool,
        typer.Option(
            "--available",
            help="List the standard benchmarks `lvlmbench import NAME` fetches (rows, licence, "
            "source) instead; opens no store.",
        ),
    ] = False,
) -> None:
    """Benchmarks in the store: kind, items, the models run on each and its judges; with
    --available, the standard benchmarks that can be imported by name."""
    if available:
        print_available(as_json)
        return
    opened = open_store(store, writable=False)
    try:
        listing = list_stored(opened)
    finally:
        opened.close()
    if as_json:
        print_json([vars(row) for row in listing])
        return
    if not listing:
        console.print(
            f"no benchmarks in {opened.url}; `lvlmbench demo` or `lvlmbench generate` makes some",
            markup=False,
            highlight=False,
        )
        return
    shown = display_names(who for row in listing for who in (*row.models, *row.judges))
    table = Table(title=f"benchmarks in {opened.url}", title_justify="left")
    table.add_column("benchmark")
    table.add_column("kind")
    table.add_column("items", justify="right")
    table.add_column("models")
    table.add_column("judges")
    for row in listing:
        table.add_row(
            row.name,
            row.kind,
            str(row.items),
            ", ".join(shown[m] for m in row.models) or "-",
            ", ".join(shown[j] for j in row.judges) or "-",
        )
    console.print(table)
