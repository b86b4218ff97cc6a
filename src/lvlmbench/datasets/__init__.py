"""Import and export of benchmarks and responses."""

from lvlmbench.datasets.export import export_jsonl, export_parquet
from lvlmbench.datasets.importers import (
    FORMATS,
    DatasetError,
    ImportSummary,
    import_dataset,
    parse_items,
)

__all__ = [
    "FORMATS",
    "DatasetError",
    "ImportSummary",
    "export_jsonl",
    "export_parquet",
    "import_dataset",
    "parse_items",
]
