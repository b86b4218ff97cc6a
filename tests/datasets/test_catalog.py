"""Standard benchmarks by name: the catalog's entries, the copies on this machine it accepts
(lvlmbench's cache, the Hugging Face cache, VLMEvalKit's ~/LMUData, --file), and downloads from
a local HTTP server (checksum right, wrong, a transfer that breaks off and resumes). Offline
throughout: every cache lives under tmp_path, every URL is 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from catalog_files import isolate_caches, lab_catalog
from http_fixture import RecordingServer

from lvlmbench.datasets.catalog import (
    CatalogError,
    StandardBenchmark,
    cached_file,
    close_names,
    find_benchmark,
    locate,
    standard_benchmarks,
)

BODY = b"index\tquestion\tanswer\n1\tIs it red?\tyes\n" * 40


@pytest.fixture(autouse=True)
def caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate_caches(tmp_path, monkeypatch)


def _lab_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str) -> StandardBenchmark:
    """The lab catalog's one entry: BODY published at ``url`` with its MD5."""
    lab_catalog(tmp_path, monkeypatch, url, hashlib.md5(BODY).hexdigest())
    entry = find_benchmark("Lab_Bench")
    assert entry is not None
    return entry


def test_the_catalog_names_the_standard_benchmarks_with_their_published_checksums() -> None:
    entries = standard_benchmarks()
    assert len(entries) >= 23
    wanted = [
        "MMBench_DEV_EN",
        "MME",
        "MMMU_DEV_VAL",
        "MMStar",
        "SEEDBench_IMG",
        "POPE",
        "HallusionBench",
        "AI2D_TEST",
        "ChartQA_TEST",
        "TextVQA_VAL",
        "OCRBench",
        "MathVista_MINI",
        "RealWorldQA",
        "ScienceQA_TEST",
        "MMBench_TEST_EN",
        "VisIT-Bench",
        "TouchStone",
        "LLaVABench",
    ]
    assert {name for name in wanted if find_benchmark(name) is None} == set()
    mmbench = find_benchmark("mmbench_dev_en")
    assert mmbench is not None and mmbench.name == "MMBench_DEV_EN"
    # VLMEvalKit's own MD5 for the file (vlmeval/dataset/image_mcq.py)
    assert str(mmbench.checksum) == "md5 b6caf1133a01c6bb705cf753bb527ed8"
    assert mmbench.file_name == "MMBench_DEV_EN.tsv" and mmbench.format == "vlmeval"
    assert find_benchmark("LLaVA-Bench-in-the-wild") is find_benchmark("llavabench")
    visit = find_benchmark("visit-bench")
    assert visit is not None and visit.hub_file is not None and visit.hub_file.pinned
    assert visit.source == "hf:mlfoundations/VisIT-Bench@b28e559b2551" and visit.format == "visit"
    assert find_benchmark("mmbench_dev") is None
    assert close_names("mmbench_dev") == ["MMBench_DEV_EN", "MMBench_DEV_CN"]


def test_a_name_two_entries_share_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab_catalog(tmp_path, monkeypatch, "http://127.0.0.1/MME.tsv", "0" * 32)
    text = (tmp_path / "lab.toml").read_text(encoding="utf-8")
    (tmp_path / "lab.toml").write_text(text.replace("Lab_Bench", "mme"), encoding="utf-8")
    with pytest.raises(ValueError, match="'mme' names both MME and mme"):
        standard_benchmarks()


def test_offline_without_a_copy_says_what_to_download_and_where(
    monkeypatch: pytest.MonkeyPatch, caches: Path
) -> None:
    monkeypatch.setenv("LVLMBENCH_OFFLINE", "1")
    entry = find_benchmark("MME")
    assert entry is not None
    with pytest.raises(CatalogError) as caught:
        locate(entry)
    message = str(caught.value)
    assert "downloads are off (LVLMBENCH_OFFLINE=1)" in message
    assert "download https://opencompass.openxlab.space/utils/VLMEval/MME.tsv" in message
    assert "(md5 b36b43c3f09801f5d368627fb92187c3)" in message
    assert f"to {caches / 'cache' / 'benchmarks' / 'MME' / 'MME.tsv'}" in message
    assert "--file PATH" in message and str(caches / "LMUData" / "MME.tsv") in message
    assert "\n" not in message and not (caches / "cache").exists()


def test_a_hugging_face_snapshot_at_the_pinned_commit_is_read_offline(
    monkeypatch: pytest.MonkeyPatch, caches: Path
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    entry = find_benchmark("VisIT-Bench")
    assert entry is not None and entry.hub_file is not None
    snapshots = caches / "hub" / "datasets--mlfoundations--VisIT-Bench" / "snapshots"
    other = snapshots / ("0" * 40) / entry.hub_file.path
    other.parent.mkdir(parents=True)
    other.write_text("instruction\n", encoding="utf-8")
    with pytest.raises(CatalogError, match="huggingface-cli download mlfoundations/VisIT-Bench"):
        locate(entry)  # another commit's snapshot is not the pinned file
    pinned = snapshots / entry.hub_file.revision / entry.hub_file.path
    pinned.parent.mkdir(parents=True)
    pinned.write_text("instruction\n", encoding="utf-8")
    found = locate(entry)
    assert (found.origin, found.path, found.verified) == ("huggingface", pinned, None)


def test_vlmevalkits_copy_counts_only_when_its_md5_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caches: Path
) -> None:
    lab_catalog(tmp_path, monkeypatch, "http://127.0.0.1:9/Lab.tsv", hashlib.md5(BODY).hexdigest())
    monkeypatch.setenv("LVLMBENCH_OFFLINE", "1")
    entry = find_benchmark("lab_bench")
    assert entry is not None
    copy = caches / "LMUData" / "Lab_Bench.tsv"
    copy.parent.mkdir()
    copy.write_bytes(BODY + b"2\tedited\tno\n")
    edited = hashlib.md5(BODY + b"2\tedited\tno\n").hexdigest()
    with pytest.raises(CatalogError) as caught:
        locate(entry)
    assert (
        f"Lab_Bench is not on this machine (not the published file: {copy} has md5 {edited})"
        in str(caught.value)
    )
    copy.write_bytes(BODY)
    found = locate(entry)
    assert (found.origin, found.path, str(found.verified)) == (
        "lmudata",
        copy,
        f"md5 {hashlib.md5(BODY).hexdigest()}",
    )


def test_a_users_file_with_the_wrong_checksum_is_refused_and_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = _lab_entry(tmp_path, monkeypatch, "http://127.0.0.1:9/Lab.tsv")
    mine = tmp_path / "mine.tsv"
    mine.write_bytes(BODY[:-1])
    with pytest.raises(CatalogError) as caught:
        locate(entry, file=mine)
    assert f"expected md5 {hashlib.md5(BODY).hexdigest()}" in str(caught.value)
    assert f"got {hashlib.md5(BODY[:-1]).hexdigest()}" in str(caught.value)
    assert mine.read_bytes() == BODY[:-1]
    mine.write_bytes(BODY)
    assert locate(entry, file=mine).origin == "file"


def test_a_download_is_verified_cached_and_not_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heard: list[tuple[int, int | None]] = []
    with RecordingServer() as server:
        entry = _lab_entry(tmp_path, monkeypatch, f"{server.url}/Lab.tsv")
        server.reply(BODY)
        found = locate(entry, on_progress=lambda done, total: heard.append((done, total)))
        assert found.origin == "download" and found.path == cached_file(entry)
        assert found.path.read_bytes() == BODY and heard[-1] == (len(BODY), len(BODY))
        record = json.loads(found.path.with_name("Lab_Bench.tsv.verified.json").read_text())
        assert record["md5"] == hashlib.md5(BODY).hexdigest()
        assert record["sha256"] == hashlib.sha256(BODY).hexdigest()
        again = locate(entry)
        assert again.origin == "cache" and len(server.requests) == 1


def test_a_checksum_mismatch_removes_the_download_and_names_both_digests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with RecordingServer() as server:
        entry = _lab_entry(tmp_path, monkeypatch, f"{server.url}/Lab.tsv")
        server.reply(BODY.replace(b"yes", b"no!"))
        with pytest.raises(CatalogError) as caught:
            locate(entry)
    message = str(caught.value)
    assert f"expected md5 {hashlib.md5(BODY).hexdigest()}" in message
    assert f"got {hashlib.md5(BODY.replace(b'yes', b'no!')).hexdigest()}" in message
    folder = cached_file(entry).parent
    assert sorted(p.name for p in folder.iterdir()) == []


def test_a_broken_off_download_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with RecordingServer() as server:
        entry = _lab_entry(tmp_path, monkeypatch, f"{server.url}/Lab.tsv")
        server.reply(BODY, cut_after=500)
        with pytest.raises(CatalogError, match=r"broke off after 500 bytes.*run the same command"):
            locate(entry)
        part = cached_file(entry).with_name("Lab_Bench.tsv.part")
        assert part.read_bytes() == BODY[:500] and not cached_file(entry).exists()
        server.reply(BODY[500:], status=206)
        found = locate(entry)
        assert server.last.headers["range"] == "bytes=500-"
    assert found.path.read_bytes() == BODY and not part.exists()


def test_a_server_that_ignores_the_range_sends_the_whole_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with RecordingServer() as server:
        entry = _lab_entry(tmp_path, monkeypatch, f"{server.url}/Lab.tsv")
        part = cached_file(entry).with_name("Lab_Bench.tsv.part")
        part.parent.mkdir(parents=True)
        part.write_bytes(b"garbage from an older try")
        server.reply(BODY)  # 200, not 206: the part is dropped, not appended to
        assert locate(entry).path.read_bytes() == BODY


def test_a_cached_file_changed_since_it_was_verified_is_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with RecordingServer() as server:
        entry = _lab_entry(tmp_path, monkeypatch, f"{server.url}/Lab.tsv")
        server.reply(BODY)
        path = locate(entry).path
        path.write_bytes(BODY + b"tampered\n")
        server.reply(BODY)
        found = locate(entry)
        assert found.origin == "download" and len(server.requests) == 2
    assert found.path.read_bytes() == BODY


def test_without_a_published_checksum_the_first_downloads_sha256_is_held_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caches: Path
) -> None:
    monkeypatch.setenv("LVLMBENCH_OFFLINE", "1")
    entry = find_benchmark("TouchStone")
    assert entry is not None and entry.checksum is None
    path = cached_file(entry)
    path.parent.mkdir(parents=True)
    path.write_bytes(BODY)
    first = locate(entry)
    assert str(first.verified) == f"sha256 {hashlib.sha256(BODY).hexdigest()}"
    path.write_bytes(BODY + b"changed\n")
    with pytest.raises(CatalogError, match="TouchStone is not on this machine"):
        locate(entry)  # not the file first recorded: removed, and offline nothing replaces it
    assert not path.exists()
