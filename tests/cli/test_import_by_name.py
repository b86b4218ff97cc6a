"""`lvlmbench import NAME` and `lvlmbench ls --available`: a standard benchmark imported by
name from a verified copy on this machine or a download (a local HTTP server), refused with exit
2 and nothing stored when its checksum is wrong or, offline, when no copy is here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import dataset_layouts as layouts
import pytest
from catalog_files import isolate_caches, lab_catalog
from http_fixture import RecordingServer
from prediction_fixtures import b64_image
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.datasets.catalog import cached_file, find_benchmark
from lvlmbench.store import Store, iter_items, list_benchmarks

runner = CliRunner()


@pytest.fixture(autouse=True)
def caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_caches(tmp_path, monkeypatch)


def _mmbench(tmp_path: Path) -> bytes:
    return layouts.mmbench(tmp_path / "source.tsv", b64_image).read_bytes()


def _flat(text: str) -> str:
    """Text without whitespace: rich wraps long lines (and long paths mid-name) at the
    terminal's width."""
    return "".join(text.split())


def _mkdirs(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _items(db: Path, name: str) -> list[tuple[str, str | None]]:
    store = Store.open(str(db))
    try:
        return sorted((item.question, item.reference) for item in iter_items(store, name))
    finally:
        store.close()


def _benchmarks(db: Path) -> list[str]:
    if not db.exists():
        return []
    store = Store.open(str(db))
    try:
        return [b.name for b in list_benchmarks(store)]
    finally:
        store.close()


def test_a_name_downloads_once_verifies_and_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _mmbench(tmp_path)
    db = tmp_path / "s.db"
    with RecordingServer() as server:
        lab_catalog(tmp_path, monkeypatch, f"{server.url}/Lab.tsv", hashlib.md5(body).hexdigest())
        server.reply(body)
        first = runner.invoke(app, ["import", "lab-bench", "--store", str(db)])
        assert first.exit_code == 0, first.output
        again = runner.invoke(app, ["import", "LAB_BENCH", "--store", str(db), "--json"])
        assert again.exit_code == 0, again.output
        assert len(server.requests) == 1  # the second import read the cache
    entry = find_benchmark("Lab_Bench")
    assert entry is not None
    assert _flat(f"Lab_Bench downloaded to {cached_file(entry)} (md5 verified)") in _flat(
        first.output
    )
    assert "3 rows → 3 items added" in first.output
    assert "Lab_Bench has 40 rows as published; this file had 3" in first.output
    shown = json.loads(again.stdout)
    assert shown["items_added"] == 0 and shown["items_unchanged"] == 3
    assert shown["standard"]["origin"] == "cache"
    assert shown["standard"]["checksum"] == f"md5 {hashlib.md5(body).hexdigest()}"
    assert _benchmarks(db) == ["Lab_Bench"] and len(_items(db, "Lab_Bench")) == 3


def test_a_checksum_mismatch_exits_2_stores_nothing_and_removes_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _mmbench(tmp_path)
    db = tmp_path / "s.db"
    published = hashlib.md5(body).hexdigest()
    with RecordingServer() as server:
        lab_catalog(tmp_path, monkeypatch, f"{server.url}/Lab.tsv", published)
        server.reply(body + b"7\textra\trow\n")
        shown = runner.invoke(app, ["import", "Lab_Bench", "--store", str(db)])
    assert shown.exit_code == 2
    line = _flat(shown.output)
    assert _flat(f"checksum mismatch for Lab_Bench.tsv: expected md5 {published}, got") in line
    assert hashlib.md5(body + b"7\textra\trow\n").hexdigest() in line
    entry = find_benchmark("Lab_Bench")
    assert entry is not None and not cached_file(entry).exists()
    assert _benchmarks(db) == []


def test_offline_with_no_copy_says_what_to_download_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "s.db"
    shown = runner.invoke(app, ["import", "mmbench_dev_en", "--offline", "--store", str(db)])
    assert shown.exit_code == 2
    line = _flat(shown.output)
    assert _flat("MMBench_DEV_EN is not on this machine and downloads are off (--offline)") in line
    assert (
        _flat(
            "download https://opencompass.openxlab.space/utils/benchmarks/MMBench/MMBench_DEV_EN.tsv"
            " (md5 b6caf1133a01c6bb705cf753bb527ed8)"
        )
        in line
    )
    where = tmp_path / "cache" / "benchmarks" / "MMBench_DEV_EN" / "MMBench_DEV_EN.tsv"
    assert _flat(f"to {where}, or pass a copy with --file PATH") in _flat(shown.output)
    assert _benchmarks(db) == [] and not db.exists()


def test_a_local_copy_given_with_file_is_checked_against_the_published_md5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _mmbench(tmp_path)
    mine = tmp_path / "MMBench_DEV_EN.tsv"
    mine.write_bytes(body)
    lab_catalog(tmp_path, monkeypatch, "http://127.0.0.1:9/Lab.tsv", hashlib.md5(body).hexdigest())
    db = tmp_path / "s.db"
    args = ["import", "lab_bench", "--file", str(mine), "--offline", "--store", str(db)]
    assert runner.invoke(app, args).exit_code == 0
    assert len(_items(db, "Lab_Bench")) == 3
    real = runner.invoke(app, ["import", "MMBench_DEV_EN", "--file", str(mine), "--store", str(db)])
    assert real.exit_code == 2
    assert _flat("expected md5 b6caf1133a01c6bb705cf753bb527ed8") in _flat(real.output)
    assert mine.read_bytes() == body and _benchmarks(db) == ["Lab_Bench"]
    given = runner.invoke(app, ["import", str(mine), "--file", str(mine), "--store", str(db)])
    assert given.exit_code == 2
    assert _flat("--file is for a standard benchmark named") in _flat(given.output)


def test_touchstone_and_visit_bench_read_offline_from_the_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real entries: TouchStone (no published checksum) from lvlmbench's cache, VisIT-Bench
    from the Hugging Face cache's snapshot at the pinned commit."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    touchstone, visit = find_benchmark("TouchStone"), find_benchmark("VisIT-Bench")
    assert touchstone is not None and visit is not None and visit.hub_file is not None
    cached_file(touchstone).parent.mkdir(parents=True)
    layouts.touchstone(cached_file(touchstone), b64_image)
    # huggingface_hub's layout: the file is a blob named by its hash, linked from the snapshot
    repo = tmp_path / "hub" / "datasets--mlfoundations--VisIT-Bench"
    blob = layouts.visit_single(_mkdirs(repo / "blobs" / "5f2c9a0e"))
    snapshot = repo / "snapshots" / visit.hub_file.revision / visit.hub_file.path
    _mkdirs(snapshot).symlink_to(Path("..") / ".." / "blobs" / blob.name)
    db = tmp_path / "s.db"
    shown = runner.invoke(app, ["import", "touchstone", "--store", str(db)])
    assert shown.exit_code == 0, shown.output
    assert "TouchStone has 908 rows as published; this file had 2" in shown.output
    assert "(no published checksum; sha256" in " ".join(shown.output.split())
    seen = runner.invoke(app, ["import", "visit-bench", "--store", str(db)])
    assert seen.exit_code == 0, seen.output
    assert _flat(f"VisIT-Bench read from the Hugging Face cache: {snapshot}") in _flat(seen.output)
    assert _flat("(no published checksum, pinned by commit b28e559b2551)") in _flat(seen.output)
    assert _benchmarks(db) == ["TouchStone", "VisIT-Bench"]
    assert ("图中是什么颜色？", "蓝色。") in _items(db, "TouchStone")


def test_ls_available_lists_names_rows_licence_and_source() -> None:
    shown = runner.invoke(app, ["ls", "--available"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    rows = {line.split("│")[1].strip(): line for line in shown.output.splitlines() if "│" in line}
    assert "4,329" in rows["MMBench_DEV_EN"] and "md5" in rows["MMBench_DEV_EN"]
    assert "hf:mlfoundations/VisIT-Bench@b28e559b2551" in rows["VisIT-Bench"]
    assert "CC BY 4.0" in rows["VisIT-Bench"] and "none published" in rows["VisIT-Bench"]
    assert "CC BY-ND 4.0" in rows["RealWorldQA"] and "see source" in rows["MME"]
    listed = json.loads(runner.invoke(app, ["ls", "--available", "--json"]).stdout)
    by_name = {entry["name"]: entry for entry in listed}
    assert len(by_name) >= 23 and by_name["MME"]["md5"] == "b36b43c3f09801f5d368627fb92187c3"
    assert by_name["MME"]["items"] == 2374 and by_name["MME"]["cached"] is None
    assert by_name["TouchStone"]["format"] == "touchstone" and by_name["POPE"]["items"] is None


def test_a_bad_lab_catalog_is_one_line_naming_the_file_and_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = lab_catalog(tmp_path, monkeypatch, "http://127.0.0.1:9/Lab.tsv", "0" * 32)
    extra.write_text(extra.read_text().replace('url = "http://127.0.0.1:9/Lab.tsv"\n', ""))
    listed = runner.invoke(app, ["ls", "--available"])
    assert listed.exit_code == 2
    assert _flat(f"{extra}, benchmark 1: url: Field required") in _flat(listed.output)
    extra.write_text("[[benchmark]\n")
    named = runner.invoke(app, ["import", "mme", "--store", str(tmp_path / "s.db")])
    assert named.exit_code == 2 and _flat(f"{extra}: not valid TOML") in _flat(named.output)
