import hashlib
import sqlite3

import pytest
from pngs import solid_image

from lvlmbench.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Store,
    StoreError,
    get_artifact,
    iter_benchmark_responses,
    iter_items,
    iter_responses,
    put_artifact,
    put_items,
    put_responses,
)
from lvlmbench.store import _schema as tables
from lvlmbench.types import BenchmarkItem, Response, Status


def _item(i: int, bench: str = "b") -> BenchmarkItem:
    return BenchmarkItem(
        id=f"id{i}", benchmark=bench, question=f"q{i}", options={"A": "x"}, answer="A"
    )


def test_new_store_uses_wal_and_records_schema(tmp_path):
    store = Store.open(str(tmp_path / "s.db"))
    assert store.schema_version() == SCHEMA_VERSION
    mode = sqlite3.connect(tmp_path / "s.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert store.images_dir == tmp_path / "images"


def test_upserts_are_idempotent_and_keep_existing_rows(store_url, tmp_path):
    store = Store.open(store_url, images_dir=tmp_path / "images")
    put_items(store, [_item(i) for i in range(5)])
    put_items(store, [_item(i) for i in range(3, 8)])
    assert store.count(tables.items, benchmark="b") == 8
    assert [it.id for it in iter_items(store, "b")][:5] == ["id0", "id1", "id2", "id3", "id4"]


def test_items_read_again_are_fresh_copies_of_what_is_stored(store_url, tmp_path):
    """Items are parsed once and looked up by their stored text after that: a caller's
    edit of its copy never reaches the next reader, and an item changed in the store is read
    as changed."""
    store = Store.open(store_url, images_dir=tmp_path / "images")
    put_items(store, [_item(0), _item(1)])
    first = list(iter_items(store, "b"))
    first[0].question = "edited by one caller"
    again = list(iter_items(store, "b"))
    assert again[0].question == "q0" and again[0] is not first[0]
    changed = _item(1).model_copy(update={"question": "asked differently"})
    with store.engine.begin() as conn:
        rows = tables.items.update().where(tables.items.c.id == "id1")
        conn.execute(rows.values(data=changed.model_dump_json()))
    assert [item.question for item in iter_items(store, "b")] == ["q0", "asked differently"]


def test_responses_replace_by_item_model_variant(store_url, tmp_path):
    store = Store.open(store_url, images_dir=tmp_path / "images")
    put_responses(store, [Response(item_id="i", model="m", text="x", status=Status.ERROR)])
    put_responses(store, [Response(item_id="i", model="m", text="B", extracted="B")])
    put_responses(store, [Response(item_id="i", model="m", text="C", variant="no-image")])
    stored = {r.variant: r for r in iter_responses(store, model="m")}
    assert stored["default"].text == "B" and stored["default"].status is Status.OK
    assert stored["no-image"].text == "C" and len(stored) == 2


def test_artifacts_round_trip(store_url, tmp_path):
    store = Store.open(store_url, images_dir=tmp_path / "images")
    assert get_artifact(store, "run", "aspects", "k") is None
    put_artifact(store, "run", "aspects", "k", {"aspects": ["a", "b"]})
    assert get_artifact(store, "run", "aspects", "k") == {"aspects": ["a", "b"]}


def test_images_are_content_addressed_and_png_jpeg_kept_as_given(store_url, tmp_path):
    store = Store.open(store_url, images_dir=tmp_path / "images")
    png, jpeg, gif = (
        solid_image("red", (3, 2), "PNG"),
        solid_image("red", (3, 2), "JPEG"),
        solid_image("blue", (3, 2), "GIF"),
    )
    # A PNG's id is the hash of its bytes, as it always was: stores made earlier keep theirs.
    assert store.put_image(png) == hashlib.sha256(png).hexdigest()
    digest = store.put_image(jpeg)
    assert digest == hashlib.sha256(jpeg).hexdigest()
    assert store.put_image(jpeg) == digest
    assert store.read_image(digest) == jpeg  # not re-encoded (a photo as PNG is ~8x larger)
    assert store.image_path(digest).name == f"{digest}.jpg"
    other = store.put_image(gif)  # not every provider takes GIF: stored as PNG
    assert store.read_image(other).startswith(b"\x89PNG")
    assert store.image_path(other).name == f"{other}.png"
    media = {row["sha256"]: row["media_type"] for row in store.iter_rows(tables.images)}
    assert media[digest] == "image/jpeg" and media[other] == "image/png"
    assert store.count(tables.images) == 3
    assert store.info()["image_files"] == 3
    with pytest.raises(StoreError, match="not a readable image"):
        store.put_image(b"garbage")
    with pytest.raises(StoreError, match="not a readable image"):
        store.put_image(jpeg[: len(jpeg) // 2])  # a truncated JPEG is refused, not kept
    with pytest.raises(StoreError, match="not an image hash"):
        store.image_path("../../etc/passwd")


def test_an_image_file_lost_since_is_written_again_when_put_again(store_url, tmp_path):
    """A cleared images directory is mended by putting the same pictures again, even within the
    process that first stored them: a row never lacks its file."""
    store = Store.open(store_url, images_dir=tmp_path / "images")
    png, jpeg = solid_image("red", (3, 2), "PNG"), solid_image("red", (3, 2), "JPEG")
    digests = store.put_images([png, jpeg])
    for digest in digests:
        store.image_path(digest).unlink()
    assert store.put_images([png, jpeg]) == digests
    assert [store.read_image(digest) for digest in digests] == [png, jpeg]
    assert store.count(tables.images) == 2


def test_newer_schema_is_refused_and_older_migrated(tmp_path):
    path = tmp_path / "s.db"
    Store.open(str(path)).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION + 1),))
    con.commit()
    with pytest.raises(StoreError, match="newer than this lvlmbench"):
        Store.open(str(path))
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION - 1),))
    con.commit()
    ran = []
    real = MIGRATIONS[SCHEMA_VERSION - 1]
    MIGRATIONS[SCHEMA_VERSION - 1] = lambda conn: ran.append(True)
    try:
        assert Store.open(str(path)).schema_version() == SCHEMA_VERSION
    finally:
        MIGRATIONS[SCHEMA_VERSION - 1] = real
    assert ran == [True]


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        Store.open(str(tmp_path / "nope" / "s.db"))


def test_bare_path_and_env_var(tmp_path, monkeypatch):
    monkeypatch.setenv("LVLMBENCH_STORE", str(tmp_path / "env.db"))
    store = Store.open()
    assert store.url == f"sqlite:///{tmp_path / 'env.db'}"


def test_benchmark_responses_are_selected_by_benchmark_and_filters(store_url, tmp_path):
    store = Store.open(store_url, images_dir=tmp_path / "images")
    put_items(store, [_item(i, "one") for i in range(3)] + [_item(i, "two") for i in range(3, 5)])
    put_responses(
        store,
        [
            Response(item_id=f"id{i}", model=model, text="A", variant=variant)
            for i in range(5)
            for model in ("m1", "m2")
            for variant in ("default", "no-image")
        ],
    )
    one = list(iter_benchmark_responses(store, "one"))
    assert len(one) == 3 * 2 * 2 and {r.item_id for r in one} == {"id0", "id1", "id2"}
    picked = list(iter_benchmark_responses(store, "two", model="m2", variant="no-image"))
    assert sorted(r.item_id for r in picked) == ["id3", "id4"]
    assert all(r.model == "m2" and r.variant == "no-image" for r in picked)
    assert list(iter_benchmark_responses(store, "three")) == []


def test_a_database_password_never_reaches_messages_or_the_store_url():
    pytest.importorskip("psycopg")
    url = "postgresql+psycopg://team:s3cret-pw@127.0.0.1:1/lvlm?connect_timeout=2"
    with pytest.raises(StoreError) as raised:
        Store.open(url)  # nothing listens on port 1: the connection is refused
    assert "cannot open store postgresql+psycopg://team:***@127.0.0.1:1/lvlm" in str(raised.value)
    assert "s3cret-pw" not in str(raised.value)
