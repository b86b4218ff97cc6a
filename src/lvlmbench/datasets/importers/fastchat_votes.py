"""FastChat's pairwise judgments (``mt_bench_human_judgments``: its ``human`` and
``gpt4_pair`` files) and Chatbot Arena's battle files → votes.

One vote per record with ``question_id``, ``model_a``, ``model_b``, ``winner`` (``model_a``,
``model_b`` or ``tie``; any winner containing "tie", such as ``tie (bothbad)``, is a tie, as in
FastChat's ``compute_agreement.py``), ``judge`` (the annotator, e.g. ``expert_3``; without one
a vote is an anonymous crowd vote, numbered per pair like VisIT-Bench's), ``turn``
and optionally ``conversation_a``/``conversation_b`` (lists of ``{role, content}`` messages).
The file is a JSON array (``json.load``, as FastChat reads it), JSON Lines, or a CSV whose
conversation cells hold the list as JSON or as a Python literal (pandas' ``to_csv``).

Imported alone (into a benchmark that does not exist yet), the file builds its items from its
conversations (:mod:`.fastchat_items`); otherwise ``question_id`` names the item by its row key
(the id column of the imported dataset) or a key kept in its meta. A vote on turn N > 1 is about
the item keyed ``<question_id>-turn<N>``: each turn is its own item, so a second-turn vote is
kept, and counted as skipped only when the benchmark has no such item. A human vote is stored as
protocol "human", judge ``human:<judge>``, order "ab" with ``model_a`` shown as A; an annotator's
repeat votes on one pair stay theirs (numbered by ``repeat``). A record whose judge is a model
(FastChat writes GPT-4's pair judge as a list such as ``["gpt-4", "pair-v2"]``) is that model's
verdict, already combined over both presentation orders (a tie when they disagree): it is stored
as one row of protocol "pairwise" with order ``both``, judge the list's first entry (``gpt-4``,
whatever its prompt, as FastChat's ``get_judge_name`` counts them) or ``--judge``. The
``turn``-th assistant message of a conversation is stored as that model's response when it has
none.
"""

from __future__ import annotations

from pathlib import Path

from lvlmbench.datasets.importers._common import DatasetError, Row, parse_list
from lvlmbench.datasets.importers._fastchat_rows import (
    FASTCHAT_COLUMNS,
    players,
    read_records,
    said,
    turn_key,
    turn_of,
    winner_of,
)
from lvlmbench.datasets.importers._vote_rows import (
    CROWD,
    ItemIndex,
    ParsedVote,
    open_index,
    store_votes,
)
from lvlmbench.datasets.importers._write import ImportSummary
from lvlmbench.datasets.importers.fastchat_items import (
    FASTCHAT_FORMAT,
    builds_items,
    write_conversation_items,
)
from lvlmbench.store import Store
from lvlmbench.types import BOTH_ORDERS

__all__ = ["FASTCHAT_COLUMNS", "import_fastchat_votes", "parse_fastchat_votes", "read_records"]

LATER_TURN = "votes on a later turn the benchmark has no item for (import the file alone)"
PAIRWISE = "pairwise"
"""The protocol of a model judge's verdicts (``judging.PAIRWISE``; judging sits above
datasets, so the name is repeated here rather than imported)."""


def _vote(row: Row, index: ItemIndex, model_judge: str | None) -> ParsedVote | str | None:
    """The row's vote; a skip reason; or None when it matches no item."""
    model_a, model_b = players(row)
    verdict = winner_of(row)
    turn = turn_of(row)
    judge = row.get("judge")
    listed = parse_list(judge) if judge else None
    item = index.by_key(turn_key(row.get("question_id"), turn))
    if item is None:
        return LATER_TURN if turn > 1 and index.by_key(row.get("question_id")) else None
    texts = said(row, "conversation_a", turn), said(row, "conversation_b", turn)
    if listed is not None:
        if not listed or not listed[0].strip():
            raise row.error("expected a judge name first in the list", "judge")
        return ParsedVote(
            item_id=item,
            model_a=model_a,
            model_b=model_b,
            verdict=verdict,
            judge=model_judge or listed[0].strip(),
            protocol=PAIRWISE,
            order=BOTH_ORDERS,
            text_a=texts[0],
            text_b=texts[1],
        )
    return ParsedVote(
        item_id=item,
        model_a=model_a,
        model_b=model_b,
        verdict=verdict,
        judge=f"human:{judge}" if judge else CROWD,
        protocol="human",
        text_a=texts[0],
        text_b=texts[1],
    )


def _check_fields(path: Path, row: Row) -> None:
    missing = [c for c in FASTCHAT_COLUMNS if c not in row.cells]
    if missing:
        error = DatasetError(
            path,
            f"missing required column {missing[0]!r}; the first record has: {', '.join(row.cells)}",
        )
        error.column = missing[0]
        raise error


def parse_fastchat_votes(
    path: Path, store: Store, benchmark: str, *, judge: str | None = None
) -> tuple[list[ParsedVote], list[str], int, dict[str, int]]:
    """Validated votes, keys of unmatched records, the record count and skips by reason;
    ``judge`` names the model judge of records whose judge is a model."""
    index = open_index(store, path, benchmark)
    votes: list[ParsedVote] = []
    unmatched: list[str] = []
    skipped: dict[str, int] = {}
    count = 0
    for row in read_records(path):
        count += 1
        if count == 1:
            _check_fields(path, row)
        vote = _vote(row, index, judge)
        if isinstance(vote, str):
            skipped[vote] = skipped.get(vote, 0) + 1
        elif vote is None:
            unmatched.append(f"row {row.number} (question_id {row.get('question_id')})")
        else:
            votes.append(vote)
    if count == 0:
        raise DatasetError(path, "no judgment records")
    return votes, unmatched, count, skipped


def import_fastchat_votes(
    store: Store, path: Path, benchmark: str, *, judge: str | None = None
) -> ImportSummary:
    """Validate the whole file, then store its votes and the answers only it holds; alone (see
    :func:`~.fastchat_items.builds_items`), the items its conversations carry first."""
    built = None
    if builds_items(store, benchmark):
        first = next(iter(read_records(path)), None)
        if first is not None:
            _check_fields(path, first)
        built = write_conversation_items(store, path, benchmark)
    votes, unmatched, count, skipped = parse_fastchat_votes(path, store, benchmark, judge=judge)
    summary = ImportSummary(
        benchmark=benchmark, format=FASTCHAT_FORMAT, source=str(path), rows=count, skipped=skipped
    )
    if built is not None:
        summary.items_added = built.items_added
        summary.items_updated = built.items_updated
        summary.items_unchanged = built.items_unchanged
    return store_votes(store, summary, votes, unmatched)
