"""`lvlmbench evaluate` and `api.evaluate` are one use case behind two front doors: every option of
the command has its API counterpart with the same default, and the same call made both ways
names the models alike and stores the same rows."""

from __future__ import annotations

import inspect
import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import typer.main
from cli_runs import evaluate_json
from http_fixture import ChatRecorder
from judge_script import SETTINGS_FLAGS
from quiz_store import write_quiz

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.models import GenerationSettings
from lvlmbench.workflows import EvaluateOptions

BENCH = "quiz"
ORACLE, RANDOM = "baseline/oracle", "baseline/random"
CLI_ONLY = {
    "as_json": "how the command prints",
    "store": "checked apart (same name, no default)",
    "eval_set": "benchmarks and options in a file: api.evaluate_many(api.read_eval_set(path))",
}
RENAMED = {"model": "models"}
SETTINGS = SETTINGS_FLAGS


def _command_params() -> dict[str, Any]:
    """The evaluate command's parameters as its parser sees them (typer's click objects)."""
    commands = getattr(typer.main.get_command(app), "commands")  # noqa: B009
    return {p.name: p for p in commands["evaluate"].params}


def _same(cli_name: str, cli_default: Any, api_default: Any) -> bool:
    if cli_name == "by":  # comma-separated on the command line, a sequence in Python
        return tuple(str(cli_default).split(",")) == tuple(api_default)
    return bool(cli_default == api_default)


def test_every_option_of_the_command_has_its_api_counterpart_with_its_default() -> None:
    command = _command_params()
    signature = inspect.signature(api.evaluate).parameters
    options = {f.name: f for f in fields(EvaluateOptions)}
    settings = GenerationSettings()
    assert "benchmark" in command and "benchmark" in signature
    matched = {"benchmark", *CLI_ONLY}
    for name, param in command.items():
        if name in matched:
            continue
        if name in SETTINGS:
            assert param.default is None and signature["config"].default is None, name
            # No flag keeps the setting unset: the same as a config that does not give it.
            assert getattr(settings, SETTINGS[name]) in (None, {}), name
        else:
            api_name = RENAMED.get(name, name)
            assert api_name in signature, f"api.evaluate has no {api_name!r} for --{name}"
            assert api_name in options, f"EvaluateOptions has no {api_name!r}"
            if api_name != "models":  # the command requires it; Python takes it positionally
                api_default = signature[api_name].default
                assert _same(name, param.default, api_default), (name, param.default)
                option = options[api_name]
                assert _same(name, param.default, option.default), name
        matched.add(name)
    assert set(command) == matched
    # And no option the command lacks, but the progress callback (the command draws bars).
    cli_names = {RENAMED.get(n, n) for n in command} | {"config"}
    assert set(signature) - cli_names == {"progress"}
    assert signature["store"].default is None and command["store"].default is None
    assert set(options) - cli_names == {"settings"}


def _rows(db: Path) -> list[tuple[Any, ...]]:
    """The stored responses, without what differs between two runs of the same call (times)."""
    with closing(sqlite3.connect(db)) as connection:
        found = connection.execute(
            "SELECT id, item_id, model, variant, status, data FROM responses"
        ).fetchall()
    rows = []
    for *key, data in found:
        fields_ = {k: v for k, v in json.loads(data).items() if "latency" not in k}
        rows.append((*key, json.dumps(fields_, sort_keys=True)))
    return sorted(rows)


def _letter(body: dict[str, Any], seen: int) -> tuple[str, str]:
    question = json.dumps(body["messages"])
    return f"Answer: {'ABCD'[len(question) % 4]}", "stop"


CASES: list[tuple[list[str], dict[str, Any]]] = [
    (["-m", ORACLE, "-m", RANDOM], {"models": [ORACLE, RANDOM]}),
    (
        ["-m", RANDOM, "--limit", "7", "--limit-seed", "3", "--epochs", "2", "--by", ""],
        {"models": [RANDOM], "limit": 7, "limit_seed": 3, "epochs": 2, "by": []},
    ),
    (
        ["-m", RANDOM, "--variant", "question-only", "--concurrency", "3", "--by", "capability"],
        {"models": [RANDOM], "variant": "question-only", "concurrency": 3, "by": ["capability"]},
    ),
    (
        [
            *("-m", ORACLE, "-m", f"{RANDOM}?price=1,1", "--until", "compare"),
            *("--budget-usd", "5", "--limit", "20", "--limit-seed", "2"),
        ],
        {"models": [ORACLE, f"{RANDOM}?price=1,1"], "until": "compare", "budget_usd": 5.0}
        | {"limit": 20, "limit_seed": 2},
    ),
    (
        [
            *("-m", ORACLE, "-m", RANDOM, "--until", "rank", "--budget", "40"),
            *("--first-round", "6", "--alpha", "0.2"),
        ],
        {"models": [ORACLE, RANDOM], "until": "rank", "budget": 40, "first_round": 6}
        | {"alpha": 0.2},
    ),
]


@pytest.mark.parametrize(("argv", "kwargs"), CASES)
def test_the_same_call_both_ways_stores_the_same_rows(
    tmp_path: Path, argv: list[str], kwargs: dict[str, Any]
) -> None:
    by_cli, by_api = (write_quiz(tmp_path / f"{door}.db", BENCH, 24) for door in ("cli", "api"))
    printed = evaluate_json(by_cli, BENCH, *argv)
    models = kwargs.pop("models")
    result = api.evaluate(BENCH, models, store=str(by_api), **kwargs)
    assert [run["model"] for run in printed["runs"]] == [run.model for run in result.runs]
    runs = zip(result.runs, printed["runs"], strict=True)
    assert printed["runs"] == [vars(run) | {"wall_s": p["wall_s"]} for run, p in runs]
    assert [row["accuracy"] for row in printed["overall"]] == [r.accuracy for r in result.overall]
    assert ("budget" in printed) == (result.budgeted is not None)
    if result.budgeted is not None:
        assert printed["budget"] == result.budgeted.as_json()
    assert _rows(by_cli) == _rows(by_api) != []


def test_generation_settings_and_progress_reach_the_same_requests(tmp_path: Path) -> None:
    by_cli, by_api = (write_quiz(tmp_path / f"{door}.db", BENCH, 6) for door in ("cli", "api"))
    seen: list[tuple[str, int, int]] = []
    with ChatRecorder(_letter) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        flags = ["--temperature", "0.5", "--top-p", "0.9", "--seed", "7", "--max-tokens", "99"]
        flags += ["--system-prompt", "Be brief.", "--param", "reasoning_effort=high"]
        printed = evaluate_json(by_cli, BENCH, "-m", spec, *flags)
        asked_by_cli = server.chats
        config = GenerationSettings(
            temperature=0.5,
            top_p=0.9,
            seed=7,
            max_tokens=99,
            system="Be brief.",
            params={"reasoning_effort": "high"},
        )
        progress: Callable[[str, int, int], None] = lambda *call: seen.append(call)  # noqa: E731
        result = api.evaluate(BENCH, [spec], store=str(by_api), config=config, progress=progress)
        asked_by_api = server.chats[len(asked_by_cli) :]
    assert [run["model"] for run in printed["runs"]] == [run.model for run in result.runs]
    assert sorted(map(json.dumps, asked_by_cli)) == sorted(map(json.dumps, asked_by_api))
    assert len(asked_by_api) == 6 and asked_by_api[0]["reasoning_effort"] == "high"
    assert _rows(by_cli) == _rows(by_api)
    assert seen[-1] == (result.runs[0].model, 6, 6)


@pytest.mark.timeout(120)
def test_workers_from_python_split_the_items_between_processes(tmp_path: Path) -> None:
    # The copies are started from the options, not from this process's command line (pytest's).
    db = write_quiz(tmp_path / "s.db", BENCH, 10)
    with ChatRecorder(_letter) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        result = api.evaluate(BENCH, [spec], store=str(db), workers=2, concurrency=2)
        asked = [json.dumps(body["messages"]) for body in server.chats]
    assert len(asked) == len(set(asked)) == 10  # every item asked once, by one of the copies
    run = result.runs[0]
    assert (run.model, run.ok + run.unparseable, run.total, run.skipped) == (spec, 10, 10, 0)
    assert len(_rows(db)) == 10
