"""Prediction files in the layouts their projects define, read into :class:`Prediction` rows.

- VLMEvalKit (``vlmeval/inference.py``): the dataset's columns minus ``image``, plus
  ``prediction``; named ``{model}_{dataset}.xlsx`` (or ``.tsv``/``.csv``). Keyed by ``index``.
- VisIT-Bench submissions (README "How to add new models"): the dataset's columns plus one
  ``<model name> prediction`` column per model. Keyed by the picture (``image``/``image_url``, or
  the first of ``images``) and the instruction.
- TouchStone submissions (README "Format requirement"): the dataset's columns plus
  ``response``, with or without ``image``. Keyed by ``index``.
- JSONL: one object per line with ``id``/``index``/``question_id`` and the answer under
  ``answer``/``prediction``/``response``/``text`` (LLaVA's answer files: ``text`` and
  ``model_id``).
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import (
    DatasetError,
    Row,
    not_utf8,
    parse_list,
)
from lvlmbench.datasets.importers._json_files import iter_json_lines
from lvlmbench.datasets.predictions._tables import column_map, read_header, read_prediction_table
from lvlmbench.ids import load_json

__all__ = [
    "JSONL_ANSWER_FIELDS",
    "JSONL_KEY_FIELDS",
    "Prediction",
    "PredictionFile",
    "is_prediction_table",
    "looks_like_predictions",
    "parse_prediction_file",
]

VISIT_COLUMN = re.compile(r"^(?P<model>.+?)\s+prediction$", re.IGNORECASE)
"""VisIT-Bench's ``<model name> prediction`` (a space before "prediction"; the dataset's own
``gpt4_prediction`` column has an underscore and is not a submission)."""
JSONL_KEY_FIELDS = ("id", "index", "question_id")
JSONL_ANSWER_FIELDS = ("answer", "prediction", "response", "text")
_JSONL_MODEL_FIELDS = ("model_id", "model")
_MISSING = {"", "nan", "none", "null"}
_VISIT_IMAGES = ("image_url", "image", "images", "image_path")
_ITEM_FIELDS = {"question", "instruction", "image", "images", "image_url", "image_path"}


@dataclass(frozen=True)
class Prediction:
    """One model's answer on one row of a prediction file."""

    row: int
    line: int
    column: str
    """Where the answer came from (the column or JSON field)."""
    model: str | None
    """The name the file gives the model (None: the file names none)."""
    text: str | None
    """The answer; None when the cell is empty or NaN."""
    key: str
    """How the row names its item, for messages ("index 12", or picture + instruction)."""
    index: str | None = None
    image: str | None = None
    instruction: str | None = None


@dataclass
class PredictionFile:
    """Every prediction of one file and the layout it was read as."""

    path: Path
    layout: str
    """vlmeval, visit, touchstone or jsonl."""
    predictions: list[Prediction]


def is_prediction_table(columns: list[str]) -> bool:
    """Whether a table's header is a prediction file's (the detection rule for ``import``):
    a ``prediction`` or ``response`` column, or VisIT-Bench ``<model> prediction`` columns."""
    lowered = {c.strip().lower() for c in columns}
    return bool(lowered & {"prediction", "response"}) or any(
        VISIT_COLUMN.match(c.strip()) for c in columns
    )


def _answer(value: str) -> str | None:
    return None if value.strip().lower() in _MISSING else value


def _index_rows(
    path: Path, rows: list[Row], names: dict[str, str], answer: str, model: str | None
) -> list[Prediction]:
    index_column = names.get("index")
    if index_column is None:
        raise DatasetError(
            path,
            f"missing required column 'index' (the dataset's row key, beside {answer!r})",
            column="index",
        )
    found = []
    for row in rows:
        index = row.required(index_column, "the dataset row's index")
        found.append(
            Prediction(
                row=row.number,
                line=row.line,
                column=answer,
                model=model,
                text=_answer(row.cells.get(answer, "")),
                key=f"index {index}",
                index=index,
            )
        )
    return found


def _visit_image(row: Row, names: dict[str, str]) -> tuple[str, str]:
    for name in _VISIT_IMAGES:
        column = names.get(name)
        value = row.get(column) if column else ""
        if value:
            listed = parse_list(value)
            return column or name, (listed[0] if listed else value)
    raise row.error(
        "expected the picture (a URL or file name) the instruction is about",
        names.get("image", "image"),
    )


def _visit_rows(
    path: Path, rows: list[Row], names: dict[str, str], columns: list[str]
) -> list[Prediction]:
    answers = [(c, VISIT_COLUMN.match(c.strip())) for c in columns]
    models = [(c, m.group("model").strip()) for c, m in answers if m is not None]
    instruction = names.get("instruction")
    if instruction is None:
        raise DatasetError(
            path,
            "missing required column 'instruction' (VisIT-Bench rows are matched by picture "
            "and instruction)",
            column="instruction",
        )
    found = []
    for row in rows:
        text = row.required(instruction, "the instruction text")
        _, image = _visit_image(row, names)
        short = text if len(text) <= 40 else text[:37] + "..."
        for column, model in models:
            found.append(
                Prediction(
                    row=row.number,
                    line=row.line,
                    column=column,
                    model=model,
                    text=_answer(row.cells.get(column, "")),
                    key=f"{image} / {short!r}",
                    image=image,
                    instruction=text,
                )
            )
    return found


def _read_table_predictions(path: Path, model_from_name: str | None) -> PredictionFile:
    columns, rows = read_prediction_table(path)
    names = column_map(columns)
    if "prediction" in names:
        found = _index_rows(path, rows, names, names["prediction"], model_from_name)
        return PredictionFile(path, "vlmeval", found)
    if any(VISIT_COLUMN.match(c.strip()) for c in columns):
        return PredictionFile(path, "visit", _visit_rows(path, rows, names, columns))
    if "response" in names:
        found = _index_rows(path, rows, names, names["response"], None)
        return PredictionFile(path, "touchstone", found)
    raise DatasetError(
        path,
        "not a prediction file: expected a 'prediction' column (VLMEvalKit), a '<model name> "
        f"prediction' column (VisIT-Bench) or a 'response' column (TouchStone); the header "
        f"has: {', '.join(columns)}",
    )


def _field(record: dict[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if name in record:
            return name, record[name]
    return None, None


def _jsonl_record(path: Path, line: int, record: dict[str, Any]) -> Prediction:
    key_field, key = _field(record, JSONL_KEY_FIELDS)
    answer_field, answer = _field(record, JSONL_ANSWER_FIELDS)
    if key_field is None or not isinstance(key, str | int) or str(key).strip() == "":
        wanted = "/".join(JSONL_KEY_FIELDS)
        raise DatasetError(path, f"expected the item's key ({wanted})", row=line, column="id")
    if answer_field is None:
        wanted = "/".join(JSONL_ANSWER_FIELDS)
        raise DatasetError(path, f"expected the answer ({wanted})", row=line, column="answer")
    if answer is not None and not isinstance(answer, str | int | float):
        raise DatasetError(
            path, f"expected text, found {type(answer).__name__}", row=line, column=answer_field
        )
    _, model = _field(record, _JSONL_MODEL_FIELDS)
    return Prediction(
        row=line,
        line=line,
        column=answer_field,
        model=str(model) if isinstance(model, str) and model.strip() else None,
        text=_answer(str(answer)) if answer is not None else None,
        key=f"{key_field} {key}",
        index=str(key).strip(),
    )


def _read_jsonl(path: Path) -> PredictionFile:
    found = []
    for line, record in iter_json_lines(path):
        found.append(_jsonl_record(path, line, record))
    return PredictionFile(path, "jsonl", found)


def parse_prediction_file(path: Path, model_from_name: str | None = None) -> PredictionFile:
    """Every prediction in ``path`` (``.xlsx``/``.tsv``/``.csv``/``.jsonl``); DatasetError naming
    file, row and column at the first unreadable row. ``model_from_name`` is the model a
    VLMEvalKit file's name gives (``{model}_{dataset}``)."""
    if not path.is_file():
        raise DatasetError(path, "no such file")
    try:
        if path.suffix.lower() in (".jsonl", ".json"):
            parsed = _read_jsonl(path)
        else:
            parsed = _read_table_predictions(path, model_from_name)
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
    if not parsed.predictions:
        raise DatasetError(path, "no predictions: the file has no data rows")
    return parsed


def looks_like_predictions(path: Path) -> bool:
    """The detection rule for ``lvlmbench import``: whether ``path``'s header (or first JSON
    record) is a prediction file's. A JSONL record counts when it has a key and an answer
    field but no question, instruction or image (those make an item file: LLaVA-Bench's
    questions.jsonl has ``question_id``, ``text`` and ``image``; its answer files have no
    image). Never raises."""
    try:
        if path.suffix.lower() in (".jsonl", ".json"):
            with path.open(encoding="utf-8-sig") as handle:
                first = next((line for line in handle if line.strip()), "")
            record = load_json(first)
            return (
                isinstance(record, dict)
                and any(k in record for k in JSONL_KEY_FIELDS)
                and any(k in record for k in JSONL_ANSWER_FIELDS)
                and not _ITEM_FIELDS & set(record)
            )
        return is_prediction_table(read_header(path))
    except (OSError, ValueError, KeyError, UnicodeDecodeError, zipfile.BadZipFile):
        return False
