"""Export → import round trip at a realistic size: N items with 512x512 PNG pictures (each
distinct, noisy so they do not compress away), four options and AutoBench-V-like meta.

Prints the seconds to export (Hub parquet + card + JSONL/images), to import the folder back into
a fresh store, the parquet's size against the pictures' bytes, and whether every item came back
equal (all fields but id/benchmark; the import adds meta.source_key).

Run: ``python bench/bench_export.py [--items N]``. Figures also go to ``$LVLMBENCH_BENCH_JSON``.
"""

from __future__ import annotations

import argparse
import io
import random
import tempfile
import time
from pathlib import Path

from figures import emit
from PIL import Image

from lvlmbench.datasets import export_hub, import_dataset
from lvlmbench.store import Store, iter_items, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

NAME = "export-bench"


def _picture(rng: random.Random) -> bytes:
    image = Image.effect_noise((512, 512), rng.uniform(20, 80)).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _fill(store: Store, count: int) -> int:
    rng = random.Random(0)
    items, picture_bytes = [], 0
    for index in range(count):
        data = _picture(rng)
        picture_bytes += len(data)
        items.append(
            BenchmarkItem(
                id=f"item-{index}",
                benchmark=NAME,
                question=f"Which object is left of the cube in scene {index}?",
                kind="mc",
                images=[store.put_image(data)],
                options={"A": "sphere", "B": "cone", "C": "torus", "D": "cylinder"},
                answer="ABCD"[index % 4],
                caption="A sphere left of a cube.",
                category="spatial understanding",
                meta={
                    "capability": "spatial understanding",
                    "difficulty": ("easy", "medium", "hard")[index % 3],
                    "alignment": 0.8,
                    "scene_seed": index,
                    "errors": [],
                },
            )
        )
    put_items(store, items)
    put_benchmark(store, NAME, "autobench", {"settings": {"seed": 0}})
    return picture_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        source = Store.open(str(root / "source.db"))
        picture_bytes = _fill(source, args.items)
        started = time.perf_counter()
        written = export_hub(source, NAME, root / "out")
        export_s = time.perf_counter() - started
        copy = Store.open(str(root / "copy.db"))
        started = time.perf_counter()
        import_dataset(copy, root / "out")
        import_s = time.perf_counter() - started
        original = [i.model_dump(exclude={"id", "benchmark"}) for i in iter_items(source, NAME)]
        back = [i.model_dump(exclude={"id", "benchmark"}) for i in iter_items(copy, NAME)]
        for item in back:
            item["meta"].pop("source_key")
        equal = back == original
        size = written.parquet.stat().st_size
        print(f"{args.items} items, {picture_bytes / 1e6:.1f} MB of pictures")
        print(f"export (parquet + card + JSONL/images): {export_s:.2f} s")
        print(f"import of the folder into a fresh store: {import_s:.2f} s")
        print(f"parquet: {size / 1e6:.1f} MB ({size / picture_bytes:.2f} x the pictures)")
        print(f"round trip equal: {equal}")
        emit("export", "export items/s", args.items / export_s, "items/s", "", None)
        emit("export", "import items/s", args.items / import_s, "items/s", "", None)
        emit("export", "round trip equal", float(equal), "", "1", equal)
        source.close()
        copy.close()


if __name__ == "__main__":
    main()
