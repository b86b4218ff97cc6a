"""`lvlmbench export BENCH --out DIR`: hand a generated benchmark to other tools; with
`--format vlmeval --model NAME --out FILE.xlsx|.tsv`, a model's answers as VLMEvalKit's
prediction file."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import BadInput, StoreOption, console, friendly_errors, open_store
from lvlmbench.datasets import export_jsonl, export_parquet
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
        typer.Option(help="Also write data.parquet for Hugging Face datasets (needs pyarrow)."),
    ] = True,
    format: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            "-f",
            help="lvlmbench: items.jsonl + images (+ parquet); vlmeval: --model's answers as "
            "a VLMEvalKit prediction file (dataset columns minus image, plus prediction).",
        ),
    ] = ExportFormat.LVLMBENCH,
    model: Annotated[
        str | None, typer.Option(help="--format vlmeval: whose answers to write.")
    ] = None,
    store: StoreOption = None,
) -> None:
    """Write items.jsonl + images/ and (by default) data.parquet with embedded images, loadable
    with datasets.load_dataset("parquet", data_files=...); or, with --format vlmeval, a model's
    answers in the file VLMEvalKit (and its TEST servers) read."""
    opened = open_store(store)
    require_benchmark(opened, benchmark)
    if format is ExportFormat.VLMEVAL:
        _export_predictions(opened, benchmark, model, out)
        return
    jsonl = export_jsonl(opened, benchmark, out)
    console.print(f"wrote {jsonl} and {out / 'images'}")
    if parquet:
        try:
            rows = export_parquet(opened, benchmark, out / "data.parquet")
        except ImportError as exc:
            raise BadInput(str(exc)) from None
        console.print(f"wrote {out / 'data.parquet'} ({rows} rows)")
