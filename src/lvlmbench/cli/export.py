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

from lvlmbench.cli._common import BadInput, StoreOption, console, friendly_errors, open_store
from lvlmbench.datasets import export_hub, export_jsonl
from lvlmbench.datasets.vlmeval_export import export_vlmeval
from lvlmbench.store import Store, require_benchmark

__all__ = ["ExportFormat", "export"]


class ExportFormat(StrEnum):
    """What `lvlmbench export` writes."""

    LVLMBENCH = "lvlmbench"
    VLMEVAL = "vlmeval"


def _export_predictions(opened: Store, benchmark: str, model: str | None, out: Path) -> None:
    if model is None:
        raise BadInput("--format vlmeval: --model names the model whose answers to write")
    try:
        written = export_vlmeval(opened, benchmark, model, out)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    console.print(f"wrote {written.path} ({written.rows} rows)", highlight=False)
    if written.without_prediction:
        console.print(
            f"[yellow]{written.without_prediction} item(s) have no answer from {model}[/]: "
            "their prediction cells are empty",
            highlight=False,
        )


@friendly_errors
def export(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    out: Annotated[
        Path, typer.Option(help="Output directory (--format vlmeval: the .xlsx/.tsv file).")
    ],
    parquet: Annotated[
        bool,
        typer.Option(
            help="Write the Hub layout: data/test-00000-of-00001.parquet (images embedded) and "
            "the README.md dataset card (needs pyarrow). --no-parquet: items.jsonl + images/ only."
        ),
    ] = True,
    license: Annotated[
        str | None,
        typer.Option(
            "--license",
            help="Licence id for the dataset card (default: cc-by-4.0 for generated benchmarks, "
            "'as the source dataset' for imported ones).",
        ),
    ] = None,
    format: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            "-f",
            help="lvlmbench: a Hub dataset folder (parquet + card) + items.jsonl + images/; "
            "vlmeval: --model's answers as "
            "a VLMEvalKit prediction file (dataset columns minus image, plus prediction).",
        ),
    ] = ExportFormat.LVLMBENCH,
    model: Annotated[
        str | None, typer.Option(help="--format vlmeval: whose answers to write.")
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write the benchmark as a Hugging Face dataset folder: data/test-00000-of-00001.parquet
    (Image feature, option/answer and metadata columns), a README.md dataset card (features, how
    it was generated, settings and seeds, licence) and items.jsonl + images/. `lvlmbench import
    DIR` reads it back; datasets.load_dataset("DIR", split="test") loads it. With --format
    vlmeval, a model's answers in the file VLMEvalKit (and its TEST servers) read."""
    opened = open_store(store)
    require_benchmark(opened, benchmark)
    if format is ExportFormat.VLMEVAL:
        _export_predictions(opened, benchmark, model, out)
        return
    if not parquet:
        jsonl = export_jsonl(opened, benchmark, out)
        console.print(f"wrote {jsonl} and {out / 'images'}", highlight=False)
        return
    try:
        written = export_hub(opened, benchmark, out, license=license)
    except (ImportError, ValueError) as exc:
        raise BadInput(str(exc)) from None
    console.print(
        f"wrote {written.parquet} ({written.rows} rows), {written.card} (licence "
        f"{written.license}), {written.jsonl} and {out / 'images'}",
        highlight=False,
    )
    console.print(f"read it back: lvlmbench import {out}", highlight=False, markup=False)
