"""Import and export of benchmarks and responses."""

from lvlmbench.datasets.export import export_jsonl, export_parquet
from lvlmbench.datasets.importers import (
    FORMATS,
    VOTE_FORMATS,
    DatasetError,
    ImportSummary,
    detect_format,
    detect_vote_format,
    import_dataset,
    parse_items,
)
from lvlmbench.datasets.lookup import ItemLookup, image_name, item_lookup, normalise_instruction

__all__ = [
    "FORMATS",
    "VOTE_FORMATS",
    "DatasetError",
    "ImportSummary",
    "ItemLookup",
    "detect_format",
    "detect_vote_format",
    "export_jsonl",
    "export_parquet",
    "image_name",
    "import_dataset",
    "item_lookup",
    "normalise_instruction",
    "parse_items",
]
