"""Vote-file formats: telling them apart from their columns, and importing one by name.

:func:`detect_vote_format` looks only at the header of a CSV (or the first record of a JSON
array / JSON Lines file) and names the vote format it marks, or None when the file is not a vote
file (so a general ``detect_format`` can ask it first and fall back to the item formats):

- ``model_selection.A`` and ``model_selection.B`` → ``visit-votes`` (VisIT-Bench preferences);
- ``auto_evaluation_result`` with ``A_model``/``B_model`` → ``battles`` (leaderboard dump);
- ``winner`` with ``model_a``/``model_b`` and ``question_id`` → ``fastchat-votes``;
- ``instance`` with ``A_model``/``B_model`` → ``votes`` (our wide format).
"""

from __future__ import annotations

from pathlib import Path

from lvlmbench.datasets.importers._common import DatasetError, not_utf8
from lvlmbench.datasets.importers._fastchat_rows import FASTCHAT_COLUMNS
from lvlmbench.datasets.importers._write import ImportSummary
from lvlmbench.datasets.importers.battles import BATTLE_FIELDS, import_battles
from lvlmbench.datasets.importers.detect import FormatRule, read_sample, register_format
from lvlmbench.datasets.importers.fastchat_votes import import_fastchat_votes
from lvlmbench.datasets.importers.visit_votes import VISIT_VOTE_COLUMNS, import_visit_votes
from lvlmbench.datasets.importers.votes import import_votes
from lvlmbench.store import Store

__all__ = ["VOTE_FORMATS", "detect_vote_format", "import_vote_file", "vote_format_of"]

VOTE_FORMATS = ("votes", "visit-votes", "fastchat-votes", "battles")
"""Vote-file format names, in the order :func:`detect_vote_format` tries them."""


def vote_format_of(fields: set[str] | frozenset[str]) -> str | None:
    """The vote format that lower-cased column/field names mark (see the module doc), or None."""
    if set(VISIT_VOTE_COLUMNS) <= fields:
        return "visit-votes"
    if set(BATTLE_FIELDS) <= fields:
        return "battles"
    if set(FASTCHAT_COLUMNS) <= fields:
        return "fastchat-votes"
    if {"instance", "a_model", "b_model"} <= fields:
        return "votes"
    return None


def detect_vote_format(path: Path) -> str | None:
    """The vote format the file's fields mark (see the module doc), or None."""
    try:
        return vote_format_of(read_sample(path).columns)
    except DatasetError:  # unreadable, empty or not a table or JSON records: no vote file
        return None


def _vote_rule(name: str, needs: str) -> FormatRule:
    return FormatRule(name, needs, lambda s: vote_format_of(s.columns) == name, priority=10)


# Vote files carry a dataset's join columns (image_url, instruction, question_id): they are
# tried before the dataset rules so a preference CSV is never taken for a VisIT-Bench dataset.
for _rule in (
    _vote_rule("visit-votes", "CSV: model_selection.A, model_selection.B, A_model, B_model"),
    _vote_rule("battles", "JSON: A_model, B_model, auto_evaluation_result"),
    _vote_rule("fastchat-votes", "JSON/JSONL/CSV: question_id, model_a, model_b, winner"),
):
    register_format(_rule)


def import_vote_file(
    store: Store, path: Path, fmt: str, benchmark: str, *, judge: str | None = None
) -> ImportSummary:
    """Import a vote file in ``fmt`` (one of :data:`VOTE_FORMATS`) for ``benchmark``; the whole
        file is validated before anything is written. ``judge`` names the judge of a battle dump
    (or of a FastChat file's model-judge records)."""
    if not path.is_file():
        raise DatasetError(path, "no such file")
    try:
        if fmt == "visit-votes":
            return import_visit_votes(store, path, benchmark)
        if fmt == "fastchat-votes":
            return import_fastchat_votes(store, path, benchmark, judge=judge)
        if fmt == "battles":
            return import_battles(store, path, benchmark, judge)
        return import_votes(store, path, benchmark)
    except UnicodeDecodeError as exc:
        raise not_utf8(path, exc) from None
