"""Reading FastChat / Chatbot Arena judgment records: the file as rows, and each row's vote
fields (winner, turn, the two models) and conversations, checked where they are read.

Shared by the vote importer (:mod:`.fastchat_votes`) and the items it builds when the file is
imported alone (:mod:`.fastchat_items`), so both read a record the same way.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import DatasetError, Row, read_table
from lvlmbench.datasets.importers._json_files import iter_json_records
from lvlmbench.datasets.importers._vote_rows import player_name
from lvlmbench.ids import JSONTooDeep, load_json

__all__ = [
    "FASTCHAT_COLUMNS",
    "asked",
    "players",
    "read_records",
    "said",
    "turn_key",
    "turn_of",
    "winner_of",
]

FASTCHAT_COLUMNS = ("question_id", "model_a", "model_b", "winner")
"""Fields every FastChat judgment record has (and that mark the format)."""


def read_records(path: Path) -> Iterator[Row]:
    """Records of a JSON array, JSON Lines or CSV file as rows (cells as text, lists and
    objects as JSON); DatasetError for a file that is none of them."""
    if path.suffix.lower() == ".csv":
        _, rows = read_table(path, ",")
        yield from rows
        return
    for number, line, record in iter_json_records(path):
        yield _row(path, number, line, record)


def _row(path: Path, number: int, line: int, record: Any) -> Row:
    if not isinstance(record, dict):
        raise DatasetError(
            path, f"expected a JSON object, found {type(record).__name__}", row=number, line=line
        )
    cells = {
        str(k).lower(): v if isinstance(v, str) else "" if v is None else json.dumps(v)
        for k, v in record.items()
    }
    return Row(path, number, line, cells)


def _messages(row: Row, column: str) -> list[dict[str, Any]] | None:
    """A conversation cell's ``{role, content}`` messages (JSON, or a Python literal as
    pandas' ``to_csv`` writes it); None for an empty cell."""
    cell = row.get(column)
    if not cell:
        return None
    messages: Any
    try:
        messages = load_json(cell)
    except JSONTooDeep as exc:
        raise row.error(str(exc), column) from None
    except ValueError:
        try:
            messages = ast.literal_eval(cell)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            messages = None
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise row.error("expected a list of {role, content} messages", column)
    return messages


def _by_role(row: Row, column: str, role: str) -> list[str]:
    messages = _messages(row, column) or []
    return [str(m.get("content", "")) for m in messages if m.get("role") == role]


def said(row: Row, column: str, turn: int) -> str | None:
    """The ``turn``-th assistant message of a conversation cell, or None when there is none."""
    answers = _by_role(row, column, "assistant")
    return answers[turn - 1] if len(answers) >= turn else None


def asked(row: Row, column: str) -> list[str]:
    """The user's messages of a conversation cell, in order (empty without a conversation)."""
    return _by_role(row, column, "user")


def turn_of(row: Row) -> int:
    """The record's turn (1 without a ``turn`` field); DatasetError for anything else."""
    value = row.get("turn") or "1"
    try:
        turn = int(float(value))
    except ValueError:
        raise row.error(f"expected a turn number (1, 2, ...), found {value!r}", "turn") from None
    if turn < 1:
        raise row.error(f"expected a turn number (1, 2, ...), found {value!r}", "turn")
    return turn


def turn_key(question_id: str, turn: int) -> str:
    """The row key of the item a vote on ``turn`` of question ``question_id`` is about: the
    question id itself for the first turn (so a dataset imported with that id column joins),
    ``<id>-turn<N>`` for a later one."""
    return question_id if turn == 1 else f"{question_id}-turn{turn}"


def winner_of(row: Row) -> str:
    """``a``, ``b`` or ``tie`` (any winner containing "tie", such as ``tie (bothbad)``, is a
    tie, as in FastChat's ``compute_agreement.py``)."""
    value = row.required("winner", "model_a, model_b or tie").lower()
    if "tie" in value:
        return "tie"
    if value in ("model_a", "model_b"):
        return value[-1]
    raise row.error(f"expected model_a, model_b or tie, found {value!r}", "winner")


def players(row: Row) -> tuple[str, str]:
    """The two models (the reference mapped to its player); DatasetError when they are one."""
    for column in FASTCHAT_COLUMNS:
        row.required(column)
    model_a = player_name(row.get("model_a"))
    model_b = player_name(row.get("model_b"))
    if model_a == model_b:
        raise row.error(f"model_a and model_b are both {model_a!r}", "model_b")
    return model_a, model_b
