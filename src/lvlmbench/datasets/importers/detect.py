"""Which format a file is in, from its columns (tables) or its first record (JSON lines).

Detection is a list of :class:`FormatRule` values tried in priority order (lowest first); the
first whose predicate accepts the file's :class:`FileSample` names the format. A format that
is a more specific layout of another one (a prediction file carries the dataset's columns plus
``prediction``; VisIT-Bench's human preferences carry ``image_url`` and ``instruction`` like the
dataset) registers with a lower priority than the dataset rules (:data:`DATASET_PRIORITY`), in
its own module::

    register_format(FormatRule("vlmeval-predictions", "TSV/XLSX: index + prediction",
                               lambda s: {"index", "prediction"} <= s.columns, priority=10))

An unrecognised file gets a :class:`DatasetError` listing every rule's name and what it needs.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    MAX_CELL_CHARS,
    DatasetError,
    check_header,
    check_header_line,
    shown_names,
)
from lvlmbench.datasets.importers._json_files import iter_json_array, json_error
from lvlmbench.datasets.importers._workbook import EXCEL_SUFFIXES, excel_header
from lvlmbench.datasets.importers.hf import HF_FORMAT, is_hf_dataset
from lvlmbench.datasets.importers.visit import image_columns
from lvlmbench.ids import JSONTooDeep, load_json

__all__ = [
    "DATASET_PRIORITY",
    "FileSample",
    "FormatRule",
    "detect_format",
    "format_rules",
    "read_sample",
    "register_format",
]

DATASET_PRIORITY = 100
"""Priority of the dataset rules; more specific layouts register below it."""
_GENERIC_PRIORITY = 200
_SNIFF_BYTES = 64 * 1024


@dataclass(frozen=True)
class FileSample:
    """What detection looks at: the layout ("csv", "tsv", "xlsx", "jsonl", "json", "parquet" or
    "hf-folder"), the column or field names (lower-cased; none for parquet and folders), and the
    first record of a JSON file (None for tables)."""

    path: Path
    layout: str
    columns: frozenset[str]
    record: dict[str, Any] | None = None

    @property
    def table(self) -> bool:
        """Whether the file is a CSV or TSV."""
        return self.layout in ("csv", "tsv")


@dataclass(frozen=True)
class FormatRule:
    """One detectable format: its name (as ``-f`` takes it), what it needs (shown when nothing
    matches) and the predicate."""

    name: str
    needs: str
    matches: Callable[[FileSample], bool] = field(compare=False)
    priority: int = DATASET_PRIORITY


_RULES: list[FormatRule] = []


def register_format(rule: FormatRule) -> None:
    """Add ``rule`` to detection (replacing a rule of the same name)."""
    _RULES[:] = [r for r in _RULES if r.name != rule.name]
    _RULES.append(rule)
    _RULES.sort(key=lambda r: r.priority)  # stable: equal priorities keep registration order


def format_rules() -> list[FormatRule]:
    """The detection rules in the order they are tried."""
    return list(_RULES)


def _first_line(path: Path) -> str:
    """The first non-blank line (within the first 64 KiB of blank ones), cut at
    :data:`MAX_CELL_CHARS`: a hostile one-line file is never read whole."""
    with path.open(encoding="utf-8-sig", errors="replace") as handle:
        skipped = 0
        while line := handle.readline(MAX_CELL_CHARS):
            if line.strip():
                return line.strip()
            skipped += len(line)
            if skipped > _SNIFF_BYTES:
                break
    return ""


def _json_sample(path: Path, first: str) -> FileSample:
    record: Any = None
    if first.startswith("["):  # a JSON array (on one line or many): its first element
        layout = "json"
        record = next((value for _, _, value in iter_json_array(path)), None)
    else:
        layout = "jsonl"
        try:
            record = load_json(first)
        except JSONTooDeep as exc:
            raise json_error(path, exc, row=1) from None
        except json.JSONDecodeError:
            record = None
    if not isinstance(record, dict):
        raise DatasetError(path, "expected JSON objects (one per line, or an array of them)")
    return FileSample(path, layout, frozenset(str(k).lower() for k in record), record)


def read_sample(path: Path) -> FileSample:
    """The :class:`FileSample` of ``path``: a JSON file by its first record, a table by its
    header (tab-separated when the suffix says so or the header has more tabs than commas), a
    parquet file or dataset folder by its layout alone ("parquet", "hf-folder")."""
    if is_hf_dataset(path):
        return FileSample(path, "hf-folder" if path.is_dir() else "parquet", frozenset())
    if path.is_dir():
        raise DatasetError(
            path,
            "is a directory with no dataset in it; expected a dataset file, or a folder of "
            "parquet files or a datasets save_to_disk folder (state.json)",
        )
    if not path.is_file():
        raise DatasetError(path, "no such file")
    if path.suffix.lower() in EXCEL_SUFFIXES:  # a zip: its header comes from the first sheet
        header = excel_header(path)
        return FileSample(path, "xlsx", frozenset(c.lower() for c in header if c))
    try:
        first = _first_line(path)
    except OSError as exc:
        raise DatasetError(path, f"cannot be read: {exc.strerror or exc}") from None
    if not first:
        raise DatasetError(path, "the file is empty")
    if first.startswith(("{", "[")) or path.suffix.lower() in (".jsonl", ".json"):
        return _json_sample(path, first)
    suffix = path.suffix.lower()
    tabbed = suffix == ".tsv" or (suffix != ".csv" and first.count("\t") > first.count(","))
    try:
        with path.open(newline="", encoding="utf-8-sig", errors="replace") as handle:
            check_header_line(path, handle)
            header = next(csv.reader(handle, delimiter="\t" if tabbed else ","), [])
    except csv.Error as exc:
        raise DatasetError(path, f"not a readable table: {exc}") from None
    check_header(path, [c.strip() for c in header])
    columns = frozenset(c.strip().lower() for c in header if c.strip())
    return FileSample(path, "tsv" if tabbed else "csv", columns)


def detect_format(path: str | Path) -> str:
    """The name of the first rule that accepts ``path``; DatasetError listing every format
    looked for (and what each needs) when none does."""
    sample = read_sample(Path(path))
    for rule in _RULES:
        if rule.matches(sample):
            return rule.name
    found = shown_names(sorted(sample.columns)) or "none"
    wanted = "; ".join(f"{r.name} ({r.needs})" for r in _RULES)
    what = "columns" if sample.table else "fields"
    raise DatasetError(
        sample.path,
        f"not a recognised format ({sample.layout} with {what}: {found}); looked for: {wanted}. "
        "Name the format with -f if the file is one of these",
    )


def _has_image_column(columns: frozenset[str]) -> bool:
    return bool(image_columns(sorted(columns)))


_DATASET_RULES = (
    FormatRule(
        HF_FORMAT,
        "Hugging Face datasets: .parquet file(s), a folder of them (`lvlmbench export`, the "
        "Hub's data/test-*.parquet) or a save_to_disk folder",
        lambda s: s.layout in ("parquet", "hf-folder"),
        priority=5,  # the layout alone decides; no other rule reads parquet or folders
    ),
    FormatRule(
        "votes",
        "CSV: instance, a_model, b_model + one column per annotator",
        lambda s: s.table and {"instance", "a_model", "b_model"} <= s.columns,
    ),
    FormatRule(
        "touchstone",
        "TSV: index, question, image + human_annotation or gpt4_ha_answer",
        lambda s: (
            s.layout == "tsv"
            and {"index", "question", "image"} <= s.columns
            and bool({"human_annotation", "gpt4_ha_answer"} & s.columns)
        ),
    ),
    FormatRule(
        "vlmeval",
        "TSV: index, question + image or image_path (MMBench, SEEDBench, MME, MMMU, ...)",
        lambda s: (
            s.layout == "tsv"
            and {"index", "question"} <= s.columns
            and bool({"image", "image_path"} & s.columns)
        ),
    ),
    FormatRule(
        "visit",
        "CSV: instruction + image, image_url, images or file_name (VisIT-Bench, HF metadata.csv)",
        lambda s: s.layout == "csv" and "instruction" in s.columns and _has_image_column(s.columns),
    ),
    FormatRule(
        "llava",
        "JSONL: question_id, image, text (LLaVA-Bench questions.jsonl)",
        lambda s: s.layout == "jsonl" and {"question_id", "image", "text"} <= s.columns,
    ),
    FormatRule(
        "jsonl",
        "JSONL: question or instruction (our JSONL and `lvlmbench export` output)",
        lambda s: s.layout == "jsonl" and bool({"question", "instruction"} & s.columns),
        priority=_GENERIC_PRIORITY,
    ),
)
for _rule in _DATASET_RULES:
    register_format(_rule)
