"""Write the peer benchmark's items as a ``datasets`` folder: ``make_dataset.py OUT_DIR N``.

Run with the peer venv's Python (it needs ``datasets``). The items match
bench/bench_orchestration.py's ``make_store``: four options, answer ``"ABCD"[i % 4]`` and one
64x64 red PNG each.
"""

from __future__ import annotations

import io
import sys

import datasets
from PIL import Image


def main() -> None:
    out, n = sys.argv[1], int(sys.argv[2])
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 40, 40)).save(buffer, format="PNG")
    png = buffer.getvalue()
    features = datasets.Features(
        {
            "id": datasets.Value("int64"),
            "question": datasets.Value("string"),
            "options": datasets.Sequence(datasets.Value("string")),
            "answer": datasets.Value("string"),
            "image": datasets.Image(),
        }
    )
    rows = {
        "id": list(range(n)),
        "question": [f"Question {i}: which shape is red?" for i in range(n)],
        "options": [["circle", "square", "star", "heart"]] * n,
        "answer": ["ABCD"[i % 4] for i in range(n)],
        "image": [{"bytes": png, "path": None}] * n,
    }
    test = datasets.Dataset.from_dict(rows, features=features)
    datasets.DatasetDict({"test": test}).save_to_disk(out)


if __name__ == "__main__":
    main()
