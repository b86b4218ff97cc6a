"""`models check --image` asks the question once more without the image and fails when the
image added no prompt tokens: a text-only server (llama.cpp with a text-only chat format) took
correct image parts, counted 7 prompt tokens and answered, and the check said "ok"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_fixture import RecordingServer
from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli import app

runner = CliRunner()


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    path = tmp_path / "cat.png"
    Image.new("RGB", (16, 16), "orange").save(path)
    return path


def _reply(prompt_tokens: int | None) -> dict[str, Any]:
    body: dict[str, Any] = {"choices": [{"message": {"content": "A cat."}}]}
    if prompt_tokens is not None:
        body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": 3}
    return body


def _check(server: RecordingServer, picture: Path, *more: str) -> Any:
    spec = f"openai/m?base_url={server.url}/v1"
    return runner.invoke(app, ["models", "check", spec, "--image", str(picture), *more])


def _contents(server: RecordingServer) -> list[Any]:
    """The user turn's content of each chat request, in order."""
    chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    return [r.json()["messages"][-1]["content"] for r in chats]


def test_an_image_that_adds_no_prompt_tokens_fails_the_check(
    server: RecordingServer, picture: Path
) -> None:
    server.reply({"data": []})  # the preflight's GET /models
    server.reply(_reply(7))  # with the image: what llama.cpp's text-only gemma format counted
    server.reply(_reply(20))  # the question alone
    result = _check(server, picture, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert (report["input_tokens"], report["input_tokens_without_image"]) == (7, 20)
    assert report["image_seen"] == "no"
    assert "the image added no prompt tokens (7 prompt tokens with the image, 20 without it)" in (
        result.output
    )
    with_image, without = _contents(server)
    assert [part["type"] for part in with_image] == ["image_url", "text"]
    assert without == "Say hello in five words."  # the same question, image left out
    chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert chats[1].json()["max_tokens"] == 1  # only the prompt is measured


def test_an_image_that_costs_prompt_tokens_passes(server: RecordingServer, picture: Path) -> None:
    server.reply({"data": []})
    server.reply(_reply(20 + 85))
    server.reply(_reply(20))
    result = _check(server, picture, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["input_tokens"], report["input_tokens_without_image"]) == (105, 20)
    assert report["image_seen"] == "yes"


def test_same_count_with_and_without_the_image_fails_too(
    server: RecordingServer, picture: Path
) -> None:
    server.reply({"data": []})
    server.reply(_reply(20))  # parts stripped, text kept: exactly the text's tokens
    server.reply(_reply(20))
    result = _check(server, picture)
    assert result.exit_code == 1
    assert "20 prompt tokens with the image, 20 without it" in result.output


def test_a_server_without_usage_cannot_be_checked_and_says_so(
    server: RecordingServer, picture: Path
) -> None:
    server.reply({"data": []})
    server.reply(_reply(None))
    result = _check(server, picture, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["image_seen"] == "unknown (the server reports no prompt tokens)"
    assert report["input_tokens_without_image"] is None
    assert len(_contents(server)) == 1  # nothing to compare: no second request


def test_a_failed_question_without_the_image_leaves_the_answer_unknown(
    server: RecordingServer, picture: Path
) -> None:
    server.reply({"data": []})
    server.reply(_reply(7))
    server.reply({"error": {"message": "no"}}, 400)  # the question alone is refused
    result = _check(server, picture, "--json")
    assert result.exit_code == 0, result.output  # nothing shown wrong: nothing claimed
    report = json.loads(result.stdout)
    assert (
        report["image_seen"] == "unknown (the question without the image got no token count back)"
    )
