"""Small datasets and prediction files in their projects' real layouts, written by hand for the
prediction-import and VLMEvalKit-scoring tests.

MMBench-like DEV set (VLMEvalKit MCQ TSV) with CircularEval copies: a copy's index is the base
index + k * 1,000,000, its options are rotated, and its ``image`` cell holds the base row's
index instead of base64. MME-like set (VLMEvalKit Y/N TSV): two questions per picture, the
second row's ``image`` cell is the first row's index.
"""

from __future__ import annotations

import base64
import csv
import io
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

MMB_HEADER = ["index", "question", "hint", "A", "B", "C", "D", "answer", "category"]
MMB_HEADER += ["image", "source", "l2-category", "split"]

# (index, question, options A-D ("nan" = absent), answer, l2-category); copies rotate options.
MMB_ROWS: list[tuple[int, str, Sequence[str], str, str]] = [
    (1, "What colour is the car?", ("red", "blue", "green", "nan"), "A", "perception"),
    (2, "How many cats?", ("one", "two", "nan", "nan"), "B", "reasoning"),
    (3, "Is it day or night?", ("day", "night", "nan", "nan"), "A", "reasoning"),
    (1000001, "What colour is the car?", ("blue", "green", "red", "nan"), "C", "perception"),
    (2000001, "What colour is the car?", ("green", "red", "blue", "nan"), "B", "perception"),
    (1000002, "How many cats?", ("two", "one", "nan", "nan"), "A", "reasoning"),
    (1000003, "Is it day or night?", ("night", "day", "nan", "nan"), "B", "reasoning"),
]

# Predictions of "MyVLM" (hand-worked in the tests): question 1 right in all three copies,
# question 2 wrong in its copy, question 3's copy has no prediction (an empty cell).
MMB_PREDICTIONS = {
    1: "A",
    2: "B",
    3: "A",
    1000001: "C",
    2000001: "The answer is B.",
    1000002: "B",
    1000003: None,
}

# (index, category, image_path, question, answer, colour of the picture)
MME_ROWS = [
    (1, "color", "a.jpg", "Is the car red? Please answer yes or no.", "Yes", "red"),
    (2, "color", "a.jpg", "Is the car blue? Please answer yes or no.", "No", "red"),
    (3, "color", "b.jpg", "Is the sky blue? Please answer yes or no.", "Yes", "blue"),
    (4, "color", "b.jpg", "Is the sky green? Please answer yes or no.", "No", "blue"),
    (5, "OCR", "c.jpg", "Does the sign say STOP? Please answer yes or no.", "Yes", "green"),
    (6, "OCR", "c.jpg", "Does the sign say GO? Please answer yes or no.", "No", "green"),
]
MME_PREDICTIONS = {1: "Yes", 2: "No", 3: "Yes", 4: "Yes", 5: "No", 6: "No"}

# MME's categories as VLMEvalKit's MME_rating sums them (``super_cates`` in yorn.py).
MME_PERCEPTION_CATEGORIES = (
    *("OCR", "artwork", "celebrity", "color", "count", "existence"),
    *("landmark", "position", "posters", "scene"),
)
MME_REASONING_CATEGORIES = (
    *("code_reasoning", "commonsense_reasoning", "numerical_calculation", "text_translation"),
)


def mme_category_rows(categories: Sequence[str]) -> list[tuple[int, str, str, str, str, str]]:
    """MME_ROWS-style rows for ``categories``: two pictures each, two questions per picture
    (a "Yes" one, then a "No" one), indexes from 1 in that order."""
    rows = []
    for category in categories:
        for picture in (1, 2):
            for answer, colour in (("Yes", "red"), ("No", "blue")):
                question = f"Is {category} picture {picture} {colour}? Please answer yes or no."
                image_path = f"{category}/{picture:04d}.png"
                rows.append((len(rows) + 1, category, image_path, question, answer, "red"))
    return rows


_COLOURS = {"red": (250, 0, 0), "blue": (0, 0, 250), "green": (0, 250, 0)}


def b64_image(colour: str) -> str:
    image = Image.new("RGB", (8, 6), _COLOURS[colour])
    image.putpixel((1, 1), (1, 2, 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def write_tsv(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def mmbench_rows(with_answer: bool = True) -> list[list[object]]:
    rows: list[list[object]] = []
    for index, question, options, answer, l2 in MMB_ROWS:
        base = index % 1_000_000
        image = b64_image("red" if base == 1 else "blue" if base == 2 else "green")
        row: list[object] = [index, question, "nan", *options]
        row += [answer] if with_answer else []
        row += ["attribute", image if index == base else str(base), "made-up", l2, "dev"]
        rows.append(row)
    return rows


def write_mmbench(path: Path) -> Path:
    return write_tsv(path, MMB_HEADER, mmbench_rows())


def write_mme(
    path: Path,
    with_image_path: bool = False,
    rows_in: Sequence[tuple[int, str, str, str, str, str]] = MME_ROWS,
) -> Path:
    """MME as VLMEvalKit ships it (``rows_in``: MME_ROWS, or :func:`mme_category_rows`).
    ``with_image_path`` adds the ``image_path`` column (a name for dumped images, not a
    file); off by default while the VLMEvalKit importer still reads that column as a path (the
    dataset-import work makes it a name)."""
    header = ["index", "category", "image_path", "question", "answer", "image"]
    first: dict[str, int] = {}
    rows = []
    for index, category, image_path, question, answer, colour in rows_in:
        shared = first.setdefault(image_path, index)
        image = b64_image(colour) if shared == index else str(shared)
        rows.append([index, category, image_path, question, answer, image])
    if not with_image_path:
        header.remove("image_path")
        rows = [[v for i, v in enumerate(row) if i != 2] for row in rows]
    return write_tsv(path, header, rows)


def write_xlsx(path: Path, header: Sequence[str], rows: Sequence[Sequence[object]]) -> Path:
    """An .xlsx as pandas ``to_excel(index=False)`` writes it: integers stay numbers, NaN and
    None become empty cells."""
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(list(header))
    for row in rows:
        sheet.append([None if v is None else v for v in row])
    workbook.save(path)
    return path


def mmbench_prediction_rows(extra: Sequence[Sequence[object]] = ()) -> list[list[object]]:
    """The dataset's rows minus ``image``, plus ``prediction`` (VLMEvalKit inference.py)."""
    image_at = MMB_HEADER.index("image")
    rows = []
    for row in mmbench_rows():
        index = row[0]
        assert isinstance(index, int)
        kept = [None if v == "nan" else v for i, v in enumerate(row) if i != image_at]
        rows.append([*kept, MMB_PREDICTIONS[index]])
    rows.extend(list(r) for r in extra)
    return rows


MMB_PREDICTION_HEADER = [c for c in MMB_HEADER if c != "image"] + ["prediction"]
