"""Import and export of benchmarks and responses."""

from lvlmbench.datasets.export import export_jsonl, export_parquet
from lvlmbench.datasets.importers import (
    FORMATS,
    VOTE_FORMATS,
    DatasetError,
    ImportSummary,
    detect_vote_format,
    import_dataset,
    parse_items,
)

__all__ = [
    "FORMATS",
    "VOTE_FORMATS",
    "DatasetError",
    "ImportSummary",
    "detect_vote_format",
    "export_jsonl",
    "export_parquet",
    "import_dataset",
    "parse_items",
]
