"""Importing a VLMEvalKit prediction .xlsx at MMBench size, and scoring it.

Builds a VLMEvalKit-style benchmark of ``--questions`` four-option questions, each with three
CircularEval copies (index + k * 1,000,000), so 4x rows in all (MMBench DEV EN has 4,329
questions, about 17k rows), writes a ``{model}_{dataset}.xlsx`` prediction file for it, then
times ``import_predictions`` (read, join, extract, store) and the accuracy + CircularEval
tables. Prints the figures; asserts nothing.
Run: ``.venv/bin/python bench/bench_predictions.py [--questions 4329]``.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import openpyxl
from figures import emit

from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.choice.vlmeval_scores import circular_table
from lvlmbench.datasets.importers import item_id
from lvlmbench.datasets.predictions import import_predictions
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

BENCH = "MMBench_DEV_EN"
LETTERS = "ABCD"


def build(store: Store, questions: int, rng: random.Random) -> list[tuple[int, str]]:
    """Items of the benchmark and (index, key) of every row."""
    items, keys = [], []
    for base in range(1, questions + 1):
        key = rng.choice(LETTERS)
        for k in range(4):
            index = base + k * 1_000_000
            rotated = LETTERS[(LETTERS.index(key) - k) % 4]
            options = {letter: f"option {letter} of {base}" for letter in LETTERS}
            items.append(
                BenchmarkItem(
                    id=item_id(BENCH, str(index)),
                    benchmark=BENCH,
                    question=f"Question {base}?",
                    kind="mc",
                    options=options,
                    answer=rotated,
                    category="attribute",
                    meta={"index": str(index), "l2_category": "perception"},
                )
            )
            keys.append((index, rotated))
    put_items(store, items)
    put_benchmark(store, BENCH, "vlmeval", {"format": "vlmeval", "sources": [f"{BENCH}.tsv"]})
    return keys


def write_predictions(path: Path, keys: list[tuple[int, str]], rng: random.Random) -> None:
    workbook = openpyxl.Workbook()  # not write_only: pandas' files carry their dimensions
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["index", "question", "A", "B", "C", "D", "answer", "prediction"])
    for index, key in keys:
        answer = key if rng.random() < 0.8 else rng.choice(LETTERS)
        text = answer if rng.random() < 0.7 else f"The answer is {answer}."
        sheet.append([index, "q", "a", "b", "c", "d", key, text])
    workbook.save(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=4329)
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(str(Path(tmp) / "s.db"))
        keys = build(store, args.questions, rng)
        path = Path(tmp) / f"MyVLM_{BENCH}.xlsx"
        write_predictions(path, keys, rng)
        started = time.perf_counter()
        summary = import_predictions(store, path, BENCH)
        import_s = time.perf_counter() - started
        started = time.perf_counter()
        accuracy_table(store, BENCH, ["l2_category"])
        [circular] = circular_table(store, BENCH)
        score_s = time.perf_counter() - started
        store.close()
    rows = len(keys)
    print(f"{rows} rows ({args.questions} questions x 4 circular copies), {summary.ok} ok")
    print(f"import_predictions: {import_s:.2f} s ({rows / import_s:,.0f} rows/s)")
    print(f"accuracy + CircularEval tables: {score_s:.2f} s")
    print(
        f"per-row {100 * circular.row_accuracy:.1f}%, circular "
        f"{100 * circular.circular_accuracy:.1f}%"
    )
    emit("predictions", "import .xlsx rows/s", rows / import_s, "rows/s", "", None)
    emit("predictions", "accuracy + circular tables", score_s, "s", "", None)


if __name__ == "__main__":
    main()
