"""Tables of the store, and the schema version they describe.

Portable SQLAlchemy Core only: the same definitions create the schema on SQLite and PostgreSQL.
Rows keep their full record as JSON text beside the few columns that are filtered or joined on,
so adding a field to a record never needs a migration.
"""

from __future__ import annotations

from sqlalchemy import Column, Float, Index, Integer, MetaData, String, Table, Text

from lvlmbench.store._process import HOST_MAX, STARTED_MAX

__all__ = ["SCHEMA_VERSION", "metadata"]

SCHEMA_VERSION = 4
"""2: models are stored under their identity (endpoint and output-changing options).
3: each lease records its owner's host, pid and process start (dead owners are taken over).
4: each judgment records the epoch it judges (``judge --epochs K``; 0 for every older row)."""

metadata = MetaData()

meta = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

cache = Table(
    "cache",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),  # chat | image
    Column("spec", String(512), nullable=False),
    Column("output", Text, nullable=False),
    Column("input_tokens", Integer, nullable=False, default=0),
    Column("output_tokens", Integer, nullable=False, default=0),
    Column("created_at", Float, nullable=False),
)

images = Table(
    "images",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("media_type", String(32), nullable=False),
    Column("width", Integer),
    Column("height", Integer),
    Column("bytes", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
)

benchmarks = Table(
    "benchmarks",
    metadata,
    Column("name", String(256), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("data", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)

items = Table(
    "items",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("benchmark", String(256), nullable=False),
    Column("seq", Integer, nullable=False, default=0),
    Column("data", Text, nullable=False),
    Index("ix_items_benchmark", "benchmark", "seq"),
)

responses = Table(
    "responses",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("item_id", String(64), nullable=False),
    Column("model", String(512), nullable=False),
    Column("variant", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("data", Text, nullable=False),
    Index("ix_responses_model", "model", "variant"),
    Index("ix_responses_item", "item_id"),
)

judgments = Table(
    "judgments",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("item_id", String(64), nullable=False),
    Column("judge", String(512), nullable=False),
    Column("protocol", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("data", Text, nullable=False),
    # Which examinee sample the row judges (``judge --epochs K``), so how many epochs a judge
    # ran is one SQL query; 0 for a single run and for every row written before schema 4.
    Column("epoch", Integer, nullable=False, default=0, server_default="0"),
    Index("ix_judgments_judge", "judge", "protocol"),
)

# Outputs of pipeline stages (aspects, guidelines, descriptions, validations...) keyed by a
# content id, so each stage can tell what is already done after a restart.
artifacts = Table(
    "artifacts",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("run", String(256), nullable=False),
    Column("stage", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("data", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Index("ix_artifacts_run_stage", "run", "stage"),
)

# One row counting the writes to the records every figure is computed from (benchmarks, items,
# responses, judgments, artifacts), bumped in the same transaction as each write: a reader that
# sees value r sees every such write counted up to r, so a summary computed after reading r may
# be reused for as long as the value stays r, by any process (see Store.revision).
revision = Table(
    "revision",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("value", Integer, nullable=False),
)

# Who is working on which unit (a response or judgment id), until when: concurrent runs on one
# store claim units here so no unit is paid for twice, and a dead run's claims expire. The owner's
# host, pid and process start (null in leases taken before schema 3) let a run on the same host
# see that the owner is gone and take its units over at once (see store/_process.py).
leases = Table(
    "leases",
    metadata,
    Column("unit", String(64), primary_key=True),
    Column("owner", String(128), nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("host", String(HOST_MAX)),
    Column("pid", Integer),
    Column("started", String(STARTED_MAX)),
    Index("ix_leases_owner", "owner"),
)

# People invited to vote on a shared web server (`lvlmbench annotators invite NAME`): one invite
# token each, of which only its sha256 is kept. Inviting again replaces the token; revoking
# ends it, and with it every sign-in cookie issued for it.
annotators = Table(
    "annotators",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("token_hash", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("revoked_at", Float),
    Index("ix_annotators_token", "token_hash", unique=True),
)

# Annotators whose votes the owner left out of every human figure; their votes stay stored and
# count again once the row says ``excluded`` 0. Writes bump the revision (figures change).
exclusions = Table(
    "exclusions",
    metadata,
    Column("annotator", String(512), primary_key=True),
    Column("excluded", Integer, nullable=False),
    Column("reason", Text, nullable=False),
    Column("changed_at", Float, nullable=False),
)

# How each vote cast in the web app was cast, keyed by its judgment's id: which answer was shown
# first (the judgment stores the players sorted), the choice as clicked, when the ballot was
# issued and the vote cast, and a keyed tag of the client's address (never the address).
web_votes = Table(
    "web_votes",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("annotator", String(512), nullable=False),
    Column("shown", String(2), nullable=False),
    Column("choice", String(8), nullable=False),
    Column("issued_at", Float, nullable=False),
    Column("cast_at", Float, nullable=False),
    Column("client", String(32), nullable=False),
    Index("ix_web_votes_annotator", "annotator"),
)

# Each distinct system prompt a model was run with (``--system-prompt``), once, under the digest
# its model identity carries (``system=sha256:…``), so a transcript can show what was sent.
# Added after schema 2 without a version bump: create_all adds it to an older store when opened
# to write, and readers of a store without it find no prompt rather than fail.
system_prompts = Table(
    "system_prompts",
    metadata,
    Column("digest", String(32), primary_key=True),
    Column("text", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)
