"""Human pairwise votes CSV → :class:`~lvlmbench.types.Judgment` rows with protocol "human".

Columns (case-insensitive): ``instance`` (required), ``a_model`` and ``b_model`` (required: the
two models compared), and one column per annotator whose cells hold ``A``, ``B`` or ``tie``
(case-insensitive; ``draw`` and ``=`` also mean tie; an empty cell is no vote). Each vote becomes
a judgment with judge ``human:<annotator column>``, verdict ``a``/``b``/``tie`` and order "ab".

``instance`` names an item of the benchmark given by ``--name`` (which must have been imported
first): its item id, its row key (the id/index column of the imported file), or a 0-based data
row index of that file. Votes are keyed by item, annotator and models, so re-importing is
idempotent and a corrected file replaces the earlier verdicts. The order of the votes (row by
row, annotator columns left to right) is kept as the order the battles were fought.
"""

from __future__ import annotations

from pathlib import Path

from lvlmbench.datasets.importers._common import DatasetError, Row, read_table, require_columns
from lvlmbench.datasets.importers._vote_rows import in_file_order, known_judgments
from lvlmbench.datasets.importers._write import ImportSummary, item_id
from lvlmbench.store import (
    Store,
    get_benchmark,
    iter_items,
    judgment_id,
    put_judgments,
)
from lvlmbench.types import Judgment

__all__ = ["import_votes", "parse_votes"]

_FIXED = ("instance", "a_model", "b_model")
_VERDICTS = {"a": "a", "b": "b", "tie": "tie", "draw": "tie", "=": "tie"}


def _instance_index(store: Store, benchmark: str) -> dict[str, str]:
    """instance value → item id (ids, then 0-based row indexes)."""
    index: dict[str, str] = {}
    for item in iter_items(store, benchmark):
        index[item.id] = item.id
        row = item.meta.get("row")
        if isinstance(row, int):
            index.setdefault(str(row - 1), item.id)
    return index


def _resolve(row: Row, column: str, benchmark: str, instances: dict[str, str]) -> str:
    instance = row.required(column, "an item id or row index")
    by_key = item_id(benchmark, instance)
    if by_key in instances:
        return by_key
    if instance in instances:
        return instances[instance]
    raise row.error(
        f"no item {instance!r} in benchmark {benchmark!r} (expected an item id, the imported "
        f"file's id/index value, or a 0-based row index)",
        column,
    )


def parse_votes(path: Path, store: Store, benchmark: str) -> tuple[list[Judgment], list[str], int]:
    """Validated judgments of a votes CSV, the annotator columns and the number of rows;
    DatasetError at the first bad row (or when ``benchmark`` does not exist)."""
    if get_benchmark(store, benchmark) is None:
        raise DatasetError(
            path, f"no benchmark {benchmark!r} in the store: import its items first (--name)"
        )
    columns, rows = read_table(path, ",", keep_case=True)
    require_columns(path, [c.lower() for c in columns], *_FIXED)
    fixed = {c.lower(): c for c in columns if c.lower() in _FIXED}
    annotators = [c for c in columns if c.lower() not in _FIXED]
    if not annotators:
        raise DatasetError(
            path,
            "expected one vote column per annotator after instance, "
            "A_model and B_model; found none",
        )
    instances = _instance_index(store, benchmark)
    judgments = []
    count = 0
    for row in rows:
        count += 1
        target = _resolve(row, fixed["instance"], benchmark, instances)
        model_a = row.required(fixed["a_model"], "the name of model A")
        model_b = row.required(fixed["b_model"], "the name of model B")
        for annotator in annotators:
            vote = row.get(annotator)
            if not vote:
                continue
            verdict = _VERDICTS.get(vote.lower())
            if verdict is None:
                raise row.error(f"expected A, B or tie, found {vote!r}", annotator)
            judgments.append(
                Judgment(
                    item_id=target,
                    judge=f"human:{annotator}",
                    protocol="human",
                    model_a=model_a,
                    model_b=model_b,
                    verdict=verdict,
                )
            )
    return judgments, annotators, count


def import_votes(store: Store, path: Path, benchmark: str) -> ImportSummary:
    """Validate the whole votes file, then store its judgments."""
    judgments, annotators, rows = parse_votes(path, store, benchmark)
    ids = {judgment_id(j) for j in judgments}
    known, after = known_judgments(store, judgments)
    put_judgments(store, in_file_order(judgments, after))
    return ImportSummary(
        benchmark=benchmark,
        format="votes",
        source=str(path),
        rows=rows,
        votes=len(judgments),
        votes_added=len(ids - known),
        annotators=annotators,
    )
