"""The benchmark record: ``data`` typed by kind, every row stored so far readable unchanged."""

import json

import pytest
from pydantic import ValidationError

from lvlmbench.store import (
    GenerationReport,
    ImportedData,
    OpenEndedData,
    RekeyedCopy,
    Store,
    StoredBenchmark,
    StoreError,
    get_benchmark,
    list_benchmarks,
    put_benchmark,
)
from lvlmbench.store import _schema as tables

# Rows as the writers stored them, older versions included: a generation report from before
# the key check and the budget existed, with a section no field names; an import; the
# open-ended demo; a position-bias copy; and a row a test or a script wrote by hand.
STORED = {
    "gen": (
        "autobench",
        {
            "settings": {"capability": "spatial", "seed": 7, "guidelines": False},
            "examiner": "procedural + procedural",
            "plan": {"capability": "spatial", "aspects": [], "note": "thin plan"},
            "self_check": {"units": 4, "accepted": 3, "rejection_rate": 0.25},
            "answer_letters": {"A": 1, "B": 1, "C": 0, "D": 1},
            "items": 3,
            "wall_s": 1.5,
            "old_section": {"kept": True},
        },
    ),
    "tsv": ("vlmeval", {"format": "vlmeval", "sources": ["a.tsv", "b.tsv"], "items": 12}),
    "demo": (
        "open",
        {
            "source": "procedural examiner, open-ended instructions",
            "settings": {
                "seed": 0,
                "per_aspect": 1,
                "capabilities": ["counting"],
                "image": 256,
                "limit": None,
            },
            "items": 2,
        },
    ),
    "gen@keys-A-s3": ("autobench-rekeyed", {"source": "gen", "target": "A", "seed": 3}),
    "hand": ("test", {}),
    "older": ("autobench", {"plan": None, "items": 2}),
}


def _stored(store_url: str, tmp_path) -> Store:
    store = Store.open(store_url, images_dir=tmp_path / "images")
    rows = [
        {"name": name, "kind": kind, "data": json.dumps(data), "created_at": 1.0}
        for name, (kind, data) in STORED.items()
    ]
    store.put_rows(tables.benchmarks, rows)
    return store


def _raw(store: Store, name: str) -> object:
    row = store.get_row(tables.benchmarks, name)
    assert row is not None
    return json.loads(row["data"])


def test_each_kind_reads_back_as_its_own_record(store_url, tmp_path):
    store = _stored(store_url, tmp_path)
    gen = get_benchmark(store, "gen")
    assert gen is not None and isinstance(gen.data, GenerationReport)
    assert gen.data.plan.note == "thin plan" and gen.data.examiner == "procedural + procedural"
    assert gen.data.guidelines is False and gen.data.items == 3 and gen.data.key_check is None
    imported = get_benchmark(store, "tsv")
    assert imported is not None and isinstance(imported.data, ImportedData)
    assert imported.data.sources == ["a.tsv", "b.tsv"] and imported.data.items == 12
    demo = get_benchmark(store, "demo")
    assert demo is not None and isinstance(demo.data, OpenEndedData)
    assert demo.data.settings is not None and demo.data.settings.capabilities == ["counting"]
    copy = get_benchmark(store, "gen@keys-A-s3")
    assert copy is not None and copy.data == RekeyedCopy(source="gen", target="A", seed=3)
    older = get_benchmark(store, "older")
    assert older is not None and isinstance(older.data, GenerationReport)
    assert older.data.plan is None and older.data.items == 2
    hand = get_benchmark(store, "hand")
    assert hand is not None and hand.data == ImportedData()
    assert [b.name for b in list_benchmarks(store)] == sorted(STORED)


def test_a_record_written_back_keeps_its_json_exactly(store_url, tmp_path):
    """Keys no field names survive, and no defaulted field is added to an old row."""
    store = _stored(store_url, tmp_path)
    for name, (_, data) in STORED.items():
        record = get_benchmark(store, name)
        assert record is not None
        put_benchmark(store, record.name, record.kind, record.data)
        assert _raw(store, name) == data, name


def test_data_of_another_kind_is_refused_and_nothing_changes(store_url, tmp_path):
    store = _stored(store_url, tmp_path)
    with pytest.raises(ValidationError, match="needs GenerationReport data, not RekeyedCopy"):
        put_benchmark(store, "gen", "autobench", RekeyedCopy(source="x"))
    assert _raw(store, "gen") == STORED["gen"][1]
    with pytest.raises(ValidationError, match="needs RekeyedCopy data"):
        StoredBenchmark(name="c", kind="autobench-rekeyed", data=ImportedData())
    # No data at all is the kind's record with nothing set, not another kind's.
    assert StoredBenchmark(name="g", kind="autobench").data == GenerationReport()


def test_a_row_that_does_not_read_is_named_in_one_line(store_url, tmp_path):
    store = _stored(store_url, tmp_path)
    row = {"name": "odd", "kind": "autobench", "data": '{"items": "many"}', "created_at": 1.0}
    store.put_rows(tables.benchmarks, [row])
    with pytest.raises(StoreError) as raised:
        get_benchmark(store, "odd")
    message = str(raised.value)
    assert "benchmark 'odd'" in message and "kind 'autobench'" in message
    assert "items:" in message and "\n" not in message
    with pytest.raises(StoreError, match="benchmark 'odd'"):
        list_benchmarks(store)
    assert get_benchmark(store, "gen") is not None  # the others still read
