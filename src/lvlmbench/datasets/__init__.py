"""Import and export of benchmarks and responses."""

from lvlmbench.datasets.export import export_jsonl, export_parquet

__all__ = ["export_jsonl", "export_parquet"]
