"""Writers of small dataset files in the layouts the real projects publish (written for these
tests, never copied): VisIT-Bench single/multi-image CSV and its Hugging Face imagefolder
``metadata.csv``, TouchStone TSV, VLMEvalKit TSVs (MMBench DEV/TEST, SEEDBench, MME, MMMU) and
LLaVA-Bench ``questions.jsonl``. Tables go through the csv module with minimal quoting, as pandas
writes them: quoted cells with newlines, tabs and quotes, empty cells for NaN."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

S3 = "https://visit-bench.s3.example.com/data_dirs/"

B64 = Callable[[str], str]


def write_table(path: Path, rows: list[list[str]], delimiter: str = ",") -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return path


def visit_single(path: Path) -> Path:
    """The published single-image CSV: image and image_url repeat the URL (with a space in a
    folder name), TRUE/FALSE ratings, JSON metadata, a repeated (image, instruction) pair."""
    header = [
        "instruction_category",
        "instruction",
        "image",
        "image_url",
        "image_id",
        "reference_output",
        "gpt4_prediction",
        "instruction_conditioned_caption",
        "human_ratings_gpt4_correct",
        "human_ratings_problem_in_caption",
        "human_ratings_problem_in_gpt4",
        "public_images_metadata",
    ]
    dog, sofa = S3 + "Animals/dog%201.jpg", S3 + "Catchy Titles/sofa.png"
    meta = json.dumps({"license": "CC BY 2.0", "height": 6})
    return write_table(
        path,
        [
            header,
            [
                "Animals",
                "What is the dog doing?",
                dog,
                dog,
                "dog 1",
                "It runs.",
                "Running.",
                "A dog running on\ngrass.",
                "TRUE",
                "FALSE",
                "FALSE",
                meta,
            ],
            [
                "Catchy Titles",
                'Write a "catchy" title.',
                sofa,
                sofa,
                "sofa",
                "Star Sofa!",
                "Sofa time",
                "A sofa with stars.",
                "FALSE",
                "FALSE",
                "TRUE",
                meta,
            ],
            [
                "Animals",
                "What is the dog doing?",
                dog,
                dog,
                "dog 1",
                "Playing.",
                "Running.",
                "A dog running on\ngrass.",
                "TRUE",
                "FALSE",
                "FALSE",
                "",
            ],
        ],
    )


def visit_multi(path: Path) -> Path:
    """The published multi-image CSV: ``images`` a JSON list, dense captions padded with bare
    NaN (not strict JSON), an empty reference."""
    header = [
        "instruction_category",
        "images",
        "is_multiple_images",
        "instruction",
        "gpt4_prediction",
        "images_dense_captions",
        "images_blip2_captions",
        "reference_output",
        "human_ratings_gpt4_correct",
    ]
    pair = json.dumps([S3 + "multi/a.jpg", S3 + "multi/b.jpg"])
    return write_table(
        path,
        [
            header,
            [
                "Comparison",
                pair,
                "True",
                "Which is older?",
                "The left.",
                "['An old car.', 'A new car.', NaN, NaN]",
                "['a car', 'a car']",
                "The left one.",
                "True",
            ],
            [
                "Story",
                json.dumps([S3 + "multi/c.jpg"]),
                "False",
                "Tell a story.",
                "Once...",
                "['A castle.', NaN]",
                "['castle']",
                "",
                "False",
            ],
        ],
    )


def visit_hf_folder(root: Path, png: Callable[..., bytes]) -> Path:
    """The HF imagefolder layout: test/metadata.csv with file_name beside the images, the URL
    columns kept (and naming other files)."""
    folder = root / "test"
    folder.mkdir(parents=True)
    (folder / "0001.png").write_bytes(png("red"))
    (folder / "0002.png").write_bytes(png("blue"))
    return write_table(
        folder / "metadata.csv",
        [
            ["file_name", "instruction", "image", "image_url", "reference_output"],
            ["0001.png", "Name the colour.", S3 + "x/red.jpg", S3 + "x/red.jpg", "Red."],
            ["0002.png", "Name the colour.", S3 + "x/blue.jpg", S3 + "x/blue.jpg", "Blue."],
        ],
    )


def touchstone(path: Path, b64: B64) -> Path:
    """The dataset TSV: a quoted multi-line cell with a tab, Chinese text, an empty annotation."""
    return write_table(
        path,
        [
            [
                "index",
                "question",
                "human_annotation",
                "gpt4_ha_answer",
                "category",
                "task_name",
                "image",
            ],
            [
                "0",
                "What is\tshown?\nAnswer briefly.",
                "A red square.",
                "A red square.",
                "Basic Description",
                "Brief description",
                b64("red"),
            ],
            [
                "1",
                "图中是什么颜色？",
                "",
                "蓝色。",
                "Visual Recognition,Chinese",
                "colour",
                b64("blue"),
            ],
        ],
        "\t",
    )


def mmbench(path: Path, b64: B64, *, test: bool = False) -> Path:
    """MMBench DEV (or TEST: no answer column) with a CircularEval copy whose image cell is the
    base row's index and a NaN option."""
    header = [
        "index",
        "question",
        "hint",
        "A",
        "B",
        "C",
        "D",
        "answer",
        "category",
        "image",
        "source",
        "l2-category",
        "comment",
        "split",
    ]
    rows = [
        [
            "5",
            "Which colour is it?",
            "",
            "red",
            "blue",
            "green",
            "",
            "A",
            "colour",
            b64("red"),
            "synth",
            "perception",
            "",
            "dev",
        ],
        [
            "1000005",
            "Which colour is it?",
            "",
            "blue",
            "green",
            "red",
            "",
            "C",
            "colour",
            "5",
            "synth",
            "perception",
            "",
            "dev",
        ],
        [
            "6",
            "Is the square left?",
            "Look at the edge.",
            "yes",
            "no",
            "",
            "",
            "B",
            "position",
            b64("blue"),
            "synth",
            "reasoning",
            "",
            "dev",
        ],
    ]
    if test:
        drop = header.index("answer")
        header = header[:drop] + header[drop + 1 :]
        rows = [[c if c != "dev" else "test" for c in r[:drop] + r[drop + 1 :]] for r in rows]
    return write_table(path, [header, *rows], "\t")


def seedbench(path: Path, b64: B64) -> Path:
    """SEEDBench_IMG: answer first, no hint."""
    return write_table(
        path,
        [
            ["answer", "question", "A", "B", "C", "D", "image", "index", "category"],
            [
                "D",
                "How many squares?",
                "1",
                "2",
                "3",
                "4",
                b64("green"),
                "42",
                "Instances Counting",
            ],
        ],
        "\t",
    )


def mme(path: Path, b64: B64) -> Path:
    """MME: image_path a name that does not exist; the second question of an image references
    the first row's index in ``image``."""
    return write_table(
        path,
        [
            ["index", "category", "image_path", "question", "answer", "image"],
            [
                "0",
                "color",
                "color/0001.png",
                "Is the square red? Please answer yes or no.",
                "Yes",
                b64("red"),
            ],
            [
                "1",
                "color",
                "color/0001.png",
                "Is the square blue? Please answer yes or no.",
                "No",
                "0",
            ],
            [
                "2",
                "color",
                "color/0002.png",
                "Is the square blue? Please answer yes or no.",
                "Yes",
                b64("blue"),
            ],
        ],
        "\t",
    )


MME_CATEGORIES = [
    *("OCR", "artwork", "celebrity", "color", "count", "existence", "landmark", "position"),
    *("posters", "scene", "code_reasoning", "commonsense_reasoning", "numerical_calculation"),
    "text_translation",
]


def mme_all(path: Path, b64: B64) -> Path:
    """MME with every one of its 14 categories: one picture each and its two questions (yes,
    no), the second referencing the first row's index, as VLMEvalKit's TSV does."""
    rows = [["index", "category", "image_path", "question", "answer", "image"]]
    for k, category in enumerate(MME_CATEGORIES):
        first = str(2 * k)
        question = "Is the square red? Please answer yes or no."
        rows.append([first, category, f"{category}/1.png", question, "Yes", b64("red")])
        question = "Is the square blue? Please answer yes or no."
        rows.append([str(2 * k + 1), category, f"{category}/1.png", question, "No", first])
    return write_table(path, rows, "\t")


def mmmu(path: Path, b64: B64) -> Path:
    """MMMU: nine options (A-I), ``<image N>`` placeholders in question and option, the image
    cell a Python-literal list of base64 images, image_path a list of names."""
    options = ["one", "two", "three", "four", "five", "six", "seven", "eight", "<image 2>"]
    question = "Compare <image 1> with the other picture. How many are red?"
    images = repr([b64("red"), b64("blue")])
    names = repr(["validation_Art_1_1.png", "validation_Art_1_2.png"])
    return write_table(
        path,
        [
            [
                "index",
                "question",
                *"ABCDEFGHI",
                "answer",
                "category",
                "image",
                "image_path",
                "split",
            ],
            ["7001", question, *options, "I", "Art", images, names, "validation"],
            [
                "7002",
                "What is drawn in <image 1>?",
                *[""] * 9,
                "a square",
                "Art",
                b64("green"),
                "validation_Art_2_1.png",
                "validation",
            ],
        ],
        "\t",
    )


def llava_bench(folder: Path, png: Callable[..., bytes]) -> Path:
    """LLaVA-Bench in the wild: questions.jsonl naming files in images/, with the GPT-4 answers
    and the context captions beside it; one picture not downloaded."""
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "001.jpg").write_bytes(png("red", fmt="JPEG"))
    questions = [
        {"question_id": 0, "image": "001.jpg", "text": "What colour is it?", "category": "conv"},
        {
            "question_id": 1,
            "image": "001.jpg",
            "text": "Describe it in detail.",
            "category": "detail",
        },
        {"question_id": 2, "image": "002.jpg", "text": "什么动物？", "category": "complex"},
    ]
    answers = [{"question_id": 0, "text": "Red.", "answer_id": "x", "model_id": "gpt-4"}]
    context = [{"id": "c1", "image": "001.jpg", "caption": "A red square."}]
    for name, records in (
        ("questions", questions),
        ("answers_gpt4", answers),
        ("context", context),
    ):
        (folder / f"{name}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    return folder / "questions.jsonl"
