"""item_lookup: finding imported items by row key, index, and (image, instruction) as prediction
and vote files name them."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from lvlmbench.datasets import image_name, import_dataset, item_lookup
from lvlmbench.store import Store

BASE = "https://visit-bench.s3.example.com/images/"


def test_image_name_strips_url_and_query() -> None:
    assert image_name(BASE + "a%20dog.jpg?v=2") == "a dog.jpg"
    assert image_name("sub\\dir\\cat.png") == "cat.png"
    assert image_name("cat.png") == "cat.png"


def test_lookup_by_key_index_and_image_instruction(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    path = tmp_path / "visit.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["instruction", "image", "image_url", "reference_output"])
        writer.writerow(["Describe  the\nscene.", BASE + "1.jpg", BASE + "1.jpg", "r1"])
        writer.writerow(["Describe the scene.", BASE + "1.jpg", BASE + "1.jpg", "r2"])
        writer.writerow(["Count the cats.", BASE + "2.jpg", BASE + "2.jpg", "r3"])
    import_dataset(store, path, "visit", "v")
    lookup = item_lookup(store, "v")
    assert len(lookup) == 3
    first = lookup.by_key("row-1")
    assert first is not None and first.reference == "r1"
    assert first.meta["source_key"] == "row-1"
    # The repeated (image, instruction) pair: both rows, in file order; whitespace and the
    # URL-vs-file-name spelling do not matter.
    pair = lookup.by_image_and_instruction("1.jpg", "Describe the scene.")
    assert [i.reference for i in pair] == ["r1", "r2"]
    assert [
        i.reference for i in lookup.by_image_and_instruction(BASE + "2.jpg", "Count the cats.")
    ] == ["r3"]
    assert lookup.by_image_and_instruction("2.jpg", "Describe the scene.") == []
    assert lookup.by_key("row-9") is None

    tsv = tmp_path / "mmb.tsv"
    tsv.write_text(
        "index\tquestion\tA\tB\tanswer\timage\n"
        f"7\tWhich?\tx\ty\tA\t{b64('red')}\n"
        f"1000007\tWhich?\ty\tx\tB\t7\n"
    )
    import_dataset(store, tsv, "vlmeval", "mmb")
    lookup = item_lookup(store, "mmb")
    base = lookup.by_index(7)
    assert base is not None and base.answer == "A"
    assert lookup.by_index("7.0") is base
    circular = lookup.by_index("1000007")
    assert circular is not None and circular.answer == "B" and circular.images == base.images
