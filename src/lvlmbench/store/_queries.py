"""Named reads of the store's indexed columns, for the packages above it.

Each answers one question the runner, the judges, the importers or the web app ask, from the
columns the tables index (no record is parsed unless the answer is a record), so nothing
outside ``store/`` needs the tables or SQL. The same statements run on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from sqlalchemy import select

from lvlmbench.store import _schema as s
from lvlmbench.store._store import Store
from lvlmbench.types import BenchmarkItem, Status

__all__ = [
    "StoredItemText",
    "benchmark_item_ids",
    "benchmark_models",
    "count_items",
    "final_judgment_ids",
    "final_response_ids",
    "find_item",
    "judged_item_ids",
    "judges_under",
    "judgment_ids",
    "judgment_protocols",
    "stored_item_texts",
    "update_items",
]

_ERROR = Status.ERROR.value


def count_items(store: Store, benchmark: str) -> int:
    """How many items ``benchmark`` holds."""
    return store.count(s.items, benchmark=benchmark)


def benchmark_item_ids(store: Store, benchmark: str) -> list[str]:
    """The ids of ``benchmark``'s items in benchmark order (no item parsed)."""
    query = select(s.items.c.id).where(s.items.c.benchmark == benchmark).order_by(s.items.c.seq)
    with store.engine.connect() as conn:
        return [str(v) for v in conn.execute(query).scalars()]


def find_item(store: Store, benchmark: str, item_id: str) -> BenchmarkItem | None:
    """The item with this id if it belongs to ``benchmark``, else None."""
    query = select(s.items.c.data).where(s.items.c.id == item_id, s.items.c.benchmark == benchmark)
    with store.engine.connect() as conn:
        data = conn.execute(query).scalar()
    return None if data is None else BenchmarkItem.model_validate_json(data)


class StoredItemText(NamedTuple):
    """An item as stored: its place in the benchmark and its JSON record."""

    seq: int
    data: str


def stored_item_texts(store: Store, benchmark: str) -> dict[str, StoredItemText]:
    """item id → (seq, JSON text) of ``benchmark``'s items: what an importer compares a new
    file against without parsing every stored item."""
    return {
        str(row["id"]): StoredItemText(int(row["seq"]), str(row["data"]))
        for row in store.iter_rows(s.items, benchmark=benchmark)
    }


def update_items(store: Store, items: Iterable[tuple[int, BenchmarkItem]]) -> None:
    """Rewrite stored items whose content changed, each keeping its place ``seq``."""
    store.put_rows(
        s.items,
        (
            {"id": item.id, "benchmark": item.benchmark, "seq": seq, "data": item.model_dump_json()}
            for seq, item in items
        ),
        replace=True,
    )


def final_response_ids(store: Store, model: str, variant: str) -> set[str]:
    """Ids of ``model``'s responses under ``variant`` that are final (an error is re-asked)."""
    query = select(s.responses.c.id).where(
        s.responses.c.model == model,
        s.responses.c.variant == variant,
        s.responses.c.status != _ERROR,
    )
    with store.engine.connect() as conn:
        return {str(v) for v in conn.execute(query).scalars()}


def judgment_ids(store: Store, judge: str, protocol: str) -> set[str]:
    """Ids of every judgment ``judge`` stored under ``protocol``, errors included."""
    return store.existing_keys(s.judgments, "id", judge=judge, protocol=protocol)


def final_judgment_ids(store: Store, judge: str, protocol: str) -> set[str]:
    """Ids of ``judge``'s final judgments under ``protocol`` (errors are not final)."""
    query = select(s.judgments.c.id).where(
        s.judgments.c.judge == judge,
        s.judgments.c.protocol == protocol,
        s.judgments.c.status != _ERROR,
    )
    with store.engine.connect() as conn:
        return {str(v) for v in conn.execute(query).scalars()}


def judges_under(store: Store, protocol: str) -> list[str]:
    """Judges with rows under ``protocol``, sorted (read from the column, no row parsed)."""
    return sorted(store.existing_keys(s.judgments, "judge", protocol=protocol))


def judgment_protocols(store: Store) -> set[str]:
    """Every protocol the store has judgments under."""
    return store.existing_keys(s.judgments, "protocol")


def judged_item_ids(store: Store, protocol: str, status: Status = Status.OK) -> set[str]:
    """Ids of items with a judgment of ``status`` under ``protocol``."""
    return store.existing_keys(s.judgments, "item_id", protocol=protocol, status=status.value)


def benchmark_models(store: Store, benchmark: str, variant: str = "default") -> list[str]:
    """Models with responses under ``variant`` on ``benchmark``'s items, sorted (one query:
    the front page lists every benchmark, and parsing every response for it took seconds)."""
    query = (
        select(s.responses.c.model)
        .join(s.items, s.items.c.id == s.responses.c.item_id)
        .where(s.items.c.benchmark == benchmark, s.responses.c.variant == variant)
        .distinct()
    )
    with store.engine.connect() as conn:
        return sorted(str(v) for v in conn.execute(query).scalars())
