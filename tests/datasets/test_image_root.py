"""--image-root: URL and file-name images found by file name in a folder of downloads, images
still missing failing per item with a reason naming the file, and MMMU's <image N>
placeholders placing images where the text says."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import dataset_layouts as layouts
import pytest
import typer
from typer.testing import CliRunner

from lvlmbench.cli.importing import import_dataset as import_command
from lvlmbench.datasets import DatasetError, import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import item_messages, run_examinee
from lvlmbench.runner._messages import interleave
from lvlmbench.store import Store, iter_items, iter_responses, list_benchmarks
from lvlmbench.types import ImagePart, Status, TextPart

PNG = Callable[..., bytes]
B64 = Callable[[str], str]
app = typer.Typer()
app.command("import")(import_command)
app.command("noop", hidden=True)(lambda: None)
runner = CliRunner()


def _downloads(tmp_path: Path, png: PNG) -> Path:
    root = tmp_path / "downloads"
    (root / "Animals").mkdir(parents=True)
    (root / "Animals" / "dog 1.jpg").write_bytes(png("grey"))  # the URL's name, unquoted
    (root / "sofa.png").write_bytes(png("blue"))
    return root


def test_urls_found_under_image_root(tmp_path: Path, store: Store, png: PNG) -> None:
    path = layouts.visit_single(tmp_path / "visit.csv")
    root = _downloads(tmp_path, png)
    summary = import_dataset(store, path, name="v", image_root=root)
    assert summary.urls_not_fetched == [] and summary.images_from_root == 3
    assert summary.image_root == str(root)
    dog, sofa, repeat = iter_items(store, "v")
    # One picture although image and image_url both name it; the URL kept for joins.
    assert [store.read_image(h) for h in dog.images] == [png("grey")]
    assert dog.meta["image_sources"] == [layouts.S3 + "Animals/dog%201.jpg"]
    assert "image_urls" not in dog.meta and repeat.images == dog.images
    assert [store.read_image(h) for h in sofa.images] == [png("blue")]
    # Same ids as an import without the root, so responses and votes still line up.
    assert dog.id == item_id("v", "row-1")


def test_image_root_must_be_a_folder(tmp_path: Path, store: Store) -> None:
    path = layouts.visit_single(tmp_path / "visit.csv")
    with pytest.raises(DatasetError, match=r"nowhere: --image-root: expected a folder"):
        import_dataset(store, path, name="v", image_root=tmp_path / "nowhere")
    assert list_benchmarks(store) == []


async def test_missing_image_fails_per_item_naming_the_file(
    tmp_path: Path, store: Store, png: PNG
) -> None:
    path = layouts.llava_bench(tmp_path / "llava", png)
    summary = import_dataset(store, path, name="llava")
    assert summary.images_missing == ["002.jpg"]
    client = ModelClient(load_chat_model("baseline/random"), store)
    result = await run_examinee(store, "llava", client)
    assert (result.ok, result.failed) == (2, 1)
    (failed,) = [
        r for r in iter_responses(store, model="baseline/random") if r.status is not Status.OK
    ]
    assert failed.item_id == item_id("llava", "2") and failed.status is Status.ERROR
    assert failed.reason is not None and "002.jpg" in failed.reason
    assert "--image-root" in failed.reason
    # Downloading it and re-importing with --image-root fixes the item in place.
    root = tmp_path / "fetched"
    root.mkdir()
    (root / "002.jpg").write_bytes(png("green"))
    again = import_dataset(store, path, name="llava", image_root=root)
    assert (again.items_added, again.items_updated, again.images_missing) == (0, 1, [])
    retry = await run_examinee(store, "llava", client)
    assert retry.failed == 0


def test_interleave_places_images_at_placeholders() -> None:
    assert interleave("Compare <image 1> and <image 2>.", ["i1", "i2"]) == [
        "Compare ",
        "i1",
        " and ",
        "i2",
        ".",
    ]
    assert interleave("No placeholders.", ["i1", "i2"]) == ["i1", "i2", "No placeholders."]
    # An image the text never names goes first; a placeholder past the images stays text.
    assert interleave("See <image 2> and <image 3>", ["i1", "i2"]) == [
        "i1",
        "See ",
        "i2",
        " and <image 3>",
    ]


def test_mmmu_message_places_images_where_the_text_says(
    tmp_path: Path, store: Store, png: PNG, b64: B64
) -> None:
    path = layouts.mmmu(tmp_path / "MMMU_DEV_VAL.tsv", b64)
    import_dataset(store, path, name="mmmu")
    choice = next(iter_items(store, "mmmu"))
    (message,) = item_messages(store)(choice)
    kinds = [type(p).__name__ for p in message.content]
    assert kinds[:3] == ["TextPart", "ImagePart", "TextPart"]
    first, second = (p for p in message.content if isinstance(p, ImagePart))
    assert first.read_bytes() == png("red") and second.read_bytes() == png("blue")
    texts = [p.text for p in message.content if isinstance(p, TextPart)]
    assert texts[0] == "Compare " and "<image" not in "".join(texts)
    # The blue image sits where option I names it, after the text of option H.
    position = message.content.index(second)
    assert "eight" in texts[1] and position == len(message.content) - 2


def test_cli_detects_format_and_uses_image_root(tmp_path: Path, png: PNG) -> None:
    path = layouts.visit_single(tmp_path / "visit.csv")
    root = _downloads(tmp_path, png)
    db = str(tmp_path / "cli.db")
    result = runner.invoke(app, ["import", str(path), "--store", db, "--image-root", str(root)])
    assert result.exit_code == 0, result.output
    assert "detected format visit" in result.output
    assert "3 image(s) found under --image-root" in result.output
    again = ["import", str(path), "--store", db, "--json", "--image-root", str(root)]
    summary = json.loads(runner.invoke(app, again).output)
    assert summary["format"] == "visit" and summary["items_unchanged"] == 3


def test_cli_bad_file_exits_2_and_store_is_unchanged(tmp_path: Path, b64: B64) -> None:
    db = str(tmp_path / "cli.db")
    good = layouts.mme(tmp_path / "MME.tsv", b64)
    assert runner.invoke(app, ["import", str(good), "--store", db]).exit_code == 0
    bad = layouts.write_table(
        tmp_path / "MME.tsv",
        [
            ["index", "category", "image_path", "question", "answer", "image"],
            ["0", "color", "c.png", "Is it red?", "Yes", b64("red")],
            ["1", "color", "c.png", "", "No", "0"],
        ],
        "\t",
    )
    result = runner.invoke(app, ["import", str(bad), "--store", db])
    assert result.exit_code == 2
    flat = " ".join(result.output.split())
    assert "MME.tsv, row 2 (line 3), column 'question'" in flat
    odd = layouts.write_table(tmp_path / "odd.tsv", [["x", "y"]], "\t")
    unknown = runner.invoke(app, ["import", str(odd), "--store", db])
    assert unknown.exit_code == 2 and "not a recognised format" in unknown.output
    store = Store.open(db)
    try:
        items = list(iter_items(store, "MME"))
        assert [i.question for i in items][:2] == [
            "Is the square red? Please answer yes or no.",
            "Is the square blue? Please answer yes or no.",
        ] and len(items) == 3
    finally:
        store.close()
