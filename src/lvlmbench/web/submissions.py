"""Leaderboard submissions: a JSONL file of answers for one benchmark → validated line by line,
stored as the responses of ``submission/<name>``, then judged in the background.

One JSON object per line: the item under ``item_id`` (or ``id``), the answer under ``text`` (or
``response``/``answer``/``prediction``). The whole file is checked before anything is stored, so
a file with one bad line stores nothing and the uploader gets every bad line at once.
Choice answers are extracted exactly as for a model run; open-ended answers are judged in the
background by :mod:`lvlmbench.web.background`.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.ids import JSONTooDeep, content_id, load_json
from lvlmbench.runner import score_output
from lvlmbench.store import (
    Store,
    get_artifact,
    iter_artifacts,
    iter_items,
    iter_responses,
    put_artifact,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, ModelOutput

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_ERRORS",
    "Submission",
    "SubmissionError",
    "list_submissions",
    "parse_submission",
    "store_submission",
    "submission_model",
]

MAX_ERRORS = 50
"""Errors listed per upload; the count of the rest is given."""
MAX_ANSWER_CHARS = 65_536
"""Longest answer accepted: far above any model answer (a long one is a few thousand
characters), far below what would bloat the store, the pages and every judge prompt."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_ID_KEYS = ("item_id", "id")
_TEXT_KEYS = ("text", "response", "answer", "prediction")
_STAGE = "submission"
_RUN = "web"


class SubmissionError(ValueError):
    """The upload cannot be accepted; ``errors`` holds one line per problem."""

    def __init__(self, errors: list[str]) -> None:
        shown = errors[:MAX_ERRORS]
        if len(errors) > MAX_ERRORS:
            shown.append(f"... and {len(errors) - MAX_ERRORS} more errors")
        super().__init__("; ".join(shown))
        self.errors = shown


def submission_model(name: str) -> str:
    """``submission/<name>``; SubmissionError when the name has other characters."""
    if not _NAME.match(name):
        raise SubmissionError(
            ["model name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"]
        )
    return f"submission/{name}"


def _field(record: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    for key in keys:
        if key in record:
            return key, record[key]
    return None, None


def _parse_line(
    number: int, raw: bytes, items: dict[str, BenchmarkItem], seen: dict[str, int]
) -> tuple[str, str] | str:
    """(item id, answer) or the error text for line ``number``."""
    try:
        record = load_json(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return f"line {number}: not UTF-8 text"
    except json.JSONDecodeError as exc:
        return f"line {number}: not JSON ({exc.msg} at column {exc.colno})"
    except JSONTooDeep as exc:
        return f"line {number}: {exc}"
    if not isinstance(record, dict):
        return f"line {number}: expected a JSON object, found {type(record).__name__}"
    id_key, item_id = _field(record, _ID_KEYS)
    text_key, text = _field(record, _TEXT_KEYS)
    if id_key is None or not isinstance(item_id, str):
        return f"line {number}: expected a string field 'item_id' naming the item"
    if text_key is None or not isinstance(text, str):
        return f"line {number}: expected a string field 'text' holding the answer"
    if len(text) > MAX_ANSWER_CHARS:
        return f"line {number}: answer of {len(text):,} characters (at most {MAX_ANSWER_CHARS:,})"
    if item_id not in items:
        return f"line {number}: no item {item_id[:80]!r} in this benchmark"
    if item_id in seen:
        return f"line {number}: item {item_id!r} already answered on line {seen[item_id]}"
    seen[item_id] = number
    return item_id, text


def parse_submission(data: bytes, items: dict[str, BenchmarkItem]) -> dict[str, str]:
    """item id → answer for every line; SubmissionError listing every bad line."""
    answers: dict[str, str] = {}
    errors: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        parsed = _parse_line(number, raw, items, seen)
        if isinstance(parsed, str):
            errors.append(parsed)
        else:
            answers[parsed[0]] = parsed[1]
    if errors:
        raise SubmissionError(errors)
    if not answers:
        raise SubmissionError(["the file holds no answers (expected one JSON object per line)"])
    return answers


@dataclass
class Submission:
    """What the submission page shows; stored as an artifact so it survives restarts."""

    id: str
    benchmark: str
    model: str
    answered: int
    items: int
    status: str = "judging"
    """judging, done or failed."""
    created: float = field(default_factory=time.time)
    metrics: list[str] = field(default_factory=list)
    judge: str | None = None
    """The pairwise judge that compared the answers, if the server has one."""
    reason: str | None = None

    def save(self, store: Store) -> None:
        put_artifact(store, _RUN, _STAGE, self.id, self.__dict__)

    @classmethod
    def load(cls, store: Store, submission_id: str) -> Submission | None:
        data = get_artifact(store, _RUN, _STAGE, submission_id)
        return cls(**data) if data is not None else None


def list_submissions(store: Store, benchmark: str | None = None) -> list[Submission]:
    """Every submission, newest first."""
    found = [Submission(**data) for data in iter_artifacts(store, _RUN, _STAGE)]
    return sorted(
        (s for s in found if benchmark is None or s.benchmark == benchmark),
        key=lambda s: -s.created,
    )


def store_submission(store: Store, benchmark: str, name: str, data: bytes) -> Submission:
    """Validate the whole upload, then store it as responses; SubmissionError on any problem
    (nothing is stored then)."""
    model = submission_model(name)
    items = {item.id: item for item in iter_items(store, benchmark)}
    if any(r.item_id in items for r in iter_responses(store, model=model)):
        raise SubmissionError(
            [f"{model} already has answers on {benchmark}: choose another model name"]
        )
    answers = parse_submission(data, items)
    put_responses(
        store,
        [score_output(items[i], model, ModelOutput(text=text)) for i, text in answers.items()],
    )
    submission = Submission(
        id=content_id("submission", benchmark, model),
        benchmark=benchmark,
        model=model,
        answered=len(answers),
        items=len(items),
    )
    submission.save(store)
    return submission
