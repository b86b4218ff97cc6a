"""VisIT-Bench's human-preference CSV (``visit_bench_human_preferences.csv``) → human votes.

Columns (case-insensitive): ``image_url`` (or ``image``), ``instruction``, ``A`` and ``B`` (the
two answers), ``A_model`` and ``B_model``, ``model_selection.A`` and ``model_selection.B``
(TRUE/FALSE: which answer the person preferred). One row per crowd vote, about five per pair,
forced choice and no annotator id.

Each row joins to the item with the same image (by the URL's file name) and instruction
(whitespace and case aside); where the dataset repeats an (image, instruction) pair, the item
whose reference is the row's reference answer is used (else the first imported one, and the row
is counted as ambiguous). A vote is stored as judgment protocol "human", judge
``human:crowd-<n>`` for the n-th vote in the file on that item and pair (whichever side each
model was on; the file has no annotator id, and the judgment id needs distinct judges), order
"ab" with ``A_model`` shown as A. The reference (``human_verified_reference``) is the reference
player. ``A``/``B`` texts of models without a stored answer are stored as their
responses. A row with both or neither answer selected is no vote: it is skipped and counted.
"""

from __future__ import annotations

from pathlib import Path

from lvlmbench.datasets.importers._common import DatasetError, Row, read_table, require_columns
from lvlmbench.datasets.importers._vote_rows import (
    CROWD,
    ItemIndex,
    ParsedVote,
    open_index,
    player_name,
    store_votes,
)
from lvlmbench.datasets.importers._write import ImportSummary
from lvlmbench.store import Store

__all__ = ["VISIT_VOTE_COLUMNS", "import_visit_votes", "parse_visit_votes"]

VISIT_VOTE_COLUMNS = ("model_selection.a", "model_selection.b", "a_model", "b_model")
"""Columns that mark a VisIT-Bench human-preference file (lower-cased)."""

_URLS = ("image_url", "image", "url")
_BOOLEANS = {
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "1.0": True,
    "0.0": False,
    "yes": True,
    "no": False,
}
NO_CHOICE = "rows with both or neither answer selected"


def _selected(row: Row, column: str) -> bool:
    value = row.required(column, "TRUE or FALSE")
    flag = _BOOLEANS.get(value.lower())
    if flag is None:
        raise row.error(f"expected TRUE or FALSE, found {value!r}", column)
    return flag


def _vote(row: Row, url_column: str, index: ItemIndex) -> tuple[ParsedVote | str | None, str]:
    """The row's vote (a skip reason when it selects no single answer, None when it matches no
    item) and its key."""
    url = row.required(url_column, "the image URL")
    instruction = row.required("instruction", "the instruction text")
    model_a = player_name(row.required("a_model", "the name of model A"))
    model_b = player_name(row.required("b_model", "the name of model B"))
    if model_a == model_b:
        raise row.error(f"A_model and B_model are both {model_a!r}", "b_model")
    picked_a = _selected(row, "model_selection.a")
    picked_b = _selected(row, "model_selection.b")
    key = f"row {row.number} ({url.rsplit('/', 1)[-1]} | {' '.join(instruction.split())[:40]})"
    texts = {model_a: row.cells.get("a"), model_b: row.cells.get("b")}
    item = index.join(url, instruction, texts)
    if item is None:
        return None, key
    if picked_a == picked_b:
        return NO_CHOICE, key
    return (
        ParsedVote(
            item_id=item,
            model_a=model_a,
            model_b=model_b,
            verdict="a" if picked_a else "b",
            judge=CROWD,
            protocol="human",
            text_a=texts[model_a],
            text_b=texts[model_b],
        ),
        key,
    )


def parse_visit_votes(
    path: Path, store: Store, benchmark: str
) -> tuple[list[ParsedVote], list[str], ImportSummary]:
    """Validated votes of the file, the keys of unmatched rows and the summary so far (rows,
    skips, ambiguous joins); DatasetError at the first bad row."""
    index = open_index(store, path, benchmark)
    columns, rows = read_table(path, ",")
    url_column = next((c for c in _URLS if c in columns), "image_url")
    require_columns(path, columns, url_column, "instruction", *VISIT_VOTE_COLUMNS, "a", "b")
    votes: list[ParsedVote] = []
    unmatched: list[str] = []
    count = no_choice = 0
    for row in rows:
        count += 1
        vote, key = _vote(row, url_column, index)
        if vote is None:
            unmatched.append(key)
        elif isinstance(vote, str):
            no_choice += 1
        else:
            votes.append(vote)
    if count == 0:
        raise DatasetError(path, "no vote rows (expected one row per vote after the header)")
    summary = ImportSummary(benchmark=benchmark, format="visit-votes", source=str(path), rows=count)
    summary.ambiguous = index.ambiguous
    if no_choice:
        summary.skipped[NO_CHOICE] = no_choice
    return votes, unmatched, summary


def import_visit_votes(store: Store, path: Path, benchmark: str) -> ImportSummary:
    """Validate the whole file, then store its votes and the answers only it holds."""
    votes, unmatched, summary = parse_visit_votes(path, store, benchmark)
    return store_votes(store, summary, votes, unmatched)
