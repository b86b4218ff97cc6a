"""The real case behind the image-token check: llama.cpp serving Gemma 3 270M with the text-only
``gemma`` chat format takes correct image parts, drops the whole turn they are in and answers
anyway. ``models check --image`` must fail, and ``evaluate`` must warn, on exactly this server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.store import Store, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

pytestmark = pytest.mark.integration

runner = CliRunner()


def test_models_check_image_fails_on_a_text_only_chat_format(llama_server, tmp_path: Path):
    picture = tmp_path / "square.png"
    Image.new("RGB", (64, 64), "red").save(picture)
    spec = f"openai/{llama_server.model}"
    args = ["models", "check", spec, "--base-url", llama_server.base_url, "--max-tokens", "8"]
    result = runner.invoke(app, [*args, "--image", str(picture), "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["status"] == "ok"  # the server answered: only the tokens tell
    assert report["image_seen"] == "no"
    with_image, without = report["input_tokens"], report["input_tokens_without_image"]
    # Seen here: 7 with the image (the turn of parts is dropped), 20 for the question alone.
    assert 0 < with_image < without
    assert "the image added no prompt tokens" in " ".join(result.output.split())
    text_only = runner.invoke(app, [*args, "--json"])  # no --image: nothing to compare
    assert text_only.exit_code == 0, text_only.output
    assert json.loads(text_only.stdout)["input_tokens"] == without


def test_evaluate_warns_about_the_dropped_images(llama_server, tmp_path: Path):
    db = tmp_path / "s.db"
    store = Store.open(str(db))
    put_benchmark(store, "bench", "test", {})
    buffer = tmp_path / "blue.png"
    Image.new("RGB", (32, 32), "blue").save(buffer)
    image = store.put_image(buffer.read_bytes())
    put_items(
        store,
        [
            BenchmarkItem(
                id=f"q{i}",
                benchmark="bench",
                question="Which colour is the square?",
                kind="mc",
                options={"A": "red", "B": "blue"},
                answer="B",
                images=[image],
            )
            for i in range(2)
        ],
    )
    store.close()
    spec = f"openai/{llama_server.model}?base_url={llama_server.base_url}&max_tokens=8"
    result = runner.invoke(app, ["evaluate", "bench", "-m", spec, "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    [run] = json.loads(result.stdout)["runs"]
    [warning] = run["warnings"]
    assert "image items cost no more prompt tokens than their text alone" in warning
