"""`lvlmbench import FILE --format ...`: bring a published benchmark (or human votes) into the
store."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    console,
    friendly_errors,
    open_store,
    print_json,
    progress_bar,
)
from lvlmbench.datasets import DatasetError, ImportSummary
from lvlmbench.datasets import import_dataset as run_import

__all__ = ["DatasetFormat", "import_dataset"]


class DatasetFormat(StrEnum):
    """File formats `lvlmbench import` reads."""

    VISIT = "visit"
    TOUCHSTONE = "touchstone"
    JSONL = "jsonl"
    VLMEVAL = "vlmeval"
    VOTES = "votes"


def _print_summary(summary: ImportSummary) -> None:
    if summary.format == "votes":
        console.print(
            f"[bold]{summary.benchmark}[/]: {summary.votes} human votes from {summary.rows} rows "
            f"({summary.votes_added} new) by {len(summary.annotators)} annotators "
            f"({', '.join(summary.annotators)})"
        )
        return
    console.print(
        f"[bold]{summary.benchmark}[/] ({summary.format}): {summary.rows} rows → "
        f"{summary.items_added} items added, {summary.items_updated} updated, "
        f"{summary.items_unchanged} unchanged; {summary.images} images"
        + (
            f", {summary.concatenated} multi-image rows concatenated"
            if summary.concatenated
            else ""
        )
    )
    if summary.urls_not_fetched:
        first = summary.urls_not_fetched[0]
        console.print(
            f"[yellow]{len(summary.urls_not_fetched)} image URL(s) not fetched[/] (e.g. {first}): "
            "those items fail at evaluation until their images are imported from files or base64",
            highlight=False,
        )


_Hook = Callable[[int, int], None]


@contextlib.contextmanager
def _phase_bars(name: str, enabled: bool) -> Iterator[tuple[_Hook, _Hook]]:
    """(validate, write) progress hooks, one bar per phase: "validating" while the whole file is
    checked (a big file would otherwise look hung), then "importing" while items are stored.
    Rich shows one live display at a time, so the first write closes the validating bar."""
    with contextlib.ExitStack() as stack:
        hooks = [stack.enter_context(progress_bar(f"validating {name}", enabled))]

        def write(done: int, total: int) -> None:
            if len(hooks) == 1:
                stack.close()
                hooks.append(stack.enter_context(progress_bar(f"importing {name}", enabled)))
            hooks[1](done, total)

        yield hooks[0], write


@friendly_errors
def import_dataset(
    file: Annotated[Path, typer.Argument(help="Dataset file (CSV, TSV or JSONL).")],
    format: Annotated[
        DatasetFormat, typer.Option("--format", "-f", help="Which format FILE is in.")
    ],
    name: Annotated[
        str | None,
        typer.Option(
            help="Benchmark name (default: the file's stem). For votes: the benchmark they "
            "refer to."
        ),
    ] = None,
    concat_images: Annotated[
        bool,
        typer.Option(
            "--concat-images",
            help="Store multi-image rows as one side-by-side image, for single-image models "
            "(originals kept in meta).",
        ),
    ] = False,
    store: StoreOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Import VisIT-Bench CSV, TouchStone TSV, JSONL, VLMEvalKit TSV or human pairwise votes.

    The whole file is checked first: a bad row stops the import, naming its row and column,
    and nothing is written. Re-importing the same file adds nothing. Image URLs are recorded,
    not downloaded.
    """
    if file.is_dir():  # checked before the store is opened (and perhaps created)
        raise BadInput(f"{file} is a directory, expected a dataset file")
    if not file.exists():
        raise BadInput(f"{file}: no such file")
    opened = open_store(store)
    try:
        show = not json_output and format is not DatasetFormat.VOTES
        with _phase_bars(file.name, show) as (validated, written):
            summary = run_import(
                opened,
                file,
                format.value,
                name,
                concat_images=concat_images,
                on_validate=validated,
                on_progress=written,
            )
    except DatasetError as exc:
        raise BadInput(str(exc)) from None
    finally:
        opened.close()
    if json_output:
        print_json(summary.as_dict())
    else:
        _print_summary(summary)
