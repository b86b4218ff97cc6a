"""No new untyped dict at a package boundary: a public signature that another package uses
takes and returns typed records (pydantic for what is stored or sent, frozen dataclasses
inside), not ``dict[str, Any]`` or a bare ``dict``. The entry points and the use-case layer
(cli/, api.py, workflows/) are counted by their own items of issue 26."""

from __future__ import annotations

from untyped_seams import crossing, untyped_signatures

JSON_EDGE = {
    "lvlmbench.store._store:Store.get_row": "a table's row as SQLAlchemy gives it, store-internal",
    "lvlmbench.store._store:Store.iter_rows": "the same rows, streamed",
    "lvlmbench.store._store:Store.info": "`store info --json`: counts per table, any table",
    "lvlmbench.store._records:put_artifact": "a stage's artifact: whatever JSON that stage keeps",
    "lvlmbench.store._records:get_artifact": "the same artifact read back",
    "lvlmbench.store._records:iter_artifacts": "the same artifacts, streamed",
    "lvlmbench.models._http:post_json": "an HTTP request's JSON body, as the server takes it",
    "lvlmbench.models.providers:error_payload": "an HTTP error's JSON body, as the server sent",
    "lvlmbench.models._ray:actor_options": "Ray's actor options, passed on as Ray takes them",
}
"""True JSON payloads at the store's or the network's edge, each with why it stays a dict."""

NOT_YET_TYPED: set[str] = set()
"""Still untyped: none (of 36 public crossing signatures on main before this test, the 9 JSON
payloads above are left, each a true edge). An entry may never join this list."""


def test_no_new_untyped_dict_crosses_a_package_boundary():
    found = {s.qualname for s in crossing(untyped_signatures())}
    new = sorted(found - JSON_EDGE.keys() - NOT_YET_TYPED)
    assert not new, (
        f"{len(new)} public signature(s) used by another package take or return an untyped "
        f"dict: {', '.join(new)}; pass a typed record (a pydantic model or a frozen dataclass)"
    )


def test_the_lists_name_only_signatures_that_still_need_them():
    """A signature typed since leaves its list, so the count only goes down."""
    found = {s.qualname for s in crossing(untyped_signatures())}
    stale = sorted((JSON_EDGE.keys() | NOT_YET_TYPED) - found)
    assert not stale, f"typed now, remove from the lists: {', '.join(stale)}"


def test_the_scan_sees_an_untyped_boundary(tmp_path, monkeypatch):
    """The scan itself: a dict parameter of a function another package imports is found, the
    same function typed or private is not."""
    import untyped_seams

    root = tmp_path / "lvlmbench"
    (root / "low").mkdir(parents=True)
    (root / "high").mkdir()
    (root / "low" / "__init__.py").write_text(
        "from typing import Any\n\n"
        "def loose(row: dict[str, Any]) -> int: ...\n"
        "def bare() -> list[dict]: ...\n"
        "def typed(row: Record) -> int: ...\n"
        "def _private(row: dict[str, Any]) -> int: ...\n"
        "def unused(row: dict[str, Any]) -> int: ...\n"
    )
    (root / "high" / "__init__.py").write_text(
        "from lvlmbench.low import bare, loose, typed, _private\n"
    )
    monkeypatch.setattr(untyped_seams, "PACKAGE", root)
    every = untyped_signatures()
    assert sorted(s.name for s in every) == ["_private", "bare", "loose", "unused"]
    assert sorted(s.qualname for s in crossing(every)) == [
        "lvlmbench.low.__init__:bare",
        "lvlmbench.low.__init__:loose",
    ]
