"""People who vote in the web app: invited annotators (token hashes only), the owner's
exclusions, how each web vote was cast, and the secret the web app signs its cookies with."""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import Table, inspect, select

from lvlmbench.store import _schema as s
from lvlmbench.store._store import Store

__all__ = [
    "ANNOTATOR_PATTERN",
    "Exclusion",
    "InvitedAnnotator",
    "WebVote",
    "excluded_annotators",
    "get_annotator",
    "invite_annotator",
    "invited_annotator",
    "iter_web_votes",
    "list_annotators",
    "list_exclusions",
    "put_web_vote",
    "revoke_annotator",
    "set_excluded",
    "token_digest",
    "valid_annotator",
    "web_secret",
]

ANNOTATOR_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
WEB_SECRET_KEY = "web_secret"
"""meta key of the web app's cookie-signing secret (made on first use, never printed)."""


def _present(store: Store, table: Table) -> bool:
    """Whether the store has ``table``: a read-only store made before it existed cannot gain
    it, and reads as if it were empty (no invites, no exclusions, no web votes)."""
    if not store.read_only:
        return True
    with store.engine.connect() as conn:
        return inspect(conn).has_table(table.name)


def valid_annotator(name: str) -> str:
    """The annotator name, or ValueError saying what a name may contain."""
    if not ANNOTATOR_PATTERN.match(name):
        raise ValueError(f"annotator name {name[:60]!r}: 1-40 letters, digits, '.', '_' or '-'")
    return name


def token_digest(token: str) -> str:
    """sha256 of a token, hex. A plain hash is enough: invite tokens are 256 random bits, so
    there is no small space of guesses a slow hash would protect."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class InvitedAnnotator:
    """One invited annotator as stored (the token itself is never stored)."""

    name: str
    token_hash: str
    created_at: float
    revoked_at: float | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _annotator(row: dict[str, object]) -> InvitedAnnotator:
    revoked = row["revoked_at"]
    return InvitedAnnotator(
        name=str(row["name"]),
        token_hash=str(row["token_hash"]),
        created_at=float(str(row["created_at"])),
        revoked_at=None if revoked is None else float(str(revoked)),
    )


def invite_annotator(store: Store, name: str) -> str:
    """A new invite token for ``name`` (returned once, stored only as its hash); an earlier
    token of the same name stops working, as do the cookies it signed in."""
    valid_annotator(name)
    token = secrets.token_urlsafe(32)
    row = {"name": name, "token_hash": token_digest(token), "created_at": time.time()}
    store.put_rows(s.annotators, [row | {"revoked_at": None}], replace=True)
    return token


def get_annotator(store: Store, name: str) -> InvitedAnnotator | None:
    """The invited annotator called ``name`` (revoked or not), or None."""
    if not _present(store, s.annotators):
        return None
    row = store.get_row(s.annotators, name)
    return None if row is None else _annotator(row)


def invited_annotator(store: Store, token: str) -> InvitedAnnotator | None:
    """The active annotator whose invite token is ``token``, or None."""
    if not _present(store, s.annotators):
        return None
    query = select(s.annotators).where(
        s.annotators.c.token_hash == token_digest(token), s.annotators.c.revoked_at.is_(None)
    )
    with store.engine.connect() as conn:
        row = conn.execute(query).mappings().first()
    return None if row is None else _annotator(dict(row))


def revoke_annotator(store: Store, name: str) -> bool:
    """End ``name``'s invite (and sign-ins); False when no such annotator was invited."""
    found = get_annotator(store, name)
    if found is None:
        return False
    if found.active:
        row = {"name": name, "token_hash": found.token_hash, "created_at": found.created_at}
        store.put_rows(s.annotators, [row | {"revoked_at": time.time()}], replace=True)
    return True


def list_annotators(store: Store) -> list[InvitedAnnotator]:
    """Every invited annotator, by name."""
    if not _present(store, s.annotators):
        return []
    return [_annotator(row) for row in store.iter_rows(s.annotators, order_by="name")]


@dataclass(frozen=True)
class Exclusion:
    """The owner's decision on one annotator's votes (``annotator`` without ``human:``)."""

    annotator: str
    excluded: bool
    reason: str
    changed_at: float


def set_excluded(store: Store, annotator: str, excluded: bool, reason: str = "") -> None:
    """Leave ``annotator``'s votes out of the human figures (or count them again). Their votes
    are not touched; the store's revision moves, so cached figures are recomputed."""
    row = {"annotator": annotator, "excluded": int(excluded), "reason": reason}
    store.put_rows(s.exclusions, [row | {"changed_at": time.time()}], replace=True)


def list_exclusions(store: Store) -> list[Exclusion]:
    """Every decision recorded, excluded or included again, by annotator."""
    if not _present(store, s.exclusions):
        return []
    return [
        Exclusion(str(r["annotator"]), bool(r["excluded"]), str(r["reason"]), r["changed_at"])
        for r in store.iter_rows(s.exclusions, order_by="annotator")
    ]


def excluded_annotators(store: Store) -> frozenset[str]:
    """Names (without ``human:``) of the annotators whose votes are excluded now."""
    if not _present(store, s.exclusions):
        return frozenset()
    return frozenset(store.existing_keys(s.exclusions, "annotator", excluded=1))


@dataclass(frozen=True)
class WebVote:
    """How one vote was cast in the web app; ``id`` is its judgment's id."""

    id: str
    annotator: str
    shown: str
    """``ab`` when the judgment's ``model_a`` was shown as Answer 1, ``ba`` otherwise."""
    choice: str
    """left (Answer 1), right (Answer 2) or tie, as clicked."""
    issued_at: float
    cast_at: float
    client: str
    """A keyed hash of the client's address (its /64 for IPv6): equal tags, same client."""


def put_web_vote(store: Store, vote: WebVote) -> None:
    """Record how a vote was cast (a later vote on the same pair replaces it, as its judgment
    replaces the earlier judgment)."""
    store.put_rows(s.web_votes, [vote.__dict__], replace=True)


def iter_web_votes(store: Store) -> Iterator[WebVote]:
    """Every web vote's record (of any benchmark), streamed."""
    if not _present(store, s.web_votes):
        return
    for row in store.iter_rows(s.web_votes):
        yield WebVote(**row)


def web_secret(store: Store) -> bytes:
    """The web app's cookie-signing secret, made on first use and shared by every server on
    this store (so a cookie stays valid across restarts and replicas). StoreError on a
    read-only store that has none."""
    found = store.get_row(s.meta, WEB_SECRET_KEY)
    if found is None:
        # Insert-or-keep, then read: two servers starting together agree on one secret.
        store.put_rows(s.meta, [{"key": WEB_SECRET_KEY, "value": secrets.token_hex(32)}])
        found = store.get_row(s.meta, WEB_SECRET_KEY)
    assert found is not None
    return bytes.fromhex(str(found["value"]))
