"""`lvlmbench export BENCH --out DIR`: hand a generated benchmark to other tools."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import BadInput, StoreOption, console, friendly_errors, open_store
from lvlmbench.datasets import export_jsonl, export_parquet
from lvlmbench.store import get_benchmark

__all__ = ["export"]


@friendly_errors
def export(
    benchmark: Annotated[str, typer.Argument(help="Benchmark name in the store.")],
    out: Annotated[Path, typer.Option(help="Output directory.")],
    parquet: Annotated[
        bool,
        typer.Option(help="Also write data.parquet for Hugging Face datasets (needs pyarrow)."),
    ] = True,
    store: StoreOption = None,
) -> None:
    """Write items.jsonl + images/ and (by default) data.parquet with embedded images, loadable
    with datasets.load_dataset("parquet", data_files=...)."""
    opened = open_store(store)
    if get_benchmark(opened, benchmark) is None:
        raise BadInput(f"no benchmark {benchmark!r} in {opened.url}")
    jsonl = export_jsonl(opened, benchmark, out)
    console.print(f"wrote {jsonl} and {out / 'images'}")
    if parquet:
        try:
            rows = export_parquet(opened, benchmark, out / "data.parquet")
        except ImportError as exc:
            raise BadInput(str(exc)) from None
        console.print(f"wrote {out / 'data.parquet'} ({rows} rows)")
