"""Hostile and big files (issue 24, items 1-5): every one is answered with one line naming the
file (and row) and exit code 2 (HTTP 4xx on the web), and the store keeps every row it had.

Each hostile file is built here, in the test's folder: deeply nested JSON, a CSV with 100,000
columns, a zip-bomb workbook, image paths leading out of the dataset's folder, an image root at
the top of the disk; and a file whose bad row comes after thousands of good ones.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import openpyxl
import pytest
from cli_runs import store_state
from fastapi.testclient import TestClient
from pngs import solid_png
from typer.testing import CliRunner
from web.conftest import CHOICE, LOCAL, build_store

from lvlmbench.cli import app
from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.importers import _image_root, _json_files
from lvlmbench.datasets.importers._write import BATCH, write_items
from lvlmbench.datasets.importers.jsonl import parse_jsonl
from lvlmbench.ids import MAX_JSON_DEPTH, JSONTooDeep, load_json
from lvlmbench.store import Store, get_benchmark, iter_items, iter_responses
from lvlmbench.web import WebSettings, create_app

runner = CliRunner()
_PROGRESS = ("validating ", "importing ")
DEEP = 100_000  # far past Python's ~1,000-level recursion limit


def _nested(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store already holding benchmark "good" (one item with a picture) to be kept intact."""
    (tmp_path / "good.png").write_bytes(solid_png((10, 200, 10)))
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"id": "q1", "question": "Colour?", "image": "good.png"}) + "\n")
    path = tmp_path / "store.db"
    result = runner.invoke(app, ["import", str(good), "--store", str(path)])
    assert result.exit_code == 0, result.output
    return path


def _refused(db: Path, *args: str) -> str:
    """Run ``lvlmbench ARGS --store DB``: it must exit 2 with one line and no traceback, and
    leave every row of the store (and every image file) as it was; the line."""
    before = store_state(db)
    assert before["items"] and before["images/"]  # something there to be lost
    result = runner.invoke(app, [*args, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    # stderr holds the error and, above it, the progress bar of the validating pass
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if not line.startswith(_PROGRESS)]
    assert len(errors) == 1 and errors[0].startswith("error: "), lines
    assert store_state(db) == before
    return errors[0]


# -- 24.1 deeply nested JSON -------------------------------------------------------------------


def test_json_nesting_limit_is_exact_and_ignores_strings() -> None:
    deepest = _nested(MAX_JSON_DEPTH)
    assert load_json(deepest) == json.loads(deepest)
    inside = json.dumps({"text": "[" * 10_000, "list": [[1]]})
    assert load_json(inside)["text"] == "[" * 10_000
    with pytest.raises(JSONTooDeep, match=f"deeper than {MAX_JSON_DEPTH} levels"):
        load_json(_nested(MAX_JSON_DEPTH + 1))
    with pytest.raises(JSONTooDeep):
        load_json('{"a": ' + _nested() + "}")


def test_nested_jsonl_dataset_row(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "nested.jsonl"
    path.write_text(
        json.dumps({"question": "fine"}) + "\n" + '{"question": "q", "meta": ' + _nested() + "}\n"
    )
    for fmt in (["-f", "jsonl"], []):  # named and detected
        line = _refused(db, "import", str(path), *fmt)
        assert f"{path}, row 2: JSON nested deeper than {MAX_JSON_DEPTH} levels" in line


def test_nested_battles_array_names_the_battle(db: Path, tmp_path: Path) -> None:
    battle = {"A_model": "a", "B_model": "b", "image_url": "u", "instruction": "i", "engine": "j"}
    path = tmp_path / "battles.json"
    path.write_text(
        "[\n"
        + json.dumps({**battle, "auto_evaluation_result": ["a", "b"]})
        + ",\n"
        + json.dumps(battle)[:-1]
        + ', "auto_evaluation_result": '
        + _nested()
        + "}\n]"
    )
    line = _refused(db, "import", str(path), "-f", "battles", "--name", "good")
    assert f"{path}, row 2 (line 3): JSON nested deeper than {MAX_JSON_DEPTH}" in line


def test_nested_fastchat_and_prediction_lines(db: Path, tmp_path: Path) -> None:
    votes = tmp_path / "votes.jsonl"
    record = {"question_id": "q1", "model_a": "x", "model_b": "y", "winner": "tie"}
    votes.write_text(json.dumps(record)[:-1] + ', "conversation_a": ' + _nested() + "}\n")
    line = _refused(db, "import", str(votes), "-f", "fastchat-votes", "--name", "good")
    assert f"{votes}, row 1: JSON nested deeper than" in line
    predictions = tmp_path / "answers.jsonl"
    predictions.write_text(json.dumps({"id": "q1", "answer": "A"}) + "\n")
    predictions.write_text(predictions.read_text() + '{"id": "q1", "answer": ' + _nested() + "}\n")
    line = _refused(
        db, "import", str(predictions), "-f", "predictions", "--name", "good", "--model", "m"
    )
    assert f"{predictions}, row 2: JSON nested deeper than" in line


def test_nested_web_submission_is_a_4xx_naming_the_line(tmp_path: Path) -> None:
    built = build_store(tmp_path)
    try:
        before = len(list(iter_responses(built.store)))
        good = json.dumps({"item_id": built.choice_items[0].id, "text": "A"})
        body = (good + "\n" + '{"item_id": "x", "text": ' + _nested() + "}\n").encode()
        with TestClient(create_app(built.store, WebSettings()), base_url=LOCAL) as client:
            reply = client.post(
                f"/api/b/{CHOICE}/submissions?model=deep",
                content=body,
                headers={"content-type": "application/jsonl"},
            )
        assert reply.status_code == 422, reply.text
        assert reply.json() == {
            "errors": [
                f"line 2: JSON nested deeper than {MAX_JSON_DEPTH} levels (real files nest a "
                "few levels; is the file corrupt or hostile?)"
            ]
        }
        assert len(list(iter_responses(built.store))) == before
    finally:
        built.store.close()


# -- 24.2 a CSV with 100,000 columns ---------------------------------------------------------


def test_a_hundred_thousand_columns_are_refused_at_once(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "wide.csv"
    columns = ["instruction", "image", *(f"c{i}" for i in range(99_998))]
    path.write_text(",".join(columns) + "\n" + ",".join(["q", "good.png"] + [""] * 99_998))
    for fmt in (["-f", "visit"], []):
        line = _refused(db, "import", str(path), *fmt)
        assert f"{path}: the header has 100,000 columns; expected at most 1,000" in line


def test_duplicate_columns_are_found_in_a_wide_header(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "dupes.csv"
    columns = ["instruction", "image", *(f"c{i % 400}" for i in range(990))]
    path.write_text(",".join(columns) + "\n" + ",".join(["q", "good.png"] + [""] * 990))
    line = _refused(db, "import", str(path), "-f", "visit")
    assert "duplicate column(s) in the header: c0, c1, c10, c100," in line
    assert "(380 more)" in line  # 400 duplicated names, the first 20 shown


def test_a_header_line_too_long_to_hold_columns_is_refused_unparsed(
    db: Path, tmp_path: Path
) -> None:
    path = tmp_path / "commas.csv"
    path.write_text("instruction,image" + "," * (2 << 20) + "\nq,good.png\n")
    for fmt in (["-f", "visit"], []):
        line = _refused(db, "import", str(path), *fmt)
        assert f"{path}: the header row is longer than 1,048,576 characters" in line


def test_a_json_line_past_the_cell_limit_is_refused_unread(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_json_files, "MAX_CELL_CHARS", 1000)  # the real limit is 64 MiB
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"question": "short"}) + "\n" + json.dumps({"question": "x" * 2000}))
    line = _refused(db, "import", str(path), "-f", "jsonl")
    assert f"{path}, row 2: the line is longer than 1,000 bytes" in line


# -- 24.3 a zip-bomb workbook ----------------------------------------------------------------


def _workbook_with_sheet_padding(path: Path, padding_mib: int) -> Path:
    """A real prediction workbook (index, prediction) whose sheet XML carries ``padding_mib``
    MiB of whitespace: valid XML that deflates ~1,000-fold, a zip bomb's shape."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["index", "prediction"])
    sheet.append(["q1", "A"])
    plain = io.BytesIO()
    book.save(plain)
    with (
        zipfile.ZipFile(plain) as source,
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb,
    ):
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename != "xl/worksheets/sheet1.xml":
                bomb.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
                continue
            cut = data.index(b"<sheetData>")
            with bomb.open(info.filename, "w", force_zip64=True) as sink:
                sink.write(data[:cut])
                chunk = b" " * (1 << 20)
                for _ in range(padding_mib):
                    sink.write(chunk)
                sink.write(data[cut:])
    return path


def test_a_zip_bomb_workbook_is_refused_before_it_is_opened(db: Path, tmp_path: Path) -> None:
    path = _workbook_with_sheet_padding(tmp_path / "MyVLM_good.xlsx", 600)
    assert path.stat().st_size < 2 << 20  # under 2 MB on disk, 600 MiB inside
    for fmt in (["-f", "predictions"], []):
        line = _refused(db, "import", str(path), *fmt, "--name", "good")
        assert f"{path}: the workbook unzips to 600 MiB, over the limit of 512 MiB" in line
        assert "--max-unzipped-mb" in line


def test_the_unzip_limit_is_an_option_and_the_ratio_still_holds(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _workbook_with_sheet_padding(tmp_path / "MyVLM_good.xlsx", 20)
    line = _refused(db, "import", str(path), "--name", "good", "--max-unzipped-mb", "8")
    assert "unzips to 20 MiB, over the limit of 8 MiB" in line
    monkeypatch.setenv("LVLMBENCH_MAX_UNZIPPED_MB", "8")
    line = _refused(db, "import", str(path), "--name", "good")
    assert "over the limit of 8 MiB" in line
    # A limit raised for a trusted file does not let a 1,000-fold member through.
    line = _refused(db, "import", str(path), "--name", "good", "--max-unzipped-mb", "4096")
    assert "xl/worksheets/sheet1.xml expands" in line and "zip bomb?" in line


# -- 24.4 big files: all or nothing, distinct pictures counted --------------------------------


def test_a_bad_row_after_thousands_of_good_ones_stores_nothing(db: Path, tmp_path: Path) -> None:
    rows = 4 * BATCH + 7  # several batches' worth before the bad row
    (tmp_path / "shared.png").write_bytes(solid_png((200, 0, 0)))
    path = tmp_path / "long.jsonl"
    with path.open("w") as sink:
        for n in range(1, rows):
            sink.write(json.dumps({"id": f"r{n}", "question": "Red?", "image": "shared.png"}))
            sink.write("\n")
        sink.write(json.dumps({"id": "last", "question": "Red?", "image": "nowhere/x.png"}))
    line = _refused(db, "import", str(path))
    assert f"{path}, row {rows}, column 'image': image file not found" in line


def test_rows_sharing_a_picture_count_it_once(db: Path, tmp_path: Path) -> None:
    (tmp_path / "shared.png").write_bytes(solid_png((200, 0, 0)))
    (tmp_path / "other.png").write_bytes(solid_png((0, 0, 200)))
    path = tmp_path / "shared.jsonl"
    rows = [{"id": f"r{n}", "question": "Red?", "image": "shared.png"} for n in range(1500)]
    rows.append({"id": "two", "question": "Both?", "images": ["other.png", "shared.png"]})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = runner.invoke(app, ["import", str(path), "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["rows"], summary["items_added"], summary["images"]) == (1501, 1501, 2)
    store = Store.open(str(db))
    try:
        items = list(iter_items(store, "shared"))
        assert len(items) == 1501 and len({i.images[0] for i in items[:1500]}) == 1
    finally:
        store.close()


def test_an_import_cut_short_while_writing_is_not_complete_and_resumes(tmp_path: Path) -> None:
    (tmp_path / "p.png").write_bytes(solid_png((10, 200, 10)))
    path = tmp_path / "cut.jsonl"
    rows = 3 * BATCH
    path.write_text(
        "".join(
            json.dumps({"id": f"r{n}", "question": f"Q{n}?", "image": "p.png"}) + "\n"
            for n in range(rows)
        )
    )

    def killed_after(count: int):  # type: ignore[no-untyped-def]
        for n, item in enumerate(parse_jsonl(path)):
            if n == count:
                raise KeyboardInterrupt  # as a kill mid-write would stop it
            yield item

    store = Store.open(str(tmp_path / "s.db"))
    try:
        with pytest.raises(KeyboardInterrupt):
            write_items(store, "cut", "jsonl", path, killed_after(2 * BATCH + 3))
        assert get_benchmark(store, "cut") is None  # no benchmark: nothing looks complete
        summary = import_dataset(store, path)
        # the two full batches were written; the third, cut short, was not
        assert (summary.items_added, summary.items_unchanged) == (BATCH, 2 * BATCH)
        assert get_benchmark(store, "cut") is not None
        assert [i.meta["source_key"] for i in iter_items(store, "cut")] == [
            f"r{n}" for n in range(rows)
        ]
    finally:
        store.close()


def test_a_vlmeval_row_may_share_the_picture_of_a_row_further_down(tmp_path: Path) -> None:
    import base64

    header = "index\tquestion\tA\tB\tanswer\timage\n"
    red = base64.b64encode(solid_png((250, 0, 0))).decode()
    rows = ["7\tFirst?\tx\ty\tA\t9", *(f"{n}\tQ{n}?\tx\ty\tB\t{red}" for n in (8, 9))]
    path = tmp_path / "forward.tsv"
    path.write_text(header + "\n".join(rows) + "\n")
    store = Store.open(str(tmp_path / "s.db"))
    try:
        summary = import_dataset(store, path, "vlmeval")
        assert (summary.items_added, summary.images) == (3, 1)
        by_index = {i.meta["index"]: i for i in iter_items(store, "forward")}
        assert by_index["7"].images == by_index["9"].images and by_index["7"].images
        assert by_index["7"].meta["image_from_index"] == "9"
    finally:
        store.close()


def test_a_vlmeval_chain_of_shared_pictures_is_refused(db: Path, tmp_path: Path) -> None:
    import base64

    red = base64.b64encode(solid_png((250, 0, 0))).decode()
    rows = ["1\tA?\tx\ty\tA\t2", "2\tB?\tx\ty\tA\t3", f"3\tC?\tx\ty\tA\t{red}"]
    path = tmp_path / "chain.tsv"
    path.write_text("index\tquestion\tA\tB\tanswer\timage\n" + "\n".join(rows) + "\n")
    line = _refused(db, "import", str(path), "-f", "vlmeval")
    assert f"{path}, row 1 (line 2), column 'image': the image cell names row '2', whose" in line


# -- 24.5 image paths from an untrusted dataset ----------------------------------------------


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A picture outside the dataset's folder (``tmp_path/ds``)."""
    (tmp_path / "ds").mkdir()
    path = tmp_path / "outside_secret.png"
    path.write_bytes(solid_png((1, 2, 3)))
    return path


def _dataset(folder: Path, image: str, name: str = "untrusted") -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "What?", "image": image}) + "\n")
    return path


@pytest.mark.parametrize("how", ["relative", "absolute", "link"])
def test_image_paths_leading_out_of_the_folder_are_refused(
    db: Path, tmp_path: Path, secret: Path, how: str
) -> None:
    folder = tmp_path / "ds"
    image = {"relative": "../outside_secret.png", "absolute": str(secret)}.get(how, "inner.png")
    if how == "link":
        (folder / "inner.png").symlink_to(secret)
    path = _dataset(folder, image)
    line = _refused(db, "import", str(path))
    assert f"{path}, row 1, column 'image': image path" in line
    assert f"lies outside {folder.resolve()}" in line and "--allow-images-outside" in line
    result = runner.invoke(
        app, ["import", str(path), "--allow-images-outside", "--store", str(db), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["images"] == 1


def test_a_link_under_the_image_root_leading_out_is_refused(
    db: Path, tmp_path: Path, secret: Path
) -> None:
    root = tmp_path / "downloads"
    root.mkdir()
    (root / "pic.png").symlink_to(secret)
    path = _dataset(tmp_path / "ds", "http://example.com/a/pic.png")
    line = _refused(db, "import", str(path), "--image-root", str(root))
    assert "lies outside" in line and str(secret) in line


def test_a_system_image_root_is_refused(db: Path, tmp_path: Path) -> None:
    path = _dataset(tmp_path, "http://example.com/a/pic.png")
    for root in ("/", "/proc", "/usr/../etc"):
        line = _refused(db, "import", str(path), "--image-root", root)
        assert f"{root}: --image-root: refusing to search a system folder" in line


def test_the_image_root_search_stops_at_its_limit(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "big"
    for n in range(30):
        (root / f"sub{n}").mkdir(parents=True)
        (root / f"sub{n}" / f"{n}.png").write_bytes(b"")
    monkeypatch.setattr(_image_root, "MAX_ROOT_ENTRIES", 50)
    path = _dataset(tmp_path, "http://example.com/a/pic.png")
    line = _refused(db, "import", str(path), "--image-root", str(root))
    assert f"{root}: --image-root: more than 50 files and folders under it" in line
