"""A run whose images added no prompt tokens ends with one warning: the server dropped them (a
text-only model or chat format), and its answers would be scored as answers about pictures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer
from pngs import solid_png
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.runner import run_examinees
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

ITEMS = 6


def _bench(path: Path, with_images: bool = True) -> Path:
    store = Store.open(str(path))
    put_benchmark(store, "bench", "test", {})
    put_items(
        store,
        [
            BenchmarkItem(
                id=f"q{i}",
                benchmark="bench",
                question=f"Question {i}: which colour is the square?",
                kind="mc",
                options={"A": "red", "B": "green", "C": "blue", "D": "grey"},
                answer="A",
                images=[store.put_image(solid_png((40 * i, 0, 0)))] if with_images else [],
            )
            for i in range(ITEMS)
        ],
    )
    store.close()
    return path


def _text_words(messages: list[Any]) -> int:
    content = messages[-1]["content"]
    texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content]
    return sum(len(t.split()) for t in texts)


def _images(messages: list[Any]) -> int:
    content = messages[-1]["content"]
    return 0 if isinstance(content, str) else sum(p["type"] == "image_url" for p in content)


def reads_images(messages: list[Any]) -> int:
    """A vision server: the words, and 85 tokens per image."""
    return _text_words(messages) + 85 * _images(messages)


def drops_parts(messages: list[Any]) -> int:
    """llama.cpp with a text-only chat format: a turn made of parts is lost whole."""
    return 7 if _images(messages) else _text_words(messages)


def strips_images(messages: list[Any]) -> int:
    """A text-only server that keeps the words and ignores the images."""
    return _text_words(messages)


def no_usage(messages: list[Any]) -> int:
    return 0


async def _run(db: Path, server: FakeOpenAIServer) -> list[str]:
    store = Store.open(str(db))
    try:
        [summary] = await run_examinees(
            store, "bench", [f"openai/m?base_url={server.base_url}"], concurrency=4
        )
    finally:
        store.close()
    assert summary.ok + summary.skipped == ITEMS
    return summary.warnings


@pytest.mark.parametrize("server_kind", [drops_parts, strips_images])
async def test_a_server_that_drops_images_is_warned_about_once(
    server_kind: Any, tmp_path: Path
) -> None:
    db = _bench(tmp_path / "s.db")
    with FakeOpenAIServer(prompt_tokens=server_kind) as server:
        warnings = await _run(db, server)
        asked = server.stats.requests
        assert asked == ITEMS + 1  # every item, and the first one once more without its image
        again = await _run(db, server)  # a second run: said again, paid for nothing
        assert server.stats.requests == asked
    [warning] = warnings
    assert again == warnings
    # The prompt is 25 words (the question, four options, the answer instruction): the fake
    # counts a token a word.
    with_image = 7 if server_kind is drops_parts else 25
    assert (
        f"image items cost no more prompt tokens than their text alone ({with_image} prompt "
        "tokens with the image, 25 without it, item q0)" in warning
    )


@pytest.mark.parametrize(
    ("server_kind", "with_images", "extra_calls"),
    [(reads_images, True, 1), (no_usage, True, 0), (drops_parts, False, 0)],
)
async def test_nothing_is_said_when_images_count_or_cannot_be_checked(
    server_kind: Any, with_images: bool, extra_calls: int, tmp_path: Path
) -> None:
    db = _bench(tmp_path / "s.db", with_images=with_images)
    with FakeOpenAIServer(prompt_tokens=server_kind) as server:
        assert await _run(db, server) == []
        assert server.stats.requests == ITEMS + extra_calls


def test_evaluate_prints_the_warning_once_and_puts_it_in_json(tmp_path: Path) -> None:
    db = _bench(tmp_path / "s.db")
    runner = CliRunner()
    with FakeOpenAIServer(prompt_tokens=drops_parts) as server:
        spec = f"openai/m?base_url={server.base_url}"
        shown = runner.invoke(app, ["evaluate", "bench", "-m", spec, "--store", str(db)])
        as_json = runner.invoke(
            app, ["evaluate", "bench", "-m", spec, "--store", str(db), "--json"]
        )
    assert shown.exit_code == 0 and as_json.exit_code == 0, shown.output + as_json.output
    printed = " ".join(shown.output.split())  # as wrapped for the terminal's width
    assert printed.count("warning:") == 1
    assert "warning: openai/m?base_url=" in printed
    assert "7 prompt tokens with the image, 25 without it, item q0" in printed
    [run] = json.loads(as_json.stdout)["runs"]
    assert len(run["warnings"]) == 1 and "seems to drop images" in run["warnings"][0]
