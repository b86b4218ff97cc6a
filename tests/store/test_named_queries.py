"""The store's named queries and its revision counter, on SQLite and (integration) PostgreSQL."""

import sqlite3
import time

from pngs import solid_png

from lvlmbench.store import (
    Leases,
    Store,
    benchmark_item_ids,
    benchmark_models,
    cached_call,
    cached_outputs,
    count_items,
    final_judgment_ids,
    final_response_ids,
    find_item,
    judged_item_ids,
    judges_under,
    judgment_id,
    judgment_ids,
    judgment_protocols,
    next_item_seq,
    put_artifact,
    put_benchmark,
    put_cached_calls,
    put_items,
    put_judgments,
    put_responses,
    response_id,
    stored_item_texts,
    update_items,
)
from lvlmbench.types import BenchmarkItem, Judgment, Response, Status


def _item(i: int, bench: str = "b", question: str = "") -> BenchmarkItem:
    return BenchmarkItem(
        id=f"{bench}-{i}",
        benchmark=bench,
        question=question or f"q{i}",
        options={"A": "x", "B": "y"},
        answer="A",
    )


def _open(store_url: str, tmp_path) -> Store:
    return Store.open(store_url, images_dir=tmp_path / "images")


def test_item_queries_keep_benchmarks_apart_and_their_order(store_url, tmp_path):
    store = _open(store_url, tmp_path)
    put_items(store, [_item(i) for i in (3, 1, 2)])
    put_items(store, [_item(i, bench="other") for i in range(4)])
    assert count_items(store, "b") == 3 and count_items(store, "none") == 0
    assert benchmark_item_ids(store, "b") == ["b-3", "b-1", "b-2"]
    assert find_item(store, "b", "b-1") == _item(1)
    assert find_item(store, "other", "b-1") is None  # another benchmark's item
    assert find_item(store, "b", "missing") is None
    texts = stored_item_texts(store, "b")
    assert set(texts) == {"b-3", "b-1", "b-2"}
    assert texts["b-2"].seq > texts["b-1"].seq > texts["b-3"].seq
    assert BenchmarkItem.model_validate_json(texts["b-1"].data) == _item(1)


def test_stored_item_texts_of_a_batch_of_ids_and_the_next_place(store_url, tmp_path):
    store = _open(store_url, tmp_path)
    assert next_item_seq(store) == 0
    put_items(store, [_item(i) for i in range(3)])
    put_items(store, [_item(i, bench="other") for i in range(2)])
    assert next_item_seq(store) == 5
    wanted = ["b-2", "b-0", "other-1", "missing"]
    found = stored_item_texts(store, "b", wanted)
    assert sorted(found) == ["b-0", "b-2"]  # another benchmark's item is not this one's
    assert found["b-2"] == stored_item_texts(store, "b")["b-2"]
    assert stored_item_texts(store, "b", []) == {}


def test_put_images_stores_each_picture_once_with_its_row(store_url, tmp_path):
    import hashlib

    store = _open(store_url, tmp_path)
    # More than a few (written in parallel), the fourth twice.
    pictures = [solid_png((n, 0, 0), (3, 2)) for n in [*range(12), 3]]
    digests = store.put_images(pictures)
    assert digests == [hashlib.sha256(p).hexdigest() for p in pictures]
    assert digests[-1] == digests[3] and store.put_image(solid_png((3, 0, 0), (3, 2))) == digests[3]
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == sorted(
        f"{d}.png" for d in set(digests)
    )
    assert all(store.read_image(d) == p for d, p in zip(digests, pictures, strict=True))
    assert store.info()["tables"]["images"] == 12


def test_update_items_rewrites_content_in_place(store_url, tmp_path):
    store = _open(store_url, tmp_path)
    put_items(store, [_item(i) for i in range(3)])
    seq = stored_item_texts(store, "b")["b-1"].seq
    update_items(store, [(seq, _item(1, question="changed"))])
    assert benchmark_item_ids(store, "b") == ["b-0", "b-1", "b-2"]
    assert find_item(store, "b", "b-1") == _item(1, question="changed")
    assert count_items(store, "b") == 3


def test_final_response_ids_leave_out_errors_other_models_and_variants(store_url, tmp_path):
    store = _open(store_url, tmp_path)
    put_items(store, [_item(i) for i in range(4)])
    put_responses(
        store,
        [
            Response(item_id="b-0", model="m", text="A", extracted="A"),
            Response(item_id="b-1", model="m", text="?", status=Status.UNPARSEABLE),
            Response(item_id="b-2", model="m", text="", status=Status.ERROR),
            Response(item_id="b-3", model="m", text="A", extracted="A", variant="no-image"),
            Response(item_id="b-3", model="n", text="A", extracted="A"),
        ],
    )
    assert final_response_ids(store, "m", "default") == {
        response_id("b-0", "m"),
        response_id("b-1", "m"),
    }
    assert final_response_ids(store, "m", "no-image") == {response_id("b-3", "m", "no-image")}
    assert benchmark_models(store, "b") == ["m", "n"]
    assert benchmark_models(store, "b", "no-image") == ["m"]
    assert benchmark_models(store, "other") == []


def test_judgment_queries(store_url, tmp_path):
    store = _open(store_url, tmp_path)
    ok = Judgment(item_id="i1", judge="j", protocol="score", model_a="m", score_a=3.0)
    failed = Judgment(item_id="i2", judge="j", protocol="score", model_a="m", status=Status.ERROR)
    metric = Judgment(item_id="i3", judge="bleu", protocol="metric:bleu", model_a="m", score_a=1)
    put_judgments(store, [ok, failed, metric])
    assert judgment_ids(store, "j", "score") == {judgment_id(ok), judgment_id(failed)}
    assert final_judgment_ids(store, "j", "score") == {judgment_id(ok)}
    assert judges_under(store, "score") == ["j"] and judges_under(store, "pairwise") == []
    assert judgment_protocols(store) == {"score", "metric:bleu"}
    assert judged_item_ids(store, "score") == {"i1"}
    assert judged_item_ids(store, "score", Status.ERROR) == {"i2"}


def test_cached_calls_round_trip_and_keep_the_first_row(store_url, tmp_path):
    store = _open(store_url, tmp_path)
    assert cached_outputs(store, []) == {} and cached_call(store, "k1") is None
    row = {
        "key": "k1",
        "kind": "chat",
        "spec": "openai/m",
        "output": '{"text": "first"}',
        "input_tokens": 1,
        "output_tokens": 2,
        "created_at": 123.5,
    }
    put_cached_calls(store, [row, {**row, "key": "k2", "output": '{"text": "two"}'}])
    put_cached_calls(store, [{**row, "output": '{"text": "second"}'}])
    assert cached_outputs(store, ["k1", "k2", "k3", "k1"]) == {
        "k1": '{"text": "first"}',
        "k2": '{"text": "two"}',
    }
    found = cached_call(store, "k1")
    assert found is not None and found.output == '{"text": "first"}' and found.created_at == 123.5


def test_revision_rises_with_every_write_of_records_in_any_process(store_url, tmp_path):
    reader, writer = _open(store_url, tmp_path), _open(store_url, tmp_path)
    seen = [reader.revision()]
    assert seen[0] is not None

    def after(write) -> None:
        write()
        now = reader.revision()
        assert now is not None and now > seen[-1], write
        seen.append(now)

    after(lambda: put_benchmark(writer, "b", "mc", {}))
    after(lambda: put_items(writer, [_item(0)]))
    after(lambda: put_responses(writer, [Response(item_id="b-0", model="m", text="A")]))
    after(
        lambda: put_judgments(
            writer, [Judgment(item_id="b-0", judge="j", protocol="p", model_a="m")]
        )
    )
    after(lambda: put_artifact(writer, "run", "stage", "k", {"x": 1}))
    # Bookkeeping that changes no figure leaves it alone (and so never contends for it).
    before = reader.revision()
    leases = Leases.for_responses(writer, owner="me")
    assert leases.claim(["u1"]).mine == {"u1"}
    leases.release()
    put_cached_calls(
        writer,
        [
            {
                "key": "k",
                "kind": "chat",
                "spec": "s",
                "output": "{}",
                "input_tokens": 0,
                "output_tokens": 0,
                "created_at": time.time(),
            }
        ],
    )
    assert reader.revision() == before
    # Reopening keeps the count (a new process does not start again from 0).
    assert _open(store_url, tmp_path).revision() == before
    assert "revision" not in reader.info()["tables"]


def test_judgment_leases_cover_judgment_rows(store_url, tmp_path):
    store = _open(store_url, tmp_path)
    done = Judgment(item_id="i", judge="j", protocol="p", model_a="m")
    put_judgments(store, [done])
    claim = Leases.for_judgments(store, owner="me").claim([judgment_id(done), "other"])
    assert claim.done == {judgment_id(done)} and claim.mine == {"other"}


def test_a_read_only_store_made_before_the_counter_has_no_revision(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    store = Store.open(str(path))
    put_items(store, [_item(0)])
    store.close()
    with sqlite3.connect(path) as con:  # as an older lvlmbench left it
        con.execute("DROP TABLE revision")
    monkeypatch.setattr("lvlmbench.store._opening.writable", lambda _path: False)
    old = Store.open(str(path))
    assert old.read_only and old.revision() is None  # nothing computed from it may be reused
    assert count_items(old, "b") == 1
    old.close()
    monkeypatch.undo()
    reopened = Store.open(str(path))  # writable again: the counter is added, rows untouched
    assert reopened.revision() == 0 and count_items(reopened, "b") == 1
