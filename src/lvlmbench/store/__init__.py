"""The store: SQLAlchemy Core tables plus content-addressed image files."""

from lvlmbench.store._leases import DEFAULT_LEASE_S, Claim, Leases, new_owner
from lvlmbench.store._records import (
    get_artifact,
    get_benchmark,
    iter_artifacts,
    iter_benchmark_responses,
    iter_items,
    iter_judgments,
    iter_responses,
    judgment_id,
    list_benchmarks,
    put_artifact,
    put_benchmark,
    put_items,
    put_judgments,
    put_responses,
    response_id,
)
from lvlmbench.store._schema import SCHEMA_VERSION
from lvlmbench.store._store import DEFAULT_STORE_URL, MIGRATIONS, Store, StoreError, normalise_url

__all__ = [
    "DEFAULT_LEASE_S",
    "DEFAULT_STORE_URL",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Claim",
    "Leases",
    "Store",
    "StoreError",
    "get_artifact",
    "get_benchmark",
    "iter_artifacts",
    "iter_benchmark_responses",
    "iter_items",
    "iter_judgments",
    "iter_responses",
    "judgment_id",
    "list_benchmarks",
    "new_owner",
    "normalise_url",
    "put_artifact",
    "put_benchmark",
    "put_items",
    "put_judgments",
    "put_responses",
    "response_id",
]
