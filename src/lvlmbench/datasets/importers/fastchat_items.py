"""A FastChat / Chatbot Arena judgment file imported alone: the items its conversations carry.

MT-bench's human and GPT-4 pair judgments and Arena's battle files hold, on every record, the two
conversations that were judged (``conversation_a``/``conversation_b``: ``{role, content}``
messages). Imported into a benchmark that does not exist yet (or one built this way before), the
file is its own dataset: one open-ended item per question and turn, keyed by
:func:`~._fastchat_rows.turn_key` (``81`` for turn 1, ``81-turn2`` for turn 2), whose question is
that turn's user message; the earlier user messages are kept in the item's meta
(``earlier_turns``), with ``question_id`` and ``turn``. The answers become the models'
responses as with any vote file. Every record is checked before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lvlmbench.datasets.importers._common import DatasetError, ParsedItem
from lvlmbench.datasets.importers._fastchat_rows import (
    asked,
    players,
    read_records,
    turn_key,
    turn_of,
    winner_of,
)
from lvlmbench.datasets.importers._scratch import DiskMap, Scratch
from lvlmbench.datasets.importers._write import ImportSummary, write_items
from lvlmbench.ids import check_benchmark_name
from lvlmbench.store import Store, get_benchmark

__all__ = ["FASTCHAT_FORMAT", "builds_items", "conversation_items", "write_conversation_items"]

FASTCHAT_FORMAT = "fastchat-votes"
"""The format name, and the kind of a benchmark built from such a file."""


def builds_items(store: Store, benchmark: str) -> bool:
    """Whether a FastChat file imported into ``benchmark`` builds its items: the benchmark does
    not exist, or was built from such a file (a second file adds its questions); a dataset
    imported first is joined instead."""
    existing = get_benchmark(store, benchmark)
    return existing is None or existing.kind == FASTCHAT_FORMAT


def conversation_items(path: Path, seen: DiskMap) -> Iterator[ParsedItem]:
    """One item per question and turn, the first record of each giving its text; every record's
    vote fields are checked too, so a bad record stops the import before anything is written.
    ``seen`` remembers the keys given (on disk, whatever the file's size)."""
    for row in read_records(path):
        players(row)
        winner_of(row)
        turn = turn_of(row)
        question_id = row.get("question_id")
        key = turn_key(question_id, turn)
        if seen.setdefault(key) is not None:
            continue
        column = "conversation_b" if row.get("conversation_b") else "conversation_a"
        column = "conversation_a" if row.get("conversation_a") else column
        questions = asked(row, column)
        if len(questions) < turn:
            raise row.error(
                f"expected a conversation holding the user's turn-{turn} message to build the "
                f"item from (it has {len(questions)}); or import the dataset the votes refer "
                "to first and name it with --name",
                column,
            )
        yield ParsedItem(
            key=key,
            row=row.number,
            question=questions[turn - 1],
            category=row.get("category") or None,
            meta={"question_id": question_id, "turn": turn, "earlier_turns": questions[: turn - 1]},
        )


def write_conversation_items(store: Store, path: Path, benchmark: str) -> ImportSummary:
    """Check every record, then store the items the file's conversations carry under
    ``benchmark`` (created as kind :data:`FASTCHAT_FORMAT`)."""
    try:
        check_benchmark_name(benchmark)
    except ValueError as exc:
        raise DatasetError(path, f"{exc} (choose one with --name)") from None
    with Scratch() as scratch:
        rows = sum(1 for _ in conversation_items(path, scratch.map("checked")))
        if rows == 0:
            raise DatasetError(path, "no judgment records")
        return write_items(
            store,
            benchmark,
            FASTCHAT_FORMAT,
            path,
            conversation_items(path, scratch.map("keys")),
            total=rows,
            scratch=scratch,
        )
