"""`lvlmbench import FILE [-f FORMAT]`: bring a published benchmark (or human votes) into the
store; the format is detected from the file unless ``-f`` names it. `lvlmbench import NAME`
fetches a standard benchmark by name (see :mod:`lvlmbench.datasets.catalog`)."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from lvlmbench.cli._choices import choice_help, registry_choice
from lvlmbench.cli._common import (
    BadInput,
    StoreOption,
    console,
    err_console,
    friendly_errors,
    open_store,
    print_json,
    progress_bar,
)
from lvlmbench.cli._import_options import (
    AllowImagesOutside,
    ConcatImages,
    File,
    ImageRoot,
    JsonOutput,
    Judge,
    LocalCopy,
    MaxUnzippedMb,
    Model,
    Name,
    Offline,
    Strict,
)
from lvlmbench.datasets import IMPORT_FORMATS, DatasetError, ImportSummary, PredictionSummary
from lvlmbench.datasets.catalog import ByteProgress, CatalogError, Located
from lvlmbench.workflows.importing import (
    ImportOptions,
    ImportResult,
    fetch_standard,
    import_file,
    import_format,
)

__all__ = ["import_dataset"]


def _kind(fmt: str) -> str:
    return IMPORT_FORMATS.get_or_raise(fmt).kind


def _print_votes(summary: ImportSummary) -> None:
    shown = ", ".join(summary.annotators[:8]) + (", ..." if len(summary.annotators) > 8 else "")
    by_models = summary.format == "battles" or summary.verdicts == summary.votes
    what, who = ("verdicts", "judges") if by_models else ("human votes", "annotators")
    if summary.verdicts and not by_models:
        what, who = "votes and verdicts", "judges"
    if summary.items_added or summary.items_unchanged or summary.items_updated:
        console.print(
            f"[bold]{summary.benchmark}[/]: {summary.items_added} items built from the file's "
            f"conversations ({summary.items_unchanged} already stored)",
            highlight=False,
        )
    console.print(
        f"[bold]{summary.benchmark}[/]: {summary.votes} {what} from {summary.rows} rows "
        f"({summary.votes_added} new) by {len(summary.annotators)} "
        f"{who if len(summary.annotators) != 1 else who[:-1]} ({shown})",
        highlight=False,
    )
    if summary.responses_added:
        console.print(f"{summary.responses_added} answers stored as responses (only in the file)")
    for reason, count in summary.skipped.items():
        console.print(f"[yellow]{count} skipped[/]: {reason}", highlight=False)
    if summary.unmatched:
        console.print(
            f"[yellow]{summary.unmatched} row(s) matched no item[/] of {summary.benchmark!r}, not "
            f"stored (first: {'; '.join(summary.unmatched_keys)})",
            highlight=False,
        )
    if summary.ambiguous:
        console.print(
            f"[yellow]{summary.ambiguous} row(s) match several items[/] (the dataset repeats "
            "their image and instruction, and the reference does not tell them apart): "
            "joined to the first",
            highlight=False,
        )
    if summary.response_conflicts:
        console.print(
            f"[yellow]{len(summary.response_conflicts)} answers differ from the stored ones[/] "
            f"(kept the stored; first: {'; '.join(summary.response_conflicts[:3])})",
            highlight=False,
        )


def _print_summary(summary: ImportSummary) -> None:
    if _kind(summary.format) == "votes":
        _print_votes(summary)
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
    if summary.image_root is not None:
        console.print(
            f"{summary.images_from_root} image(s) found under --image-root {summary.image_root}",
            highlight=False,
        )
    if summary.urls_not_fetched:
        first = summary.urls_not_fetched[0]
        console.print(
            f"[yellow]{summary.urls_not_fetched_count} image URL(s) not fetched[/] (e.g. {first}): "
            "those items fail at evaluation until their images are downloaded (re-import with "
            "--image-root DIR) or imported from files or base64",
            highlight=False,
        )
    if summary.images_missing:
        console.print(
            f"[yellow]{summary.images_missing_count} image file(s) not found[/] (e.g. "
            f"{summary.images_missing[0]}): those items fail at evaluation until the files are "
            "put beside the dataset file or under --image-root DIR and it is re-imported",
            highlight=False,
        )


def _print_predictions(summary: PredictionSummary) -> None:
    models = ", ".join(f"{name} ({count})" for name, count in summary.models.items())
    console.print(
        f"[bold]{summary.benchmark}[/] ({summary.layout} predictions): {summary.rows} rows → "
        f"responses of {models}: {summary.ok} ok, {summary.unparseable} unparseable, "
        f"{summary.refused} refused, {summary.missing} without a prediction (stored as errors)",
        highlight=False,
    )
    if summary.unmatched:
        console.print(
            f"[yellow]{summary.unmatched} row(s) match no item[/] and were not imported: "
            + "; ".join(summary.unmatched_keys)
            + (" ..." if summary.unmatched > len(summary.unmatched_keys) else ""),
            highlight=False,
        )
    names = " ".join(f"--model {shlex.quote(name)}" for name in summary.models)
    bench = shlex.quote(summary.benchmark)
    console.print(f"scores: lvlmbench evaluate {bench} {names}", highlight=False, markup=False)


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
    file: File,
    format: Annotated[  # inline, not an alias: evaluated when the command is built, so the
        # help lists formats registered after this module was imported
        str | None,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            parser=registry_choice(IMPORT_FORMATS.names),
            help=choice_help(
                "Which format FILE is in (default: detected from the file).",
                IMPORT_FORMATS.names(),
            ),
        ),
    ] = None,
    name: Name = None,
    concat_images: ConcatImages = False,
    image_root: ImageRoot = None,
    allow_images_outside: AllowImagesOutside = False,
    max_unzipped_mb: MaxUnzippedMb = None,
    judge: Judge = None,
    model: Model = None,
    strict: Strict = False,
    local_copy: LocalCopy = None,
    offline: Offline = False,
    store: StoreOption = None,
    json_output: JsonOutput = False,
) -> None:
    """Import a dataset file or a standard benchmark by name (`lvlmbench ls --available`), a vote
    file or a model's prediction file; the format is detected from the columns unless -f names it.

    Datasets: VisIT-Bench CSV (or HF metadata.csv), TouchStone TSV, VLMEvalKit TSV (MMBench,
    SEEDBench, MME, MMMU, TEST splits), LLaVA-Bench questions.jsonl, JSONL, Hugging Face
    parquet files or folders (Hub layout, save_to_disk; a DatasetDict imports its test split)
    and `lvlmbench export` folders, which read back equal.
    Votes: our wide votes CSV, VisIT-Bench human preferences, FastChat human judgments or
    VisIT-Bench leaderboard battles (a model judge's verdicts). Predictions: VLMEvalKit .xlsx or
    .tsv, VisIT-Bench '<model> prediction' columns, TouchStone submissions, JSONL; they become
    the responses of --model on the benchmark --name, joined to its items by the file's keys.

    The whole file is checked first: a bad row stops the import, naming its row and column, and
    nothing is written. Re-importing the same file adds nothing. Image URLs are recorded, not
    downloaded (or found by file name under --image-root).
    """
    options = ImportOptions(
        path=file,
        format=format,
        name=name,
        concat_images=concat_images,
        image_root=image_root,
        allow_images_outside=allow_images_outside,
        max_unzipped_mb=max_unzipped_mb,
        judge=judge,
        model=model,
        strict=strict,
        file=local_copy,
        offline=True if offline else None,
    )
    _print_result(file, _imported(store, options, json_output), json_output)


def _imported(store: str | None, options: ImportOptions, json_output: bool) -> ImportResult:
    """The use case with a progress bar per phase (downloading, checking, then writing)."""
    try:
        with _download_bar(str(options.path), not json_output) as on_download:
            options, standard = fetch_standard(options, on_download=on_download)
        if standard is not None and not json_output:
            _print_found(standard)
        fmt = import_format(options)  # refuses bad options before the store is opened
        opened = open_store(store)
        try:
            show = not json_output and IMPORT_FORMATS.get_or_raise(fmt).kind == "items"
            with _phase_bars(options.path.name, show) as (validated, written):
                return import_file(
                    opened,
                    options,
                    fmt,
                    on_validate=validated,
                    on_progress=written,
                    standard=standard,
                )
        finally:
            opened.close()
    except (DatasetError, CatalogError) as exc:
        raise BadInput(str(exc)) from None


@contextlib.contextmanager
def _download_bar(name: str, enabled: bool) -> Iterator[ByteProgress]:
    """A byte-counting bar (size, speed, time left) that appears only if a download starts:
    a benchmark already on this machine prints none."""
    with contextlib.ExitStack() as stack:
        shown: list[ByteProgress] = []

        def hook(done: int, total: int | None) -> None:
            if not enabled:
                return
            if not shown:
                progress = stack.enter_context(
                    Progress(
                        TextColumn("[bold]{task.description}"),
                        BarColumn(),
                        DownloadColumn(),
                        TransferSpeedColumn(),
                        TimeRemainingColumn(),
                        console=err_console,
                    )
                )
                task = progress.add_task(f"downloading {name}", total=total)
                shown.append(lambda d, t: progress.update(task, completed=d, total=t))
            shown[0](done, total)

        yield hook


_ORIGINS = {
    "file": "read --file",
    "cache": "read from the cache:",
    "huggingface": "read from the Hugging Face cache:",
    "lmudata": "read from VLMEvalKit's data folder:",
    "download": "downloaded to",
}


def _print_found(found: Located) -> None:
    """Which file a standard benchmark is read from, and what vouches for it."""
    entry = found.entry
    if found.verified is not None:
        check = f"{found.verified.algorithm} verified"
        if entry.checksum is None:
            check = f"no published checksum; sha256 {found.verified.hexdigest[:16]}… recorded"
    else:
        check = "no published checksum"
        if entry.hub_file is not None and entry.hub_file.pinned:
            check += f", pinned by commit {entry.hub_file.revision[:12]}"
    console.print(
        f"[bold]{entry.name}[/] {_ORIGINS[found.origin]} {found.path} ({check})", highlight=False
    )


def _standard_fields(found: Located) -> dict[str, str | None]:
    verified = found.verified
    return {
        "name": found.entry.name,
        "file": str(found.path),
        "origin": found.origin,
        "checksum": str(verified) if verified is not None else None,
        "url": found.entry.url,
    }


def _print_result(file: Path, result: ImportResult, json_output: bool) -> None:
    summary = result.summary
    if json_output:
        shown = summary.model_dump()
        if result.standard is not None:
            shown["standard"] = _standard_fields(result.standard)
        print_json(shown)
        return
    if isinstance(summary, PredictionSummary):
        _print_predictions(summary)
    else:
        if result.detected:
            console.print(f"{file.name}: detected format [bold]{result.format}[/]", highlight=False)
        _print_summary(summary)
    if result.rows_differ is not None:
        console.print(f"[yellow]{result.rows_differ}[/]", highlight=False)
