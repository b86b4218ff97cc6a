"""System prompts kept once under their digest, on SQLite and (integration) PostgreSQL: writing
one again (a resumed run, another worker) changes nothing, and one never written reads as None."""

from __future__ import annotations

import hashlib
from pathlib import Path

from lvlmbench.store import Store, put_system_prompt, system_prompt
from lvlmbench.store import _schema as tables


def test_a_prompt_is_kept_once_under_the_digest_identities_name_it_by(
    store_url: str, tmp_path: Path
) -> None:
    store = Store.open(store_url, images_dir=tmp_path / "images")
    prompt = "Answer with one letter.\n  Exactly as typed, spaces included. "
    digest = "sha256:" + hashlib.sha256(prompt.encode()).hexdigest()[:16]
    try:
        assert put_system_prompt(store, prompt) == digest
        assert put_system_prompt(store, prompt) == digest  # again: the same row
        put_system_prompt(store, "Another prompt.")
        assert store.count(tables.system_prompts) == 2
        assert system_prompt(store, digest) == prompt
        assert system_prompt(store, "sha256:0000000000000000") is None
    finally:
        store.close()
