"""The export use case: a benchmark handed to other tools, as a Hugging Face dataset folder
(parquet + dataset card + items.jsonl + images/), as items.jsonl + images/ alone, or as one
model's answers in VLMEvalKit's prediction file. ``lvlmbench export`` and ``api.export`` both
call :func:`export_benchmark`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lvlmbench.datasets import HubExport, export_hub, export_jsonl
from lvlmbench.datasets.vlmeval_export import VlmevalExport, export_vlmeval
from lvlmbench.store import Store, require_benchmark
from lvlmbench.workflows._errors import InvalidOptions

__all__ = [
    "EXPORT_FORMATS",
    "ExportOptions",
    "ExportResult",
    "check_export_options",
    "export_benchmark",
]

EXPORT_FORMATS = ("lvlmbench", "vlmeval")
"""lvlmbench: a Hub dataset folder; vlmeval: a model's answers as a VLMEvalKit prediction file."""


@dataclass(frozen=True)
class ExportOptions:
    """Every option of ``lvlmbench export``, with the command's defaults."""

    out: Path
    """The output folder (``vlmeval``: the .xlsx/.tsv file)."""
    parquet: bool = True
    """The Hub layout (parquet with embedded images and a dataset card); False: items.jsonl
    and images/ only."""
    license: str | None = None
    """Licence id for the dataset card (default: cc-by-4.0 for generated benchmarks, 'as the
    source dataset' for imported ones)."""
    format: str = "lvlmbench"
    model: str | None = None
    """``vlmeval``: whose answers to write."""


@dataclass(frozen=True)
class ExportResult:
    """What :func:`export_benchmark` wrote: one of ``hub``, ``jsonl`` or ``predictions``."""

    benchmark: str
    format: str
    hub: HubExport | None = None
    jsonl: Path | None = None
    predictions: VlmevalExport | None = None


def check_export_options(options: ExportOptions) -> None:
    """InvalidOptions for options no export can use, before the store is opened."""
    if options.format not in EXPORT_FORMATS:
        raise InvalidOptions(
            f"--format {options.format!r}: choose one of {', '.join(EXPORT_FORMATS)}"
        )
    if options.format == "vlmeval" and options.model is None:
        raise InvalidOptions("--format vlmeval: --model names the model whose answers to write")


def export_benchmark(store: Store, benchmark: str, options: ExportOptions) -> ExportResult:
    """Write ``benchmark`` as ``options`` say; InvalidOptions for refused options, an unknown
    model or a missing extra (pyarrow), before anything is written."""
    check_export_options(options)
    require_benchmark(store, benchmark)
    try:
        if options.format == "vlmeval":
            assert options.model is not None  # checked above
            written = export_vlmeval(store, benchmark, options.model, options.out)
            return ExportResult(benchmark, options.format, predictions=written)
        if not options.parquet:
            jsonl = export_jsonl(store, benchmark, options.out)
            return ExportResult(benchmark, options.format, jsonl=jsonl)
        hub = export_hub(store, benchmark, options.out, license=options.license)
    except (ImportError, ValueError) as exc:
        raise InvalidOptions(str(exc)) from None
    return ExportResult(benchmark, options.format, hub=hub)
