"""A model's answers on a benchmark imported from VLMEvalKit, written as VLMEvalKit's own
prediction file (``vlmeval/inference.py``): the dataset's columns minus ``image``, plus
``prediction`` holding the raw answer text (VLMEvalKit extracts the choice itself), one row per
item in the dataset's order. TEST splits (no ``answer``) are written without that column, ready
for the benchmark's evaluation server.

The dataset's columns are rebuilt from the items: ``index``, ``question`` (without the
"Hint: ..." line the importer put in front), ``hint``, the option letters, ``answer`` (the
letter, MME's original Yes/No, or an open item's reference), ``category``, then every other
column the importer kept in meta (``l2_category`` back as ``l2-category``).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lvlmbench.store import Store, get_benchmark, iter_benchmark_responses, iter_items
from lvlmbench.types import BenchmarkItem

__all__ = ["VlmevalExport", "export_vlmeval"]

_INTERNAL = {
    "row",
    "index",
    "hint",
    "answer_raw",
    "image_from_index",
    "source_key",
    "image_group",
    "image_sources",
    "image_urls",
    "original_images",
    "original_image_names",
}
"""Meta keys the importers add that were no column of the dataset."""
_RENAMED = {"l2_category": "l2-category"}
_TF = {"true": "Yes", "false": "No"}


@dataclass(frozen=True)
class VlmevalExport:
    """What :func:`export_vlmeval` wrote."""

    path: Path
    rows: int
    without_prediction: int
    """Items the model has no answer for (an empty ``prediction`` cell)."""


def _question(item: BenchmarkItem) -> str:
    hint = item.meta.get("hint")
    prefix = f"Hint: {hint}\n" if hint else ""
    return item.question.removeprefix(prefix) if prefix else item.question


def _answer(item: BenchmarkItem) -> str | None:
    if item.kind == "tf":
        raw = item.meta.get("answer_raw")
        return str(raw) if raw else _TF.get(str(item.answer), item.answer)
    if item.kind == "open":
        return item.reference
    return item.answer


def _columns(items: list[BenchmarkItem]) -> list[str]:
    letters = sorted({letter for item in items for letter in item.options})
    columns = ["index", "question"]
    columns += ["hint"] if any(item.meta.get("hint") for item in items) else []
    columns += letters
    columns += ["answer"] if any(_answer(item) is not None for item in items) else []
    columns += ["category"] if any(item.category for item in items) else []
    extra: dict[str, None] = {}
    for item in items:
        extra.update((_RENAMED.get(k, k), None) for k in item.meta if k not in _INTERNAL)
    return [*columns, *(c for c in extra if c not in columns), "prediction"]


def _row(item: BenchmarkItem, columns: list[str], prediction: str) -> list[Any]:
    values: dict[str, Any] = {
        "index": item.meta.get("index", item.meta.get("source_key")),
        "question": _question(item),
        "hint": item.meta.get("hint"),
        "answer": _answer(item),
        "category": item.category,
        "prediction": prediction,
        **item.options,
    }
    meta = {_RENAMED.get(k, k): v for k, v in item.meta.items() if k not in _INTERNAL}
    return [values[c] if c in values else meta.get(c) for c in columns]


def _write_tsv(path: Path, columns: list[str], rows: list[list[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(columns)
        writer.writerows(["" if v is None else v for v in row] for row in rows)


def _excel_value(column: str, value: Any) -> Any:
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    if not isinstance(value, str):
        return value
    if column == "index" and value.lstrip("-").isdigit() and len(value) < 16:
        return int(value)  # VLMEvalKit's index column is integers (its circular rule needs it)
    return ILLEGAL_CHARACTERS_RE.sub("", value)


def _write_xlsx(path: Path, columns: list[str], rows: list[list[Any]]) -> None:
    import openpyxl

    # Not write_only: that mode leaves out the sheet's <dimension>, and readers in read-only
    # mode (openpyxl, so our own import) then scan the whole sheet once just to size it.
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(columns)
    for row in rows:
        sheet.append([_excel_value(c, v) for c, v in zip(columns, row, strict=True)])
    workbook.save(path)


def export_vlmeval(
    store: Store, benchmark: str, model: str, path: Path, variant: str = "default"
) -> VlmevalExport:
    """Write ``model``'s answers (under ``variant``) on ``benchmark`` to ``path`` (``.xlsx`` or
    ``.tsv``).
    ValueError when the benchmark was not imported from VLMEvalKit or the model has no
    answers on it."""
    stored = get_benchmark(store, benchmark)
    if stored is None or stored.kind != "vlmeval":
        kind = "missing" if stored is None else f"of kind {stored.kind!r}"
        raise ValueError(
            f"benchmark {benchmark!r} is {kind}; a VLMEvalKit prediction file needs a benchmark "
            "imported from a VLMEvalKit TSV (-f vlmeval)"
        )
    suffix = path.suffix.lower()
    if suffix not in (".xlsx", ".tsv"):
        raise ValueError(f"{path}: expected a .xlsx or .tsv file name (VLMEvalKit reads both)")
    answers = {
        r.item_id: r.text
        for r in iter_benchmark_responses(store, benchmark, model=model, variant=variant)
    }
    if not answers:
        raise ValueError(f"model {model!r} has no answers on {benchmark!r}")
    items = list(iter_items(store, benchmark))
    columns = _columns(items)
    rows = [_row(item, columns, answers.get(item.id, "")) for item in items]
    path.parent.mkdir(parents=True, exist_ok=True)
    (_write_xlsx if suffix == ".xlsx" else _write_tsv)(path, columns, rows)
    missing = sum(1 for item in items if not answers.get(item.id))
    return VlmevalExport(path=path, rows=len(rows), without_prediction=missing)
