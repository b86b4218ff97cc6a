"""Retries on the progress line (with a terminal) and failures grouped by reason."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from lvlmbench.cli import _common
from lvlmbench.models import ModelClient, RetryEvent, load_chat_model


def _terminal(monkeypatch: pytest.MonkeyPatch, terminal: bool) -> io.StringIO:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=terminal, width=200, color_system=None)
    monkeypatch.setattr(_common, "err_console", console)
    return buffer


def _client() -> ModelClient:
    return ModelClient(load_chat_model("openai/m?base_url=http://127.0.0.1:9/v1"), None)


def test_a_retry_shows_on_the_progress_line_of_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = _terminal(monkeypatch, terminal=True)
    client = _client()
    seen: list[RetryEvent] = []
    client.on_retry = seen.append  # an earlier listener keeps getting events
    with _common.progress_bar("openai/m", True, client) as hook:
        hook(3, 10)
        assert client.on_retry is not None
        client.on_retry(RetryEvent(2, 6, 4.0, "HTTP 503"))
        hook(4, 10)
    assert "retry 2/6 in 4 s: HTTP 503 (1 retry)" in screen.getvalue()
    assert len(seen) == 1 and client.on_retry == seen.append  # restored afterwards


def test_no_status_hook_without_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    _terminal(monkeypatch, terminal=False)
    client = _client()
    with _common.progress_bar("openai/m", True, client) as hook:
        hook(1, 2)
        assert client.on_retry is None


def test_failures_are_grouped_most_frequent_first(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = _terminal(monkeypatch, terminal=False)
    _common.print_reasons({"m: HTTP 400: too large": 2, "m: timed out": 5}, "m: not ok")
    lines = screen.getvalue().splitlines()
    assert lines[0] == "m: not ok: 7 by reason"
    assert [line.split(maxsplit=1) for line in lines[1:]] == [
        ["5", "m: timed out"],
        ["2", "m: HTTP 400: too large"],
    ]
    _common.print_reasons({}, "nothing")
    assert len(screen.getvalue().splitlines()) == 3
