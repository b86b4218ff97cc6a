"""Standard benchmarks by name: ``lvlmbench import MMBench_DEV_EN`` finds where the authors
publish the benchmark (a VLMEvalKit TSV with its published MD5, or a Hugging Face dataset file
at a pinned commit), reads a verified copy on this machine or downloads one into the cache,
and names the import format to read it with. The entries are data: ``benchmarks.toml``."""

from lvlmbench.datasets.catalog._download import ByteProgress
from lvlmbench.datasets.catalog._entries import (
    CATALOG_ENV,
    CatalogError,
    Checksum,
    HubFile,
    StandardBenchmark,
    close_names,
    find_benchmark,
    standard_benchmarks,
)
from lvlmbench.datasets.catalog._locate import (
    Located,
    cache_root,
    cached_file,
    hub_cache_root,
    is_offline,
    lmudata_root,
    locate,
)

__all__ = [
    "CATALOG_ENV",
    "ByteProgress",
    "CatalogError",
    "Checksum",
    "HubFile",
    "Located",
    "StandardBenchmark",
    "cache_root",
    "cached_file",
    "close_names",
    "find_benchmark",
    "hub_cache_root",
    "is_offline",
    "lmudata_root",
    "locate",
    "standard_benchmarks",
]
