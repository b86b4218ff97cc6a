"""VisIT-Bench CSV import: single- and multi-image rows, captions, human ratings, URLs that are
recorded (not fetched) and fail per item at evaluation time, concatenation, idempotency."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.runner import run_examinee
from lvlmbench.store import Store, get_benchmark, iter_items, iter_responses
from lvlmbench.types import Status

HEADER = [
    "instruction",
    "instruction_category",
    "image_1",
    "image_2_url",
    "instruction_conditioned_caption",
    "dense_caption",
    "reference_output",
    "human_ratings_gpt4_correct",
    "human_ratings_problem_in_caption",
    "public_images_metadata",
]
URL = "https://example.org/visit/dog.jpg"


def write_visit(tmp_path: Path, png: Callable[..., bytes], b64: Callable[[str], str]) -> Path:
    """Three rows: a path image, a multi-image row (path + base64), a URL-only row."""
    (tmp_path / "data" / "imgs").mkdir(parents=True)
    (tmp_path / "data" / "imgs" / "red.png").write_bytes(png("red"))
    (tmp_path / "data" / "imgs" / "blue.jpg").write_bytes(png("blue", fmt="JPEG"))
    path = tmp_path / "data" / "visit_small.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerow(
            [
                "What colour is the square?",
                "colour recognition",
                "imgs/red.png",
                "",
                "A red square with a dark pixel near the corner.",
                "A red square.",
                "The square is red.",
                "True",
                "False",
                '{"license": "cc-by"}',
            ]
        )
        writer.writerow(
            [
                "Which picture is darker?",
                "comparison",
                str(tmp_path / "data" / "imgs" / "blue.jpg"),
                b64("green"),
                "Left: a blue square. Right: a green square.",
                "",
                "The blue one.",
                "False",
                "True",
                "",
            ]
        )
        writer.writerow(
            ["Write a poem about the dog.", "poem", URL, "", "A dog.", "", "", "", "", ""]
        )
    return path


def test_visit_items_images_and_meta(
    tmp_path: Path, store: Store, png: Callable[..., bytes], b64: Callable[[str], str]
) -> None:
    path = write_visit(tmp_path, png, b64)
    summary = import_dataset(store, path, "visit")
    assert (summary.benchmark, summary.rows, summary.items_added) == ("visit_small", 3, 3)
    assert summary.images == 3 and summary.urls_not_fetched == [URL]
    items = list(iter_items(store, "visit_small"))
    assert [i.id for i in items] == [item_id("visit_small", f"row-{n}") for n in (1, 2, 3)]
    first, multi, web = items
    assert first.kind == "open" and first.question == "What colour is the square?"
    assert first.caption == "A red square with a dark pixel near the corner."
    assert first.reference == "The square is red." and first.category == "colour recognition"
    assert first.meta["dense_caption"] == "A red square."
    assert first.meta["human_ratings"] == {"gpt4_correct": True, "problem_in_caption": False}
    assert first.meta["public_images_metadata"] == '{"license": "cc-by"}'
    assert first.images == [hashlib.sha256(png("red")).hexdigest()]
    for digest in first.images + multi.images:
        assert hashlib.sha256(store.image_path(digest).read_bytes()).hexdigest() == digest
    assert len(multi.images) == 2
    assert multi.meta["image_sources"][1] == "base64"
    assert multi.images[1] == hashlib.sha256(png("green")).hexdigest()
    blue = Image.open(io.BytesIO(store.read_image(multi.images[0])))
    assert blue.size == (8, 6) and blue.getpixel((5, 4))[2] > 200  # type: ignore[index]
    assert web.images == [] and web.meta["image_urls"] == [URL]
    bench = get_benchmark(store, "visit_small")
    assert bench is not None and bench.kind == "visit" and bench.data.items == 3


def test_visit_reimport_is_idempotent(
    tmp_path: Path, store: Store, png: Callable[..., bytes], b64: Callable[[str], str]
) -> None:
    path = write_visit(tmp_path, png, b64)
    import_dataset(store, path, "visit", "vb")
    before = [i.model_dump() for i in iter_items(store, "vb")]
    again = import_dataset(store, path, "visit", "vb")
    assert (again.items_added, again.items_updated, again.items_unchanged) == (0, 0, 3)
    assert [i.model_dump() for i in iter_items(store, "vb")] == before


def test_visit_concat_images_for_single_image_models(
    tmp_path: Path, store: Store, png: Callable[..., bytes], b64: Callable[[str], str]
) -> None:
    path = write_visit(tmp_path, png, b64)
    import_dataset(store, path, "visit", "plain")
    summary = import_dataset(store, path, "visit", "joined", concat_images=True)
    assert summary.concatenated == 1
    plain_single, plain, _ = iter_items(store, "plain")
    joined_single, joined, _ = iter_items(store, "joined")
    assert len(joined.images) == 1 and joined.meta["original_images"] == plain.images
    picture = Image.open(io.BytesIO(store.read_image(joined.images[0])))
    assert picture.size == (8 + 16 + 8, 6)
    # Single-image rows are left as they are.
    assert joined_single.images == plain_single.images
    # Turning concatenation on for an existing benchmark updates the stored items in place.
    update = import_dataset(store, path, "visit", "plain", concat_images=True)
    assert (update.items_added, update.items_updated) == (0, 1)
    assert list(iter_items(store, "plain"))[1].images == joined.images


async def test_url_only_item_fails_per_item_at_evaluation(
    tmp_path: Path, store: Store, png: Callable[..., bytes], b64: Callable[[str], str]
) -> None:
    path = write_visit(tmp_path, png, b64)
    import_dataset(store, path, "visit", "vb")
    client = ModelClient(load_chat_model("baseline/random"), store)
    summary = await run_examinee(store, "vb", client)
    assert (summary.total, summary.ok, summary.failed) == (3, 2, 1)
    web = item_id("vb", "row-3")
    failed = [r for r in iter_responses(store, model="baseline/random") if r.item_id == web]
    assert len(failed) == 1 and failed[0].status is Status.ERROR
    assert failed[0].reason is not None and URL in failed[0].reason
    assert "not fetched" in failed[0].reason
    # Variants that do not show the image are unaffected.
    text_only = await run_examinee(store, "vb", client, variant="question-only")
    assert text_only.failed == 0 and text_only.ok == 3


PUBLISHED_MULTI = (
    "instruction_category,images,is_multiple_images,instruction,gpt4_prediction,"
    "images_dense_captions,images_blip2_captions,reference_output,human_ratings_gpt4_correct,"
    "human_ratings_problem_in_caption,human_ratings_problem_in_gpt4,public_images_metadata"
)


def test_visit_published_multi_image_layout(
    tmp_path: Path, store: Store, png: Callable[..., bytes]
) -> None:
    """The column layout of VisIT-Bench's multi-image CSV: a JSON list of images, one dense
    caption per image padded with NaN, and no instruction-conditioned caption."""
    (tmp_path / "before.png").write_bytes(png("red"))
    (tmp_path / "after.png").write_bytes(png("green"))
    row = [
        "rcc",
        '["before.png", "after.png"]',
        "True",
        "Find the differences between BEFORE and AFTER.",
        "The cube changed colour.",
        '["A red cube.", "A green cube.", NaN, NaN]',
        '["a cube", "a cube"]',
        "the cube changed to green",
        "True",
        "False",
        "False",
        "{}",
    ]
    path = tmp_path / "visit_bench_multi_images.csv"
    with path.open("w", newline="") as handle:
        handle.write(PUBLISHED_MULTI + "\n")
        csv.writer(handle).writerow(row)
    import_dataset(store, path, "visit", "multi")
    (item,) = iter_items(store, "multi")
    assert item.images == [hashlib.sha256(png(c)).hexdigest() for c in ("red", "green")]
    assert item.caption == "Image 1: A red cube.\nImage 2: A green cube."
    # The human-verified reference (GPT-4's answer, rated correct), not the source label.
    assert item.reference == "The cube changed colour." and item.category == "rcc"
    assert item.meta["reference_output"] == "the cube changed to green"
    assert item.meta["verified_reference"] is True
    assert item.meta["human_ratings"] == {
        "gpt4_correct": True,
        "problem_in_caption": False,
        "problem_in_gpt4": False,
    }
