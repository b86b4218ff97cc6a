"""Schema 3 -> 4 (judgments record their epoch, for ``judge --epochs K``): a store whose
judgments table has no epoch column opens with it added, 0 on every row, and every row's id
and record as they were; a single run's judgments keep the ids and bytes they always had."""

from __future__ import annotations

from sqlalchemy import inspect, select

from lvlmbench.ids import content_id
from lvlmbench.store import (
    SCHEMA_VERSION,
    Store,
    iter_judgments,
    judgment_id,
    put_judgments,
)
from lvlmbench.store import _schema as tables
from lvlmbench.types import Judgment

# The judgments table as schema 3 created it.
V3_JUDGMENTS = [
    "DROP TABLE judgments",
    "CREATE TABLE judgments (id VARCHAR(64) NOT NULL, item_id VARCHAR(64) NOT NULL, "
    "judge VARCHAR(512) NOT NULL, protocol VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL, "
    "data TEXT NOT NULL, PRIMARY KEY (id))",
    "CREATE INDEX ix_judgments_judge ON judgments (judge, protocol)",
    "UPDATE meta SET value = '3' WHERE key = 'schema'",
]
# A row as schema 3 wrote it: its record has no epoch, its id no epoch either.
OLD_DATA = (
    '{"item_id":"i1","judge":"openai/judge","protocol":"pairwise","model_a":"m/a",'
    '"model_b":"m/b","verdict":"a","score_a":null,"score_b":null,"order":"ab","status":"ok",'
    '"reason":null,"rationale":null,"sequence":null,"repeat":0}'
)
OLD_ID = content_id("judgment", "i1", "openai/judge", "pairwise", "m/a", "m/b", "ab")


def _v3_store(url: str) -> None:
    store = Store.open(url)
    with store.engine.begin() as conn:
        for statement in V3_JUDGMENTS:
            conn.exec_driver_sql(statement)
        conn.exec_driver_sql(
            "INSERT INTO judgments (id, item_id, judge, protocol, status, data) VALUES "
            f"('{OLD_ID}', 'i1', 'openai/judge', 'pairwise', 'ok', '{OLD_DATA}')"
        )
    store.close()


def _rows(store: Store) -> dict[str, tuple[str, int]]:
    query = select(tables.judgments.c.id, tables.judgments.c.data, tables.judgments.c.epoch)
    with store.engine.connect() as conn:
        return {row.id: (row.data, row.epoch) for row in conn.execute(query)}


def test_a_schema_3_store_gains_the_epoch_column_with_every_row_as_it_was(store_url: str) -> None:
    _v3_store(store_url)
    store = Store.open(store_url)
    try:
        assert store.schema_version() == SCHEMA_VERSION >= 4
        with store.engine.connect() as conn:
            columns = {c["name"] for c in inspect(conn).get_columns("judgments")}
        assert "epoch" in columns
        assert _rows(store) == {OLD_ID: (OLD_DATA, 0)}  # id, bytes kept; epoch 0
        [old] = iter_judgments(store)
        assert (old.epoch, old.verdict, judgment_id(old)) == (0, "a", OLD_ID)
        # The same judgment written again today: the same id and the same bytes.
        put_judgments(store, [old])
        assert _rows(store) == {OLD_ID: (OLD_DATA, 0)}
        # Epoch 1's judgment of the same pair is a row of its own, its epoch in its record.
        later = old.model_copy(update={"epoch": 1, "verdict": "b"})
        put_judgments(store, [later])
        rows = _rows(store)
        assert len(rows) == 2 and rows[OLD_ID] == (OLD_DATA, 0)
        data, epoch = rows[judgment_id(later)]
        assert epoch == 1 and '"epoch":1' in data
        verdicts = sorted((j.epoch, j.verdict) for j in iter_judgments(store))
        assert verdicts == [(0, "a"), (1, "b")]
    finally:
        store.close()
    Store.open(store_url).close()  # opened again: nothing to migrate, nothing added twice


def test_epoch_0_keeps_every_judgment_id_and_later_epochs_get_their_own() -> None:
    base = Judgment(item_id="i1", judge="j", protocol="score", model_a="m", model_b="reference")
    assert judgment_id(base) == content_id("judgment", "i1", "j", "score", "m", "reference", "ab")
    ids = {judgment_id(base.model_copy(update={"epoch": k})) for k in range(3)}
    assert len(ids) == 3
    # A person's repeat vote and a later epoch never share an id.
    assert judgment_id(base.model_copy(update={"repeat": 1})) != judgment_id(
        base.model_copy(update={"epoch": 1})
    )
