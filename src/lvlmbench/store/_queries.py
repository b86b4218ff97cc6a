"""Named reads of the store's indexed columns, for the packages above it.

Each answers one question the runner, the judges, the importers or the web app ask, from the
columns the tables index (no record is parsed unless the answer is a record), so nothing
outside ``store/`` needs the tables or SQL. The same statements run on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any, NamedTuple

from pydantic import BaseModel
from sqlalchemy import JSON, ColumnElement, cast, select, type_coerce
from sqlalchemy.dialects import postgresql

from lvlmbench.store import _schema as s
from lvlmbench.store._store import Store
from lvlmbench.types import BenchmarkItem, Status

__all__ = [
    "AnswerFields",
    "StoredItemText",
    "benchmark_item_ids",
    "benchmark_models",
    "count_items",
    "final_judgment_ids",
    "final_response_ids",
    "find_item",
    "iter_answer_fields",
    "judged_item_ids",
    "judges_under",
    "judgment_ids",
    "judgment_protocols",
    "next_item_seq",
    "stored_item_texts",
    "update_items",
]

_ERROR = Status.ERROR.value


def next_item_seq(store: Store) -> int:
    """The place after the store's last item (what :func:`put_items` starts from). A scan of
    the items: an importer asks once and counts on from there, never once per batch."""
    return store.max_value(s.items, "seq") + 1


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


def stored_item_texts(
    store: Store, benchmark: str, ids: Collection[str] | None = None
) -> dict[str, StoredItemText]:
    """item id → (seq, JSON text) of ``benchmark``'s items (only those with these ``ids`` when
    given): what an importer compares a new file against without parsing every stored item,
    a batch of ids at a time so a big benchmark is never held whole."""
    columns = (s.items.c.id, s.items.c.benchmark, s.items.c.seq, s.items.c.data)
    if ids is None:
        query = select(*columns).where(s.items.c.benchmark == benchmark)
    elif not ids:
        return {}
    else:
        # By id alone: with the benchmark in the WHERE too, SQLite's planner walks the
        # benchmark's index through every item it holds, once per batch (quadratic).
        query = select(*columns).where(s.items.c.id.in_(list(ids)))
    with store.engine.connect() as conn:
        return {
            str(row.id): StoredItemText(int(row.seq), str(row.data))
            for row in conn.execution_options(stream_results=True).execute(query)
            if row.benchmark == benchmark
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


class AnswerFields(NamedTuple):
    """What scoring reads of a response: its keys, status and the record fields that decide
    right or wrong (a full :class:`~lvlmbench.types.Response` is not built)."""

    item_id: str
    model: str
    variant: str
    status: str
    extracted: str | None
    extracted_by: str | None
    truncated: bool | None
    """None for a record written before the field existed (read as False)."""
    epoch: int | None


class _ScoredPart(BaseModel):
    """The scored fields of a response record (other fields are ignored while parsing)."""

    extracted: str | None = None
    extracted_by: str | None = None
    truncated: bool = False
    epoch: int = 0


_FIELDS = ("extracted", "extracted_by", "truncated", "epoch")


def _scored_fields(dialect: str) -> list[ColumnElement[Any]]:
    """The record fields of :class:`AnswerFields`, read by the database's JSON functions."""
    data = s.responses.c.data
    # PostgreSQL stores the record as text: cast it to JSON. SQLite must not cast (its CAST AS
    # JSON is a numeric conversion); its JSON functions read the text as it is.
    record = cast(data, postgresql.JSON) if dialect == "postgresql" else type_coerce(data, JSON)
    return [
        record["extracted"].as_string(),
        record["extracted_by"].as_string(),
        record["truncated"].as_boolean(),
        record["epoch"].as_integer(),
    ]


def iter_answer_fields(store: Store, benchmark: str, variant: str | None) -> Iterator[AnswerFields]:
    """The scored fields of every response to ``benchmark``'s items (under ``variant``, any
    when None), streamed. SQLite and PostgreSQL read the record fields with their JSON
    functions, several times faster than parsing each record here (a leaderboard reads every
    response of its benchmark); other databases parse the record."""
    r = s.responses.c
    dialect = store.engine.dialect.name
    in_sql = dialect in ("sqlite", "postgresql")
    query = (
        select(
            r.item_id,
            r.model,
            r.variant,
            r.status,
            *(_scored_fields(dialect) if in_sql else [r.data]),
        )
        .join(s.items, s.items.c.id == r.item_id)
        .where(s.items.c.benchmark == benchmark)
    )
    if variant is not None:
        query = query.where(r.variant == variant)
    # Streamed from a server (psycopg would hold every row otherwise); SQLite reads rows as
    # they are iterated anyway, and its buffered streaming costs a fifth of the pass.
    streamed = {"stream_results": dialect != "sqlite"}
    with store.engine.connect() as conn:
        for row in conn.execution_options(**streamed).execute(query):
            if in_sql:
                yield AnswerFields(*row)
            else:
                part = _ScoredPart.model_validate_json(row[4])
                item_id, model, variant_, status = row[:4]
                yield AnswerFields(
                    item_id, model, variant_, status, *(getattr(part, k) for k in _FIELDS)
                )
