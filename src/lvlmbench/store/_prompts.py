"""System prompts, each stored once under the digest a model identity names it by.

A model run with ``--system-prompt`` is stored as ``…?system=sha256:<16 hex>``: the identity
stays short and never spells the prompt out, and this table keeps the text, so a transcript can
show what was sent. Writes are idempotent inserts keyed by the digest (resumed runs and
concurrent workers write the same row again, harmlessly).
"""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.exc import DatabaseError

from lvlmbench.ids import text_digest
from lvlmbench.store import _schema as s
from lvlmbench.store._store import Store

__all__ = ["put_system_prompt", "system_prompt"]


def put_system_prompt(store: Store, text: str) -> str:
    """Keep ``text`` under its digest (once; a digest already stored keeps its row) and return
    the digest."""
    digest = text_digest(text)
    store.put_rows(s.system_prompts, [{"digest": digest, "text": text, "created_at": time.time()}])
    return digest


def system_prompt(store: Store, digest: str) -> str | None:
    """The system prompt stored under ``digest``; None when it is not (a run from before the
    prompts were kept, or an older store opened read-only, which has no such table)."""
    query = select(s.system_prompts.c.text).where(s.system_prompts.c.digest == digest)
    try:
        with store.engine.connect() as conn:
            found = conn.execute(query).scalar()
    except DatabaseError:  # no table in an older store opened read-only
        return None
    return None if found is None else str(found)
