"""Where `api.evaluate` had drifted from `lvlmbench evaluate` before both called one use case:
each case below failed through the API and now gets the command's answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from http_fixture import ChatRecorder
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.store import Store, iter_benchmark_responses, put_responses
from lvlmbench.types import Response

BENCH = "quiz"


def _letter(body: dict[str, Any], seen: int) -> tuple[str, str]:
    return f"Answer: {'ABCD'[len(json.dumps(body)) % 4]}", "stop"


def _stored(db: Path) -> int:
    store = Store.open(str(db))
    try:
        return sum(1 for _ in iter_benchmark_responses(store, BENCH))
    finally:
        store.close()


def test_a_bad_grouping_is_refused_before_any_call_as_on_the_command_line(tmp_path: Path) -> None:
    db = write_quiz(tmp_path / "s.db", BENCH, 8)
    with ChatRecorder(_letter) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        with pytest.raises(ValueError, match="nosuch"):
            api.evaluate(BENCH, [spec], store=str(db), by=["nosuch"])
        asked = len(server.chats)
    # The API used to ask (and pay for) every item first and refuse the grouping after.
    assert asked == 0 and _stored(db) == 0


def test_a_misspelt_imported_player_gets_the_commands_hint(tmp_path: Path) -> None:
    db = write_quiz(tmp_path / "s.db", BENCH, 4)
    store = Store.open(str(db))
    answers = [Response(item_id=f"q{i:04d}", model="llava-7b", text="A") for i in range(4)]
    put_responses(store, answers)
    store.close()
    refused = CliRunner().invoke(app, ["evaluate", BENCH, "-m", "llava-7", "--store", str(db)])
    assert refused.exit_code == 2 and "did you mean 'llava-7b'" in refused.output
    with pytest.raises(ValueError, match=r"--model 'llava-7' .*\(did you mean 'llava-7b'\?\)"):
        api.evaluate(BENCH, ["llava-7"], store=str(db))


def test_no_model_or_one_string_is_refused_as_the_command_refuses_it(tmp_path: Path) -> None:
    db = write_quiz(tmp_path / "s.db", BENCH, 4)
    no_model = CliRunner().invoke(app, ["evaluate", BENCH, "--store", str(db)])
    assert no_model.exit_code == 2
    # The API returned an empty table for no model, and read a string as one spec per letter.
    with pytest.raises(ValueError, match="give at least one model"):
        api.evaluate(BENCH, [], store=str(db))
    with pytest.raises(ValueError, match="got the string 'baseline/random'"):
        api.evaluate(BENCH, "baseline/random", store=str(db))
