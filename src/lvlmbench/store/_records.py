"""Typed reads and writes of lvlmbench's records on top of :class:`Store`'s generic rows."""

from __future__ import annotations

import difflib
import functools
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select

from lvlmbench.ids import canonical_json, content_id
from lvlmbench.store import _schema as s
from lvlmbench.store._benchmarks import BenchmarkData, StoredBenchmark
from lvlmbench.store._item_memo import parse_item
from lvlmbench.store._store import Store, StoreError
from lvlmbench.types import BenchmarkItem, Judgment, Response, Status

__all__ = [
    "ListedBenchmark",
    "NotInStore",
    "artifact_id",
    "artifact_ids",
    "did_you_mean",
    "get_artifact",
    "get_benchmark",
    "iter_artifacts",
    "iter_benchmark_responses",
    "iter_items",
    "iter_judgments",
    "iter_responses",
    "judgment_id",
    "list_benchmarks",
    "list_stored",
    "put_artifact",
    "put_benchmark",
    "put_items",
    "put_judgments",
    "put_responses",
    "require_benchmark",
    "response_id",
]


def put_benchmark(store: Store, name: str, kind: str, data: BenchmarkData) -> None:
    """Record a benchmark's definition (config, provenance); replaces an older definition.

    ``data`` must be the kind's model (see :class:`StoredBenchmark`); its JSON is validated
    into it, so a JSON object of the right shape is accepted too."""
    record = StoredBenchmark(name=name, kind=kind, data=data, created_at=time.time())
    store.put_rows(
        s.benchmarks,
        [
            {
                "name": record.name,
                "kind": record.kind,
                "data": canonical_json(record.data.as_json()),
                "created_at": record.created_at,
            }
        ],
        replace=True,
    )


def _record(store: Store, row: dict[str, Any]) -> StoredBenchmark:
    try:
        return StoredBenchmark.model_validate({**row, "data": json.loads(row["data"])})
    except ValidationError as exc:
        # One line naming the row and the field, not pydantic's page: every figure reads it.
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise StoreError(
            f"benchmark {row['name']!r} in {store.url}: its stored definition (kind "
            f"{row['kind']!r}) does not read: {field}: {first['msg']}"
        ) from None


def get_benchmark(store: Store, name: str) -> StoredBenchmark | None:
    """A benchmark's record, its ``data`` typed by its kind, or None."""
    row = store.get_row(s.benchmarks, name)
    return None if row is None else _record(store, row)


def list_benchmarks(store: Store) -> list[StoredBenchmark]:
    """Every benchmark's record, by name."""
    return [_record(store, row) for row in store.iter_rows(s.benchmarks, order_by="name")]


def put_items(store: Store, items: Iterable[BenchmarkItem], start_seq: int | None = None) -> None:
    """Add items after the benchmark's last one; an item already stored keeps its place."""
    if start_seq is None:
        start_seq = store.max_value(s.items, "seq") + 1
    store.put_rows(
        s.items,
        (
            {
                "id": item.id,
                "benchmark": item.benchmark,
                "seq": start_seq + i,
                "data": item.model_dump_json(),
            }
            for i, item in enumerate(items)
        ),
    )


def iter_items(store: Store, benchmark: str) -> Iterator[BenchmarkItem]:
    """Items of a benchmark in insertion order, streamed."""
    # The record column alone: building a mapping per row cost a third of reading the items.
    query = select(s.items.c.data).where(s.items.c.benchmark == benchmark).order_by(s.items.c.seq)
    with store.engine.connect() as conn:
        for data in conn.execution_options(stream_results=True).execute(query).scalars():
            yield parse_item(data)


# Memoised: a run asks for each response's id three times (its lease, the row, the release),
# and the canonical JSON behind it was ~4 % of the client's CPU a request.
@functools.lru_cache(maxsize=1 << 14)
def response_id(item_id: str, model: str, variant: str = "default", epoch: int = 0) -> str:
    """The id of a model's response to an item under an evaluation variant; sample ``epoch``
    of ``evaluate --epochs`` (epoch 0 keeps the id it always had)."""
    if epoch:
        return content_id("response", item_id, model, variant, str(epoch))
    return content_id("response", item_id, model, variant)


def put_responses(store: Store, responses: Iterable[Response], replace: bool = True) -> None:
    """Store responses; by default a newer response to the same (item, model, variant) wins."""
    store.put_rows(
        s.responses,
        (
            {
                "id": response_id(r.item_id, r.model, r.variant, r.epoch),
                "item_id": r.item_id,
                "model": r.model,
                "variant": r.variant,
                "status": r.status.value,
                "data": r.model_dump_json(),
            }
            for r in responses
        ),
        replace=replace,
    )


def iter_responses(store: Store, **where: Any) -> Iterator[Response]:
    """Responses filtered by model, variant, item_id or status."""
    for row in store.iter_rows(s.responses, **where):
        yield Response.model_validate_json(row["data"])


def iter_benchmark_responses(store: Store, benchmark: str, **where: Any) -> Iterator[Response]:
    """Responses to ``benchmark``'s items (filtered by model, variant or status), selected in
    SQL: reports and pages ask per benchmark, and parsing every response of a store holding
    many benchmarks was most of their time."""
    query = (
        select(s.responses.c.data)
        .join(s.items, s.items.c.id == s.responses.c.item_id)
        .where(s.items.c.benchmark == benchmark, *[s.responses.c[k] == v for k, v in where.items()])
    )
    with store.engine.connect() as conn:
        for (data,) in conn.execution_options(stream_results=True).execute(query):
            yield Response.model_validate_json(data)


def judgment_id(j: Judgment) -> str:
    """The id of a judgment: item, judge, protocol, players, presentation order and, for a
    person's repeat vote on the same pair, its number, and for a judgment of a later epoch's
    answers (``judge --epochs K``), that epoch (ids of first votes and of epoch 0 are
    unchanged)."""
    key = (j.item_id, j.judge, j.protocol, j.model_a, j.model_b, j.order)
    repeat = (j.repeat,) if j.repeat else ()
    epoch = ("epoch", j.epoch) if j.epoch else ()
    return content_id("judgment", *key, *repeat, *epoch)


def _judgment_json(j: Judgment) -> str:
    """A judgment's stored record; epoch 0 is left out, so a single run stores the very
    bytes it stored before judgments had epochs (it reads back as 0)."""
    return j.model_dump_json(exclude=None if j.epoch else {"epoch"})


def put_judgments(store: Store, judgments: Iterable[Judgment], replace: bool = True) -> None:
    """Store judgments keyed by :func:`judgment_id`."""
    store.put_rows(
        s.judgments,
        (
            {
                "id": judgment_id(j),
                "item_id": j.item_id,
                "judge": j.judge,
                "protocol": j.protocol,
                "status": j.status.value,
                "data": _judgment_json(j),
                "epoch": j.epoch,
            }
            for j in judgments
        ),
        replace=replace,
    )


def iter_judgments(store: Store, **where: Any) -> Iterator[Judgment]:
    """Judgments filtered by judge, protocol, item_id or status."""
    # The record column alone: a read-only store of schema 3 has no epoch column to select.
    table = s.judgments
    query = select(table.c.data).where(*[table.c[k] == v for k, v in where.items()])
    with store.engine.connect() as conn:
        for data in conn.execution_options(stream_results=True).execute(query).scalars():
            yield Judgment.model_validate_json(data)


def put_artifact(
    store: Store, run: str, stage: str, key: str, data: dict[str, Any], status: Status = Status.OK
) -> str:
    """Record one finished unit of a pipeline stage; returns its id."""
    stored_id = artifact_id(run, stage, key)
    store.put_rows(
        s.artifacts,
        [
            {
                "id": stored_id,
                "run": run,
                "stage": stage,
                "status": status.value,
                "data": canonical_json(data),
                "created_at": time.time(),
            }
        ],
        replace=True,
    )
    return stored_id


def artifact_id(run: str, stage: str, key: str) -> str:
    """The id a stage unit is stored under."""
    return content_id("artifact", run, stage, key)


def get_artifact(store: Store, run: str, stage: str, key: str) -> dict[str, Any] | None:
    """A stage unit's data, or None when that unit has not finished."""
    row = store.get_row(s.artifacts, artifact_id(run, stage, key))
    return json.loads(row["data"]) if row is not None else None


def artifact_ids(store: Store, run: str, stage: str) -> set[str]:
    """The ids (:func:`artifact_id`) of a stage's finished units, in one query."""
    return store.existing_keys(s.artifacts, run=run, stage=stage)


def iter_artifacts(store: Store, run: str, stage: str) -> Iterator[dict[str, Any]]:
    """All finished units of a stage, oldest first."""
    for row in store.iter_rows(s.artifacts, order_by="created_at", run=run, stage=stage):
        yield json.loads(row["data"])


class NotInStore(StoreError):
    """A benchmark (or other named thing) the store does not have; the message names the
    closest stored names, so a typo reads as one."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the stored names closest to a misspelt ``name``, or ""."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    if not close:
        # A case or prefix slip ("Spatial", "spatial") that difflib's ratio rejects.
        lowered = name.lower()
        close = [k for k in known if lowered in k.lower() or k.lower() in lowered][:3]
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def require_benchmark(store: Store, name: str) -> StoredBenchmark:
    """The benchmark's row like :func:`get_benchmark`; NotInStore with the close names and
    how to list them when the store has no benchmark of that name."""
    found = get_benchmark(store, name)
    if found is not None:
        return found
    if store.count(s.items, benchmark=name):
        # Items put without a definition row (by hand, or a test's fixture) still make one.
        return StoredBenchmark(name=name, kind="")
    stored = store.existing_keys(s.benchmarks, "name")
    hint = did_you_mean(name, sorted(stored))
    listing = "`lvlmbench ls` lists them" if stored else "it has no benchmarks yet"
    raise NotInStore(f"no benchmark {name!r} in {store.url}{hint}; {listing}")


@dataclass(frozen=True)
class ListedBenchmark:
    """One benchmark as ``lvlmbench ls`` lists it."""

    name: str
    kind: str
    items: int
    models: list[str] = field(default_factory=list)
    """Identities with responses on its items."""
    judges: list[str] = field(default_factory=list)
    """Judges (models, metrics, human annotators) with judgments on its items."""


def list_stored(store: Store) -> list[ListedBenchmark]:
    """Every benchmark with its kind, item count, models and judges, by name; the players are
    read from indexed columns in SQL (no response or judgment is parsed)."""
    queries = {
        "models": select(s.items.c.benchmark, s.responses.c.model)
        .join(s.items, s.items.c.id == s.responses.c.item_id)
        .distinct(),
        "judges": select(s.items.c.benchmark, s.judgments.c.judge)
        .join(s.items, s.items.c.id == s.judgments.c.item_id)
        .distinct(),
    }
    players: dict[tuple[str, str], list[str]] = {}
    with store.engine.connect() as conn:
        for key, query in queries.items():
            for bench, who in conn.execute(query):
                players.setdefault((bench, key), []).append(str(who))
    return [
        ListedBenchmark(
            name=bench.name,
            kind=bench.kind,
            items=store.count(s.items, benchmark=bench.name),
            models=sorted(players.get((bench.name, "models"), [])),
            judges=sorted(players.get((bench.name, "judges"), [])),
        )
        for bench in list_benchmarks(store)
    ]
