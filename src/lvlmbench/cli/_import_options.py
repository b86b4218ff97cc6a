"""The options of `lvlmbench import`, named once so the command's signature reads as a list."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.datasets.importers import DEFAULT_MAX_UNZIPPED_MB, MAX_UNZIPPED_ENV

__all__ = [
    "AllowImagesOutside",
    "ConcatImages",
    "File",
    "ImageRoot",
    "JsonOutput",
    "Judge",
    "LocalCopy",
    "MaxUnzippedMb",
    "Model",
    "Name",
    "Offline",
    "Strict",
]

File = Annotated[
    Path,
    typer.Argument(
        help="Dataset, vote or prediction file (CSV, TSV, XLSX, JSON, JSONL or parquet), a "
        "dataset folder (`lvlmbench export` output, Hub parquet layout, save_to_disk), or the "
        "name of a standard benchmark (MMBench_DEV_EN, MME, ...; `lvlmbench ls --available`)."
    ),
]
LocalCopy = Annotated[
    Path | None,
    typer.Option(
        "--file",
        help="A standard benchmark named: read this local copy of its file (checked against "
        "the published checksum) instead of the cache or a download.",
    ),
]
Offline = Annotated[
    bool,
    typer.Option(
        "--offline",
        help="A standard benchmark named: never download; read the cache, the Hugging Face "
        "cache or --file (also set by LVLMBENCH_OFFLINE=1 or HF_HUB_OFFLINE=1).",
    ),
]
Name = Annotated[
    str | None,
    typer.Option(
        help="Benchmark name (default: the file's stem). For votes: the benchmark they refer to."
    ),
]
ConcatImages = Annotated[
    bool,
    typer.Option(
        "--concat-images",
        help="Store multi-image rows as one side-by-side image, for single-image models "
        "(originals kept in meta).",
    ),
]
ImageRoot = Annotated[
    Path | None,
    typer.Option(
        "--image-root",
        help="Folder of downloaded images: URL and file-name images are found in it (or "
        "its subfolders) by file name.",
    ),
]
AllowImagesOutside = Annotated[
    bool,
    typer.Option(
        "--allow-images-outside",
        help="Read image paths that lead outside the file's folder and --image-root "
        "(absolute paths, '..', links). Only for files you trust.",
    ),
]
MaxUnzippedMb = Annotated[
    int | None,
    typer.Option(
        "--max-unzipped-mb",
        envvar=MAX_UNZIPPED_ENV,
        min=1,
        help=f"Most MiB an .xlsx workbook may unzip to (default {DEFAULT_MAX_UNZIPPED_MB}); "
        "larger ones, and zip bombs, are refused before they are opened.",
    ),
]
Judge = Annotated[
    str | None,
    typer.Option(
        "--judge",
        help="battles, FastChat's GPT-4 pair judgments: the model judge's name (default: the "
        "file's engine field; FastChat: the judge list's first entry).",
    ),
]
Model = Annotated[
    str | None,
    typer.Option(
        help="Predictions: the model whose answers the file holds (default: the name the "
        "file gives, e.g. VLMEvalKit's {model}_{dataset}.xlsx or VisIT's '<model> "
        "prediction' column)."
    ),
]
Strict = Annotated[
    bool,
    typer.Option(help="Predictions: a row that matches no item is an error (nothing stored)."),
]
JsonOutput = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
