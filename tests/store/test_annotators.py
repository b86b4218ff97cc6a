"""Invites, exclusions, web-vote records and the web secret, on SQLite and PostgreSQL: tokens
are never stored, a re-invite replaces the token, revoking ends it, exclusions move the
revision, and two stores opened on one database agree on one secret."""

from __future__ import annotations

import pytest

from lvlmbench.store import (
    Store,
    WebVote,
    excluded_annotators,
    get_annotator,
    invite_annotator,
    invited_annotator,
    iter_web_votes,
    list_annotators,
    list_exclusions,
    put_web_vote,
    revoke_annotator,
    set_excluded,
    token_digest,
    web_secret,
)
from lvlmbench.store import _schema as tables


def test_invites_keep_only_hashes_and_end_when_replaced_or_revoked(store_url: str) -> None:
    store = Store.open(store_url)
    first = invite_annotator(store, "alice")
    found = invited_annotator(store, first)
    assert found is not None and found.name == "alice" and found.active
    assert found.token_hash == token_digest(first)
    rows = list(store.iter_rows(tables.annotators))
    assert first not in repr(rows)
    second = invite_annotator(store, "alice")
    assert invited_annotator(store, first) is None
    assert invited_annotator(store, second) is not None
    assert revoke_annotator(store, "alice") and invited_annotator(store, second) is None
    revoked = get_annotator(store, "alice")
    assert revoked is not None and not revoked.active
    assert not revoke_annotator(store, "nobody")
    assert [a.name for a in list_annotators(store)] == ["alice"]
    with pytest.raises(ValueError, match="annotator name"):
        invite_annotator(store, "a b")
    store.close()


def test_exclusions_move_the_revision_and_can_be_undone(store_url: str) -> None:
    store = Store.open(store_url)
    before = store.revision()
    set_excluded(store, "human-ish name", True, "why")
    assert excluded_annotators(store) == {"human-ish name"}
    moved = store.revision()
    assert before is not None and moved is not None and moved > before
    set_excluded(store, "human-ish name", False)
    assert excluded_annotators(store) == frozenset()
    (decision,) = list_exclusions(store)
    assert not decision.excluded and decision.reason == ""
    undone = store.revision()
    assert undone is not None and undone > moved
    store.close()


def test_web_votes_and_one_secret_per_store(store_url: str) -> None:
    one, two = Store.open(store_url), Store.open(store_url)
    assert web_secret(one) == web_secret(two) and len(web_secret(one)) == 32
    vote = WebVote("j" * 64, "alice", "ba", "right", 10.0, 14.5, "c" * 16)
    put_web_vote(one, vote)
    put_web_vote(one, vote)  # a vote on the same pair again replaces the record
    assert list(iter_web_votes(two)) == [vote]
    one.close()
    two.close()
