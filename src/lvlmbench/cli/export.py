"""`lvlmbench export BENCH --out DIR`: hand a benchmark to other tools in the Hugging Face Hub's
layout (data/test-00000-of-00001.parquet + a README.md dataset card) plus items.jsonl + images/;
with
`--format vlmeval --model NAME --out FILE.xlsx|.tsv`, a model's answers as VLMEvalKit's
prediction file."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import StoreOption, console, friendly_errors, open_store
from lvlmbench.workflows import ExportOptions, ExportResult, check_export_options, export_benchmark

__all__ = ["ExportFormat", "export"]


class ExportFormat(StrEnum):
    """What `lvlmbench export` writes."""

    LVLMBENCH = "lvlmbench"
    VLMEVAL = "vlmeval"


Out = Annotated[
    Path, typer.Option(help="Output directory (--format vlmeval: the .xlsx/.tsv file).")
]
Parquet = Annotated[
    bool,
    typer.Option(
        help="Write the Hub layout: data/test-00000-of-00001.parquet (images embedded) and "
        "the README.md dataset card (needs pyarrow). --no-parquet: items.jsonl + images/ only."
    ),
]
License = Annotated[
    str | None,
    typer.Option(
        "--license",
        help="Licence id for the dataset card (default: cc-by-4.0 for generated benchmarks, "
        "'as the source dataset' for imported ones).",
    ),
]
Format = Annotated[
    ExportFormat,
    typer.Option(
        "--format",
        "-f",
        help="lvlmbench: a Hub dataset folder (parquet + card) + items.jsonl + images/; "
        "vlmeval: --model's answers as "
        "a VLMEvalKit prediction file (dataset columns minus image, plus prediction).",
    ),
]
Model = Annotated[str | None, typer.Option(help="--format vlmeval: whose answers to write.")]


@friendly_errors
def export(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    out: Out,
    parquet: Parquet = True,
    license: License = None,
    format: Format = ExportFormat.LVLMBENCH,
    model: Model = None,
    store: StoreOption = None,
) -> None:
    """Write the benchmark as a Hugging Face dataset folder: data/test-00000-of-00001.parquet
    (Image feature, option/answer and metadata columns), a README.md dataset card (features, how
    it was generated, settings and seeds, licence) and items.jsonl + images/. `lvlmbench import
    DIR` reads it back; datasets.load_dataset("DIR", split="test") loads it. With --format
    vlmeval, a model's answers in the file VLMEvalKit (and its TEST servers) read."""
    options = ExportOptions(
        out=out, parquet=parquet, license=license, format=format.value, model=model
    )
    check_export_options(options)  # before the store is opened
    _print_written(export_benchmark(open_store(store), benchmark, options), out, model)


def _print_written(result: ExportResult, out: Path, model: str | None) -> None:
    if result.predictions is not None:
        written = result.predictions
        console.print(f"wrote {written.path} ({written.rows} rows)", highlight=False)
        if written.without_prediction:
            console.print(
                f"[yellow]{written.without_prediction} item(s) have no answer from {model}[/]: "
                "their prediction cells are empty",
                highlight=False,
            )
        return
    if result.jsonl is not None:
        console.print(f"wrote {result.jsonl} and {out / 'images'}", highlight=False)
        return
    hub = result.hub
    assert hub is not None
    console.print(
        f"wrote {hub.parquet} ({hub.rows} rows), {hub.card} (licence "
        f"{hub.license}), {hub.jsonl} and {out / 'images'}",
        highlight=False,
    )
    console.print(f"read it back: lvlmbench import {out}", highlight=False, markup=False)
