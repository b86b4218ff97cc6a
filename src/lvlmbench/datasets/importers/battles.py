"""VisIT-Bench's leaderboard battle dump → a model judge's pairwise verdicts (both orders).

A JSON array (or JSON Lines) of judged pairs, as the VisIT-Bench README describes them:
``A_model``/``B_model`` and their answers ``A``/``B``, ``image_url``, ``instruction``,
``instruction_category``, ``engine`` (the judge), ``evaluated_with_reference``,
``auto_evaluation_result`` (the winner of each of the two queries: a model name or ``tie``),
``auto_evaluation_cot`` (the judge's reasoning per query) and ``A_model_in_cot``/
``B_model_in_cot`` (which model was shown as A/B in each query). Without those two lists the
first query is taken to show ``A_model`` as A and the second to swap them (the README: "we run
A B and B A").

Each battle becomes two :class:`Judgment` rows, one per presentation order, exactly as
``lvlmbench judge pairwise`` stores its own: judge ``engine`` (or ``--judge``), protocol
"pairwise" (or "pairwise-ref" when evaluated with the reference). A winner that is neither
shown model nor a tie is stored as unparseable, never guessed. Rows join to items by image URL
and instruction like the human-preference file; answers only the dump holds become responses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lvlmbench.datasets.importers._common import DatasetError, Row
from lvlmbench.datasets.importers._fastchat_rows import read_records
from lvlmbench.datasets.importers._vote_rows import (
    ItemIndex,
    ParsedVote,
    open_index,
    player_name,
    store_votes,
)
from lvlmbench.datasets.importers._write import ImportSummary
from lvlmbench.ids import JSONTooDeep, load_json
from lvlmbench.store import Store

__all__ = ["BATTLE_FIELDS", "import_battles", "parse_battles"]

BATTLE_FIELDS = ("a_model", "b_model", "auto_evaluation_result")
"""Fields that mark a battle record (lower-cased)."""

_REQUIRED = (*BATTLE_FIELDS, "image_url", "instruction")
_TRUE = {"true", "1", "yes"}


def _list_of(row: Row, column: str, size: int = 2) -> list[Any] | None:
    cell = row.get(column)
    if not cell:
        return None
    try:
        value = load_json(cell)
    except JSONTooDeep as exc:
        raise row.error(str(exc), column) from None
    except ValueError:
        value = None
    if not isinstance(value, list) or len(value) != size:
        raise row.error(f"expected a list of {size} values, found {cell[:80]!r}", column)
    return value


def _pair_list(row: Row, column: str) -> list[Any] | None:
    """A two-element list cell, or None where the cell is absent or holds something else (the
    README does not pin these optional fields down, so they only refine the order)."""
    try:
        return _list_of(row, column)
    except DatasetError as exc:
        if "nested deeper" in str(exc):  # hostile, not merely another shape: never ignored
            raise
        return None


def _shown(row: Row) -> list[tuple[str, str]]:
    """The (A, B) players of each of the two queries."""
    first = (row.get("a_model"), row.get("b_model"))
    in_a, in_b = _pair_list(row, "a_model_in_cot"), _pair_list(row, "b_model_in_cot")
    if in_a is None or in_b is None:
        # the README's "we run A B and B A"; a winner given by name is read the same either way
        return [first, (first[1], first[0])]
    shown = [(str(a).strip(), str(b).strip()) for a, b in zip(in_a, in_b, strict=True)]
    for a, b in shown:
        if {a, b} != set(first):
            raise row.error(
                f"A_model_in_cot/B_model_in_cot name {a!r} and {b!r}, expected the battle's "
                f"models {first[0]!r} and {first[1]!r}",
                "a_model_in_cot",
            )
    if shown[0] == shown[1]:
        raise row.error("both queries show the same model as A; expected one per order")
    return shown


def _verdict(winner: Any, shown: tuple[str, str]) -> tuple[str | None, str | None]:
    """(a/b/tie, None) or (None, why the winner cannot be read)."""
    text = str(winner).strip() if winner is not None else ""
    if text.lower() == "tie":
        return "tie", None
    for verdict, name in (("a", shown[0]), ("b", shown[1])):
        if text == name or text.upper() == verdict.upper():
            return verdict, None
    return None, f"winner {text!r} is neither shown model ({shown[0]}, {shown[1]}) nor a tie"


def _battle(row: Row, index: ItemIndex, judge: str | None) -> list[ParsedVote] | None:
    for column in _REQUIRED:
        row.required(column)
    name = judge or row.required("engine", "the judge's name (or give --judge)")
    if row.get("a_model") == row.get("b_model"):
        raise row.error(f"A_model and B_model are both {row.get('a_model')!r}", "b_model")
    results = _list_of(row, "auto_evaluation_result")
    assert results is not None  # required above
    reasons = _list_of(row, "auto_evaluation_cot") or [None, None]
    texts = {row.get("a_model"): row.cells.get("a"), row.get("b_model"): row.cells.get("b")}
    item = index.join(
        row.get("image_url"), row.get("instruction"), {player_name(m): t for m, t in texts.items()}
    )
    if item is None:
        return None
    with_ref = row.get("evaluated_with_reference").lower() in _TRUE
    votes = []
    for shown, winner, rationale in zip(_shown(row), results, reasons, strict=True):
        verdict, why = _verdict(winner, shown)
        a, b = player_name(shown[0]), player_name(shown[1])
        votes.append(
            ParsedVote(
                item_id=item,
                model_a=a,
                model_b=b,
                verdict=verdict,
                judge=name,
                protocol="pairwise-ref" if with_ref else "pairwise",
                order="ab" if a <= b else "ba",
                text_a=texts[shown[0]],
                text_b=texts[shown[1]],
                rationale=None if rationale is None else str(rationale),
                reason=why,
            )
        )
    return votes


def parse_battles(
    path: Path, store: Store, benchmark: str, judge: str | None = None
) -> tuple[list[ParsedVote], list[str], ImportSummary]:
    """Validated verdicts (two per battle), keys of unmatched battles and the summary so far."""
    index = open_index(store, path, benchmark)
    votes: list[ParsedVote] = []
    unmatched: list[str] = []
    count = 0
    for row in read_records(path):
        count += 1
        battle = _battle(row, index, judge)
        if battle is None:
            url = row.get("image_url").rsplit("/", 1)[-1]
            unmatched.append(f"row {row.number} ({url} | {row.get('instruction')[:40]})")
        else:
            votes.extend(battle)
    if count == 0:
        raise DatasetError(path, "no battles (expected a JSON array of judged pairs)")
    summary = ImportSummary(benchmark=benchmark, format="battles", source=str(path), rows=count)
    summary.ambiguous = index.ambiguous
    return votes, unmatched, summary


def import_battles(
    store: Store, path: Path, benchmark: str, judge: str | None = None
) -> ImportSummary:
    """Validate the whole dump, then store both orders' verdicts of every battle."""
    votes, unmatched, summary = parse_battles(path, store, benchmark, judge)
    return store_votes(store, summary, votes, unmatched)
