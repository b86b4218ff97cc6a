"""`lvlmbench export` → `lvlmbench import` round trips: an AutoBench-V benchmark (procedural,
small) and an imported VisIT-like one read back to equal items; the export loads with Hugging
Face ``datasets`` (Image and typed Value features, the card's configs); a ``save_to_disk``
folder and Hub parquet files import; bad or foreign parquet is one clear error, exit 2."""

from __future__ import annotations

import asyncio
import csv
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.cli import app
from lvlmbench.datasets import detect_format, export_hub, import_dataset
from lvlmbench.datasets.export import PARQUET_PATH
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.store import (
    GenerationReport,
    Store,
    get_benchmark,
    iter_items,
    put_benchmark,
    put_items,
)
from lvlmbench.types import BenchmarkItem

runner = CliRunner()
SETTINGS = GenerateSettings(
    capability="spatial understanding",
    name="spatial-rt",
    n=1,
    m=2,
    per_aspect=1,
    seed=3,
    image_size=96,
)


@pytest.fixture(autouse=True)
def _no_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LVLMBENCH_WORKERS", "0")


@pytest.fixture(scope="module")
def autobench(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A small AutoBench-V benchmark generated with the embedded procedural examiner."""
    store = Store.open(str(tmp_path_factory.mktemp("gen") / "gen.db"))
    images = ImageClient(load_image_model("procedural"), store)

    async def run() -> None:
        try:
            await generate_benchmark(store, SETTINGS, ProceduralBackend(), images)
        finally:
            await images.aclose()

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LVLMBENCH_WORKERS", "0")
        asyncio.run(run())
    yield store
    store.close()


def _import(folder: Path, db: Path, *extra: str) -> Store:
    result = runner.invoke(app, ["import", str(folder), "--store", str(db), *extra])
    assert result.exit_code == 0, result.output
    assert "detected format hf" in result.output
    return Store.open(str(db))


def test_autobench_export_imports_back_to_equal_items(autobench: Store, tmp_path: Path) -> None:
    original = list(iter_items(autobench, SETTINGS.benchmark))
    assert len(original) >= 2 and {i.kind for i in original} & {"mc", "tf"}
    out = tmp_path / "export"
    written = export_hub(autobench, SETTINGS.benchmark, out)
    assert written.parquet == out / "data" / "test-00000-of-00001.parquet"
    assert written.rows == len(original)
    assert detect_format(out) == detect_format(written.parquet) == "hf"

    copy = _import(out, tmp_path / "copy.db")
    back = list(iter_items(copy, SETTINGS.benchmark))  # named after the exported benchmark
    assert back == original  # ids included: the benchmark itself, restored
    stored, restored = (
        get_benchmark(autobench, SETTINGS.benchmark),
        get_benchmark(copy, SETTINGS.benchmark),
    )
    assert stored is not None and restored is not None
    assert (restored.kind, restored.data) == ("autobench", stored.data)
    # The pictures are the same bytes (the store is content-addressed: same digests).
    for item in back:
        for digest in item.images:
            assert copy.read_image(digest) == autobench.read_image(digest)
    # Importing again adds nothing and keeps the ids.
    again = runner.invoke(app, ["import", str(out), "--store", copy.url])
    assert "0 items added" in again.output and "unchanged" in again.output
    assert [i.id for i in iter_items(copy, SETTINGS.benchmark)] == [i.id for i in back]
    copy.close()


def test_card_says_how_it_was_generated(autobench: Store, tmp_path: Path) -> None:
    card = export_hub(autobench, SETTINGS.benchmark, tmp_path / "a").card.read_text("utf-8")
    front, prose = card.split("---\n")[1:3]
    assert 'license: "cc-by-4.0"' in front and "path: data/test-*" in front
    assert '- name: "image"\n    dtype: image' in front
    assert '- name: "difficulty"\n    dtype: string' in front
    count = len(list(iter_items(autobench, SETTINGS.benchmark)))
    assert f"num_examples: {count}" in front
    assert "| seed | 3 |" in prose and "| capability | spatial understanding |" in prose
    assert "procedural" in prose and "--license" in prose
    chosen = export_hub(autobench, SETTINGS.benchmark, tmp_path / "b", license="mit")
    assert chosen.license == "mit"
    assert 'license: "mit"' in chosen.card.read_text("utf-8")


def test_export_loads_with_datasets(autobench: Store, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "export"
    export_hub(autobench, SETTINGS.benchmark, out)
    original = list(iter_items(autobench, SETTINGS.benchmark))
    # The folder itself: `datasets` reads the card's configs (the `test` split, parquet only).
    loaded = datasets.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert list(loaded) == ["test"]
    test = loaded["test"]
    assert isinstance(test.features["image"], datasets.Image)
    assert test.features["difficulty"] == datasets.Value("string")
    assert test.features["alignment"] == datasets.Value("float64")
    assert test.features["attempts"] == datasets.Value("int64")
    assert test["question"] == [i.question for i in original]
    assert test["answer"] == [i.answer for i in original]
    assert test["difficulty"] == [i.meta["difficulty"] for i in original]
    first = original[0]
    assert test[0]["image"].size == (SETTINGS.image_size, SETTINGS.image_size)
    assert json.loads(test[0]["meta"])["errors"] == first.meta["errors"]


VISIT_HEADER = ["instruction", "instruction_category", "image_1", "image_2", "image_url"]
VISIT_HEADER += ["reference_output", "human_ratings_gpt4_correct"]


def _visit_csv(folder: Path, png: Callable[..., bytes]) -> Path:
    """A path image (JPEG), a two-image row, a URL-only row (kept as a URL), unicode text."""
    (folder / "imgs").mkdir(parents=True)
    (folder / "imgs" / "red.jpg").write_bytes(png("red", fmt="JPEG"))
    (folder / "imgs" / "blue.png").write_bytes(png("blue"))
    path = folder / "visit_rt.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(VISIT_HEADER)
        writer.writerow(["Describe the colour.", "colour", "imgs/red.jpg", "", "", "Red.", "True"])
        writer.writerow(
            ["Compare the two — ünïcode.", "compare", "imgs/red.jpg", "imgs/blue.png", "", "", ""]
        )
        url = "https://example.org/visit/dog.jpg"
        writer.writerow(["What breed is the dog?", "breed", "", "", url, "A corgi.", "False"])
    return path


def test_imported_benchmark_round_trips_with_its_ids(
    tmp_path: Path, png: Callable[..., bytes]
) -> None:
    source = Store.open(str(tmp_path / "source.db"))
    import_dataset(source, _visit_csv(tmp_path / "visit", png), "visit", "visit-rt")
    original = list(iter_items(source, "visit-rt"))
    assert [len(i.images) for i in original] == [1, 2, 0]
    written = export_hub(source, "visit-rt", tmp_path / "export")
    card = written.card.read_text("utf-8")
    assert 'license: "other"' in card and "licensed as the source dataset" in card
    assert "visit_rt.csv" in card
    assert "image_2" in card

    copy = _import(tmp_path / "export", tmp_path / "copy.db")
    back = list(iter_items(copy, "visit-rt"))
    # Same name, same row keys: the very same items, ids included.
    assert back == original
    for item in back:
        for digest in item.images:
            assert copy.read_image(digest) == source.read_image(digest)
    restored = get_benchmark(copy, "visit-rt")
    assert restored is not None and restored.kind == "visit"
    assert restored.data == get_benchmark(source, "visit-rt").data  # type: ignore[union-attr]
    copy.close()
    source.close()


def test_a_save_to_disk_dataset_imports(tmp_path: Path, png: Callable[..., bytes]) -> None:
    datasets = pytest.importorskip("datasets")
    features = datasets.Features(
        {
            "question_id": datasets.Value("int64"),
            "question": datasets.Value("string"),
            "image": datasets.Image(),
            "choices": datasets.List(datasets.Value("string")),
            "answer": datasets.Value("int64"),
            "subject": datasets.Value("string"),
        }
    )
    rows = {
        "question_id": [10, 11],
        "question": ["Which colour?", "Which shape?"],
        "image": [{"bytes": png("red"), "path": None}, {"bytes": png("green"), "path": None}],
        "choices": [["red", "blue"], ["circle", "square", "star"]],
        "answer": [0, 2],
        "subject": ["colour", "shape"],
    }
    test = datasets.Dataset.from_dict(rows, features=features)
    train = test.select([0])
    folder = tmp_path / "saved"
    datasets.DatasetDict({"train": train, "test": test}).save_to_disk(str(folder))

    stored = _import(folder, tmp_path / "s.db", "--name", "saved")
    items = list(iter_items(stored, "saved"))
    assert [(i.kind, i.options, i.answer) for i in items] == [
        ("mc", {"A": "red", "B": "blue"}, "A"),
        ("mc", {"A": "circle", "B": "square", "C": "star"}, "C"),
    ]
    assert [i.meta["subject"] for i in items] == ["colour", "shape"]
    assert [stored.read_image(i.images[0]) for i in items] == [png("red"), png("green")]
    stored.close()


def test_hub_parquet_files_import(tmp_path: Path, png: Callable[..., bytes]) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema(
        [("question", pa.string()), ("image", image), ("answer", pa.string()), ("w", pa.float64())]
    )
    for split, colour in (("train", "red"), ("test", "blue")):
        table = pa.Table.from_pylist(
            [
                {
                    "question": f"Is it {colour}?",
                    "image": {"bytes": png(colour), "path": None},
                    "answer": "yes",
                    "w": float("nan"),  # a missing number, as pandas writes it
                }
            ],
            schema=schema,
        )
        (tmp_path / "hub" / "data").mkdir(parents=True, exist_ok=True)
        pq.write_table(table, str(tmp_path / "hub" / "data" / f"{split}-00000-of-00001.parquet"))
    stored = _import(tmp_path / "hub", tmp_path / "s.db")
    [item] = list(iter_items(stored, "hub"))  # the test split only
    assert (item.question, item.kind, item.answer) == ("Is it blue?", "tf", "true")
    assert "w" not in item.meta
    assert stored.read_image(item.images[0]) == png("blue")
    stored.close()


def _fails(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return " ".join(result.output.split())


def test_bad_and_foreign_parquet_are_clear_errors(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    db = str(tmp_path / "s.db")
    foreign = tmp_path / "sales.parquet"
    pq.write_table(pa.table({"region": ["north"], "revenue": [3.5]}), str(foreign))
    said = _fails(["import", str(foreign), "--store", db])
    assert "missing required column 'question' or 'instruction'" in said
    assert "region, revenue" in said

    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not really parquet")
    assert "not a readable parquet file" in _fails(["import", str(broken), "--store", db])

    (tmp_path / "empty").mkdir()
    said = _fails(["import", str(tmp_path / "empty"), "--store", db])
    assert "is a directory with no dataset in it" in said

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("question", pa.string()), ("image", image)])
    bad = pa.Table.from_pylist(
        [{"question": "q", "image": {"bytes": b"not an image", "path": None}}], schema=schema
    )
    pq.write_table(bad, str(tmp_path / "badimg.parquet"))
    said = _fails(["import", str(tmp_path / "badimg.parquet"), "--store", db])
    assert "row 1, column 'image': not a readable image" in said
    if Path(db).exists():
        opened = Store.open(db)
        assert list(iter_items(opened, "badimg")) == []
        opened.close()


def test_awkward_items_round_trip_exactly(tmp_path: Path, png: Callable[..., bytes]) -> None:
    """Meta that must not become typed columns (names of real columns, None, mixed or nested
    values, integers beyond int64), five options, an answerless TEST-split item, no picture."""
    source = Store.open(str(tmp_path / "source.db"))
    red, blue = source.put_image(png("red", fmt="JPEG")), source.put_image(png("blue"))
    awkward: dict[str, Any] = {"question": "shadowed", "image": "x.jpg", "A": "meta A"}
    awkward |= {"note": None, "nested": {"a": [1, 2]}, "flag": True, "big": 2**70}
    items = [
        BenchmarkItem(
            id="one",
            benchmark="odd",
            question="Pick one ✓",
            kind="mc",
            images=[red, blue, red],
            options={"A": "a", "B": "b", "C": "c", "D": "d", "E": "e"},
            answer="E",
            meta={**awkward, "score": 1, "level": 2, "split": "dev"},
        ),
        BenchmarkItem(
            id="two",
            benchmark="odd",
            question="Pick again",
            kind="mc",
            images=[blue],
            options={"A": "x", "B": "y"},
            meta={"score": 0.5, "level": 3, "split": "test", "flag": False},
        ),
        BenchmarkItem(
            id="three", benchmark="odd", question="Say hi", reference="hi", meta={"level": 4}
        ),
    ]
    put_items(source, items)
    put_benchmark(source, "odd", "jsonl", {"sources": ["odd.jsonl"]})
    export_hub(source, "odd", tmp_path / "out")
    copy = _import(tmp_path / "out", tmp_path / "copy.db")
    back = list(iter_items(copy, "odd"))
    assert back == items  # ids and all
    assert [copy.read_image(d) for d in back[0].images] == [
        source.read_image(d) for d in items[0].images
    ]
    pq = pytest.importorskip("pyarrow.parquet")
    columns = pq.read_schema(str(tmp_path / "out" / PARQUET_PATH)).names
    # Typed meta columns: only entries that are scalars of one type wherever present (`score`
    # mixes int and float; the awkward ones clash with real columns or are not plain scalars).
    assert columns[columns.index("category") + 1 :] == ["flag", "level", "split", "meta"]
    assert {"image_2", "image_3", "E"} <= set(columns) and "F" not in columns
    copy.close()
    source.close()


def test_reading_parquet_without_pyarrow_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "x.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if it were not installed
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    said = _fails(["import", str(tmp_path / "x.parquet"), "--store", str(tmp_path / "s.db")])
    assert "needs pyarrow: pip install 'lvlmbench[export]'" in said


EXAMINEES = ("baseline/random", "baseline/oracle")


def _summary(db: str, out: Path) -> dict[str, Any]:
    """`lvlmbench report`'s summary.json of the benchmark, once the weightless baselines
    (seeded per item) have answered it: responses are not part of an export."""
    api.evaluate(SETTINGS.benchmark, EXAMINEES, store=db)
    files = api.report(out / "report.html", store=db, benchmarks=[SETTINGS.benchmark])
    summary: dict[str, Any] = json.loads(Path(files.summary).read_text("utf-8"))
    summary.pop("store")  # where it was read from: the only thing meant to differ
    return summary


@pytest.mark.parametrize("parquet", [True, False])
def test_export_then_import_into_a_fresh_store_is_the_same_benchmark(
    autobench: Store, tmp_path: Path, parquet: bool
) -> None:
    """export (the Hub folder, or items.jsonl alone) -> import into an empty store: the same
    ids, kind and generation report (plan, self-check), and the same report summary."""
    stored = get_benchmark(autobench, SETTINGS.benchmark)
    assert stored is not None and isinstance(stored.data, GenerationReport)
    assert stored.data.plan is not None and stored.data.self_check  # what must travel
    out = tmp_path / "export"
    api.export(SETTINGS.benchmark, out, store=autobench.url, parquet=parquet)
    fresh = str(tmp_path / "fresh.db")
    imported = api.import_file(out if parquet else out / "items.jsonl", store=fresh)
    assert imported.summary.benchmark == SETTINGS.benchmark
    copy = Store.open(fresh)
    try:
        restored = get_benchmark(copy, SETTINGS.benchmark)
        back = list(iter_items(copy, SETTINGS.benchmark))
    finally:
        copy.close()
    assert back == list(iter_items(autobench, SETTINGS.benchmark))  # ids and all
    assert restored is not None and restored.kind == "autobench"
    assert restored.data == stored.data
    before = _summary(autobench.url, tmp_path / "before")
    after = _summary(fresh, tmp_path / "after")
    assert after == before and before  # an empty summary would prove nothing


def test_card_splits_carry_their_size(autobench: Store, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    written = export_hub(autobench, SETTINGS.benchmark, tmp_path / "out")
    front = written.card.read_text("utf-8").split("---\n")[1]
    arrow_bytes = pq.read_table(str(written.parquet)).nbytes  # a split's num_bytes in `datasets`
    assert arrow_bytes > 0
    assert (
        f"  - name: test\n    num_bytes: {arrow_bytes}\n    num_examples: {written.rows}\n" in front
    )
    assert f"  download_size: {written.parquet.stat().st_size}\n" in front
    assert f"  dataset_size: {arrow_bytes}\n" in front


def test_a_restored_generation_report_is_shown_as_text(tmp_path: Path) -> None:
    """An export is someone else's file: the definition it restores reaches the report only as
    escaped text."""
    source = Store.open(str(tmp_path / "source.db"))
    hostile = "<script>alert(1)</script>"
    data = {"plan": {"note": hostile}, "self_check": {hostile: 1.0, "accepted": 2}}
    put_benchmark(source, "gen", "autobench", data)
    put_items(
        source,
        [
            BenchmarkItem(
                id="q1",
                benchmark="gen",
                question="Which colour?",
                kind="mc",
                options={"A": "red", "B": "blue"},
                answer="A",
            )
        ],
    )
    export_hub(source, "gen", tmp_path / "out")
    source.close()
    fresh = str(tmp_path / "fresh.db")
    api.import_file(tmp_path / "out", store=fresh)
    api.evaluate("gen", ["baseline/oracle"], store=fresh)
    page = Path(api.report(tmp_path / "r" / "report.html", store=fresh).html).read_text("utf-8")
    assert hostile not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
