"""``--param`` end to end: a param that would replace what the client builds (the messages, the
number of choices, streaming, a checked budget) or that carries a credential is refused with
exit 2 and the option to use, before any request or store write; the credential's value is
nowhere afterwards (output, exception, store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_runs import count_rows
from http_fixture import ChatRecorder
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app

runner = CliRunner()
BENCH = "quiz"
SECRET = "sk-live-Q7xCLIPARAMSECRET42"


def _letter_a(body: dict[str, Any], seen: int) -> tuple[str, str]:
    return "Answer: A", "stop"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return write_quiz(tmp_path / "s.db", BENCH, 4)


@pytest.mark.parametrize(
    ("param", "instead"),
    [
        ("messages=[]", "--system-prompt"),
        ("n=5", "--epochs"),
        ("stream=true", "reads each reply whole"),
        ("max_tokens=-5", "--max-tokens"),
    ],
)
def test_a_param_may_not_replace_what_the_client_builds(db: Path, param: str, instead: str) -> None:
    with ChatRecorder(_letter_a) as server:
        model = f"openai/m?base_url={server.url}/v1"
        result = runner.invoke(
            app, ["evaluate", BENCH, "-m", model, "--param", param, "--store", str(db)]
        )
    assert result.exit_code == 2, result.output
    field = param.partition("=")[0]
    assert f"param.{field}" in result.output and instead in result.output
    assert server.requests == []
    assert count_rows(db, "responses") == 0


def _store_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))


def test_a_credential_param_is_refused_and_its_value_is_nowhere(db: Path) -> None:
    with ChatRecorder(_letter_a) as server:
        model = f"openai/m?base_url={server.url}/v1"
        runs = [
            ["evaluate", BENCH, "-m", model, "--param", f"api_key={SECRET}"],
            ["evaluate", BENCH, "-m", f"{model}&param.x-api-key={SECRET}"],
            ["evaluate", BENCH, "-m", model, "--param", f"Authorization=Bearer {SECRET}"],
            ["judge", "pairwise", BENCH, "-m", "baseline/random", "-j", model,
             "--param", f"access_token={SECRET}"],
        ]  # fmt: skip
        for args in runs:
            result = runner.invoke(app, [*args, "--store", str(db)])
            assert result.exit_code == 2, result.output
            assert "looks like a credential" in result.output
            assert "OPENAI_API_KEY" in result.output and "api_key_env" in result.output
            assert SECRET not in result.output
    assert server.requests == []
    assert count_rows(db, "responses") == 0
    assert SECRET.encode() not in _store_bytes(db)
