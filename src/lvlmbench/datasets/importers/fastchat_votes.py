"""FastChat's pairwise human judgments (``mt_bench_human_judgments``) → human votes.

One vote per record with ``question_id``, ``model_a``, ``model_b``, ``winner`` (``model_a``,
``model_b`` or ``tie``; any winner containing "tie", such as ``tie (bothbad)``, is a tie, as in
FastChat's ``compute_agreement.py``), ``judge`` (the annotator, e.g. ``expert_3``; without one
a vote is an anonymous crowd vote, numbered per pair like VisIT-Bench's), ``turn``
and optionally ``conversation_a``/``conversation_b`` (lists of ``{role, content}`` messages).
The file is a JSON array (``json.load``, as FastChat reads it), JSON Lines, or a CSV whose
conversation cells hold the list as JSON or as a Python literal (pandas' ``to_csv``).

``question_id`` names the item by its row key (the id column of the imported dataset) or a key
kept in its meta. A vote is stored as protocol "human", judge ``human:<judge>``, order "ab" with
``model_a`` shown as A; the ``turn``-th assistant message of a conversation is stored as that
model's response when it has none. Our items are single-turn, so votes on a later turn are
skipped and counted; so are records whose judge is a model (FastChat writes GPT-4's pair judge
as a list such as ``["gpt-4", "pair-v2"]``): they hold one combined verdict, not the two
presentation orders a model judge is stored with.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import DatasetError, Row, parse_list, read_table
from lvlmbench.datasets.importers._json_files import iter_json_records
from lvlmbench.datasets.importers._vote_rows import (
    CROWD,
    ItemIndex,
    ParsedVote,
    open_index,
    player_name,
    store_votes,
)
from lvlmbench.datasets.importers._write import ImportSummary
from lvlmbench.ids import JSONTooDeep, load_json
from lvlmbench.store import Store

__all__ = ["FASTCHAT_COLUMNS", "import_fastchat_votes", "parse_fastchat_votes", "read_records"]

FASTCHAT_COLUMNS = ("question_id", "model_a", "model_b", "winner")
"""Fields every FastChat judgment record has (and that mark the format)."""

LATER_TURN = "votes on a later turn (items are single-turn)"
MODEL_JUDGE = "records by a model judge (one combined verdict, not two orders)"


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


def _answer(row: Row, column: str, turn: int) -> str | None:
    """The ``turn``-th assistant message of a conversation cell, or None when there is none."""
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
    said = [str(m.get("content", "")) for m in messages if m.get("role") == "assistant"]
    return said[turn - 1] if len(said) >= turn else None


def _turn(row: Row) -> int:
    value = row.get("turn") or "1"
    try:
        turn = int(float(value))
    except ValueError:
        raise row.error(f"expected a turn number (1, 2, ...), found {value!r}", "turn") from None
    if turn < 1:
        raise row.error(f"expected a turn number (1, 2, ...), found {value!r}", "turn")
    return turn


def _winner(row: Row) -> str:
    value = row.required("winner", "model_a, model_b or tie").lower()
    if "tie" in value:
        return "tie"
    if value in ("model_a", "model_b"):
        return value[-1]
    raise row.error(f"expected model_a, model_b or tie, found {value!r}", "winner")


def _vote(row: Row, index: ItemIndex) -> ParsedVote | str | None:
    """The row's vote; a skip reason; or None when it matches no item."""
    for column in FASTCHAT_COLUMNS:
        row.required(column)
    verdict = _winner(row)
    turn = _turn(row)
    judge = row.get("judge")
    model_a = player_name(row.get("model_a"))
    model_b = player_name(row.get("model_b"))
    if model_a == model_b:
        raise row.error(f"model_a and model_b are both {model_a!r}", "model_b")
    if judge and parse_list(judge) is not None:
        return MODEL_JUDGE
    if turn > 1:
        return LATER_TURN
    item = index.by_key(row.get("question_id"))
    if item is None:
        return None
    return ParsedVote(
        item_id=item,
        model_a=model_a,
        model_b=model_b,
        verdict=verdict,
        judge=f"human:{judge}" if judge else CROWD,
        protocol="human",
        text_a=_answer(row, "conversation_a", turn),
        text_b=_answer(row, "conversation_b", turn),
    )


def parse_fastchat_votes(
    path: Path, store: Store, benchmark: str
) -> tuple[list[ParsedVote], list[str], int, dict[str, int]]:
    """Validated votes, keys of unmatched records, the record count and skips by reason."""
    index = open_index(store, path, benchmark)
    votes: list[ParsedVote] = []
    unmatched: list[str] = []
    skipped: dict[str, int] = {}
    count = 0
    for row in read_records(path):
        count += 1
        if count == 1:
            missing = [c for c in FASTCHAT_COLUMNS if c not in row.cells]
            if missing:
                error = DatasetError(
                    path,
                    f"missing required column {missing[0]!r}; the first record has: "
                    f"{', '.join(row.cells)}",
                )
                error.column = missing[0]
                raise error
        vote = _vote(row, index)
        if isinstance(vote, str):
            skipped[vote] = skipped.get(vote, 0) + 1
        elif vote is None:
            unmatched.append(f"row {row.number} (question_id {row.get('question_id')})")
        else:
            votes.append(vote)
    if count == 0:
        raise DatasetError(path, "no judgment records")
    return votes, unmatched, count, skipped


def import_fastchat_votes(store: Store, path: Path, benchmark: str) -> ImportSummary:
    """Validate the whole file, then store its human votes and the answers only it holds."""
    votes, unmatched, count, skipped = parse_fastchat_votes(path, store, benchmark)
    summary = ImportSummary(
        benchmark=benchmark, format="fastchat-votes", source=str(path), rows=count, skipped=skipped
    )
    return store_votes(store, summary, votes, unmatched)
