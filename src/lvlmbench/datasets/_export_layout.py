"""The shape of a benchmark's export: its columns and the counts its dataset card shows. Both
``export`` (which fills it) and ``card`` (which reads it) import it from here, below both."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lvlmbench.datasets.importers.hf import META_COLUMN
from lvlmbench.store import BenchmarkData

__all__ = ["COLUMNS_AFTER_OPTIONS", "TEXT_COLUMNS", "ExportLayout"]

TEXT_COLUMNS = ("question", "kind")
COLUMNS_AFTER_OPTIONS = ("answer", "reference", "caption", "category")


@dataclass
class ExportLayout:
    """The columns a benchmark's export needs, and the counts its dataset card shows."""

    benchmark: str
    kind: str
    data: BenchmarkData
    """The benchmark's stored definition (settings, seeds, provenance)."""
    rows: int = 0
    letters: list[str] = field(default_factory=list)
    image_columns: list[str] = field(default_factory=list)
    meta_columns: dict[str, str] = field(default_factory=dict)
    """Meta entries stored as columns of their own, with their dtype."""
    kinds: Counter[str] = field(default_factory=Counter)
    capabilities: Counter[str] = field(default_factory=Counter)
    difficulties: Counter[str] = field(default_factory=Counter)
    images: int = 0
    """Distinct pictures."""
    num_bytes: int = 0
    """The split's size as Arrow tables in memory (what ``datasets`` calls a split's
    ``num_bytes``), known once the parquet is written."""
    download_size: int = 0
    """The parquet file's size on disk, known once it is written."""

    def features(self) -> list[tuple[str, str]]:
        """(column, dtype) in column order; dtype "image" or a ``Value`` dtype."""
        strings = [
            *[(c, "string") for c in ("id", *TEXT_COLUMNS)],
            *[(letter, "string") for letter in self.letters],
            *[(c, "string") for c in COLUMNS_AFTER_OPTIONS],
        ]
        images = [(c, "image") for c in self.image_columns]
        return [
            *strings[:1],
            *images,
            *strings[1:],
            *self.meta_columns.items(),
            (META_COLUMN, "string"),
        ]
