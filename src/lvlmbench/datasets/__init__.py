"""Import and export of benchmarks and responses."""

from lvlmbench.datasets.export import HubExport, export_hub, export_jsonl, export_parquet
from lvlmbench.datasets.importers import (
    FORMATS,
    IMPORT_FORMATS,
    VOTE_FORMATS,
    DatasetError,
    ImportFormat,
    ImportSummary,
    detect_format,
    detect_vote_format,
    import_dataset,
    parse_items,
    register_format,
    register_parser,
)
from lvlmbench.datasets.importers.lookup import (
    ItemLookup,
    image_name,
    item_lookup,
    normalise_instruction,
)

# Imported here so that its detection rule is registered wherever detect_format is used.
from lvlmbench.datasets.predictions import PredictionSummary, import_predictions

__all__ = [
    "FORMATS",
    "IMPORT_FORMATS",
    "VOTE_FORMATS",
    "DatasetError",
    "HubExport",
    "ImportFormat",
    "ImportSummary",
    "ItemLookup",
    "PredictionSummary",
    "detect_format",
    "detect_vote_format",
    "export_hub",
    "export_jsonl",
    "export_parquet",
    "image_name",
    "import_dataset",
    "import_predictions",
    "item_lookup",
    "normalise_instruction",
    "parse_items",
    "register_format",
    "register_parser",
]
