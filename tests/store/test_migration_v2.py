"""Schema 1 -> 2 (models stored under their identity): a store written by schema 1 opens with
every row kept, and its plain-name rows keep matching the plain spec."""

from __future__ import annotations

import json
import time
from pathlib import Path

from sqlalchemy import column, create_engine, func, insert, select, table
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import (
    SCHEMA_VERSION,
    Store,
    iter_judgments,
    iter_responses,
    judgment_id,
    normalise_url,
    response_id,
)
from lvlmbench.store import _schema as tables
from lvlmbench.store._migrations import LEGACY_IDENTITIES_KEY
from lvlmbench.types import BenchmarkItem, Judgment, Response

# The tables as schema 1 created them (SQLite DDL as SQLAlchemy emitted it, indexes included).
V1_DDL = """
CREATE TABLE meta (key VARCHAR(64) NOT NULL, value TEXT NOT NULL, PRIMARY KEY (key));
CREATE TABLE cache (key VARCHAR(64) NOT NULL, kind VARCHAR(16) NOT NULL, spec VARCHAR(512) NOT NULL,
  output TEXT NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  created_at FLOAT NOT NULL, PRIMARY KEY (key));
CREATE TABLE images (sha256 VARCHAR(64) NOT NULL, media_type VARCHAR(32) NOT NULL, width INTEGER,
  height INTEGER, bytes INTEGER NOT NULL, created_at FLOAT NOT NULL, PRIMARY KEY (sha256));
CREATE TABLE benchmarks (name VARCHAR(256) NOT NULL, kind VARCHAR(32) NOT NULL, data TEXT NOT NULL,
  created_at FLOAT NOT NULL, PRIMARY KEY (name));
CREATE TABLE items (id VARCHAR(64) NOT NULL, benchmark VARCHAR(256) NOT NULL, seq INTEGER NOT NULL,
  data TEXT NOT NULL, PRIMARY KEY (id));
CREATE INDEX ix_items_benchmark ON items (benchmark, seq);
CREATE TABLE responses (id VARCHAR(64) NOT NULL, item_id VARCHAR(64) NOT NULL,
  model VARCHAR(512) NOT NULL, variant VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL,
  data TEXT NOT NULL, PRIMARY KEY (id));
CREATE INDEX ix_responses_model ON responses (model, variant);
CREATE INDEX ix_responses_item ON responses (item_id);
CREATE TABLE judgments (id VARCHAR(64) NOT NULL, item_id VARCHAR(64) NOT NULL,
  judge VARCHAR(512) NOT NULL, protocol VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL,
  data TEXT NOT NULL, PRIMARY KEY (id));
CREATE INDEX ix_judgments_judge ON judgments (judge, protocol);
CREATE TABLE artifacts (id VARCHAR(64) NOT NULL, run VARCHAR(256) NOT NULL,
  stage VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL, data TEXT NOT NULL,
  created_at FLOAT NOT NULL, PRIMARY KEY (id));
CREATE INDEX ix_artifacts_run_stage ON artifacts (run, stage);
INSERT INTO meta VALUES ('schema', '1');
"""
# Schema 4 added judgments.epoch: schema 1's judgments table has only these columns.
V1_JUDGMENTS = table(
    "judgments", *(column(c) for c in ("id", "item_id", "judge", "protocol", "status", "data"))
)
BENCH = "legacy"
EXAMINEES = ["baseline/prior", "openai/gpt-4o-mini", "baseline/random?seed=3"]
N_ITEMS = 3


def _v1_store(path: Path | str) -> None:
    """A schema-1 store: a benchmark, its items, responses of three models (one of them, in
    schema 1's way, an OpenAI model from whatever endpoint it was asked on), a judge's rows
    and a cache row."""
    items = [
        BenchmarkItem(
            id=f"l{i}",
            benchmark=BENCH,
            question=f"Is the sky blue? ({i})",
            kind="tf",
            answer="true",
            meta={"difficulty": "easy"},
        )
        for i in range(N_ITEMS)
    ]
    responses = [
        Response(item_id=item.id, model=model, text="true", extracted="true")
        for item in items
        for model in EXAMINEES
    ]
    judgments = [
        Judgment(
            item_id=item.id,
            judge="openai/judge",
            protocol="pairwise",
            model_a=EXAMINEES[0],
            model_b=EXAMINEES[1],
            order="ab",
            verdict="a",
        )
        for item in items
    ]
    now = time.time()
    engine = create_engine(normalise_url(str(path)))
    # Through SQLAlchemy Core on the schema-1 tables (their columns are today's), so the same
    # rows land on SQLite and on PostgreSQL.
    with engine.begin() as conn:
        for statement in V1_DDL.split(";"):
            if statement.strip():
                conn.exec_driver_sql(statement)
        conn.execute(
            insert(tables.benchmarks),
            [{"name": BENCH, "kind": "imported", "data": "{}", "created_at": now}],
        )
        conn.execute(
            insert(tables.items),
            [
                {"id": it.id, "benchmark": BENCH, "seq": n, "data": it.model_dump_json()}
                for n, it in enumerate(items)
            ],
        )
        conn.execute(
            insert(tables.responses),
            [
                {
                    "id": response_id(r.item_id, r.model, r.variant),
                    "item_id": r.item_id,
                    "model": r.model,
                    "variant": r.variant,
                    "status": r.status.value,
                    "data": r.model_dump_json(),
                }
                for r in responses
            ],
        )
        conn.execute(
            insert(V1_JUDGMENTS),
            [
                {
                    "id": judgment_id(j),
                    "item_id": j.item_id,
                    "judge": j.judge,
                    "protocol": j.protocol,
                    "status": j.status.value,
                    "data": j.model_dump_json(),
                }
                for j in judgments
            ],
        )
        row = {"key": "k", "kind": "chat", "spec": "openai/gpt-4o-mini", "output": "{}"}
        conn.execute(
            insert(tables.cache),
            [{**row, "input_tokens": 1, "output_tokens": 1, "created_at": now}],
        )
    engine.dispose()


def _counts(path: Path | str) -> dict[str, int]:
    engine = create_engine(normalise_url(str(path)))
    try:
        with engine.connect() as conn:
            return {
                t: conn.execute(
                    select(func.count()).select_from(tables.metadata.tables[t])
                ).scalar_one()
                for t in ("benchmarks", "items", "responses", "judgments", "cache")
            }
    finally:
        engine.dispose()


def test_a_schema_1_store_migrates_without_losing_rows(store_url: str) -> None:
    path = store_url
    _v1_store(path)
    before = _counts(path)
    store = Store.open(str(path))
    try:
        assert store.schema_version() == SCHEMA_VERSION >= 2  # and on to the current one
        assert _counts(path) == before
        for model in EXAMINEES:
            assert len(list(iter_responses(store, model=model))) == N_ITEMS
        assert len(list(iter_judgments(store, judge="openai/judge"))) == N_ITEMS
        with store.engine.connect() as conn:
            legacy = conn.execute(
                select(tables.meta.c.value).where(tables.meta.c.key == LEGACY_IDENTITIES_KEY)
            ).scalar_one()
        assert json.loads(legacy) == sorted([*EXAMINEES, "openai/judge"])
    finally:
        store.close()
    # Opening again runs no migration twice (the meta row would collide).
    Store.open(str(path)).close()
    assert _counts(path) == before


def test_plain_specs_keep_matching_their_schema_1_rows(store_url: str) -> None:
    path = store_url
    _v1_store(path)
    runner = CliRunner()
    args = ["evaluate", BENCH, "-m", EXAMINEES[0], "-m", EXAMINEES[2], "--json"]
    result = runner.invoke(app, [*args, "--store", str(path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["skipped"] for r in data["runs"]] == [N_ITEMS, N_ITEMS]  # nothing asked again
    assert {r["model"]: r["correct"] for r in data["accuracy"]} == {
        EXAMINEES[0]: N_ITEMS,
        EXAMINEES[2]: N_ITEMS,
    }
    assert _counts(path)["responses"] == N_ITEMS * len(EXAMINEES)


def test_store_info_names_the_legacy_identities(tmp_path: Path) -> None:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    _v1_store(old)
    runner = CliRunner()
    shown = runner.invoke(app, ["store", "info", "--store", str(old)])
    assert shown.exit_code == 0, shown.output
    assert "endpoint not recorded: baseline/prior, baseline/random?seed=3" in shown.output
    fresh = runner.invoke(app, ["store", "info", "--store", str(new), "--json"])
    assert json.loads(fresh.stdout)["legacy_identities"] == []
