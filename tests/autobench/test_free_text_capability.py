"""A free-text capability with the built-in (procedural) examiner: composed openly from the
built-in fine aspects that mention its words, or refused with the command that uses a model
examiner; never silently replaced by another capability."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.autobench.procedural import ProceduralBackend
from lvlmbench.cli import app
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.report import benchmark_html
from lvlmbench.scenes.compose import CapabilityRefused, compose_capability
from lvlmbench.store import Store, iter_items
from lvlmbench.web import WebSettings, create_app

runner = CliRunner()
LOCAL = "http://127.0.0.1:8000"


def test_words_no_built_in_aspect_mentions_are_refused_with_the_model_command() -> None:
    for text, word in (("reading clocks", "clocks"), ("counting people in crowds", "crowds")):
        with pytest.raises(CapabilityRefused) as refused:
            compose_capability(text)
        message = str(refused.value)
        assert f"cannot express '{word}'" in message
        assert f"lvlmbench generate '{text}' --examiner " in message and "--mode text" in message
    with pytest.raises(CapabilityRefused, match="capability is empty"):
        compose_capability("   ")


def test_composition_ranks_the_aspects_that_mention_every_word_first() -> None:
    assert compose_capability("Spatial  Understanding") is None  # built in: no mapping
    composed = compose_capability("counting by colour")
    assert composed is not None
    assert composed.words == ("count", "colour")
    best = composed.aspects[0]
    assert best.matched == ("count", "colour")
    assert best.fine in ("counting objects of one colour", "counting by colour and shape")
    # Every chosen aspect matched at least one word, and the note names the words.
    assert all(a.matched for a in composed.aspects)
    note = composed.note(composed.aspects[:2])
    assert note.startswith("'counting by colour' is not a built-in capability: composed from 2 ")
    assert "mention its words (count, colour)" in note
    assert f"'{best.fine}' (count/colour)" in note


async def _generate(store: Store, capability: str) -> dict[str, Any]:
    settings = GenerateSettings(capability=capability, n=1, m=2, per_aspect=1, levels=("easy",))
    images = ImageClient(load_image_model("procedural"), store)
    try:
        return (await generate_benchmark(store, settings, ProceduralBackend(), images)).as_json()
    finally:
        await images.aclose()


def test_composed_items_say_what_they_test_and_distinct_texts_differ(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        first = asyncio.run(_generate(store, "counting objects"))
        second = asyncio.run(_generate(store, "object counting"))
        for report, text in ((first, "counting objects"), (second, "object counting")):
            assert report["plan"]["capability"] == text
            assert report["plan"]["note"].startswith(f"{text!r} is not a built-in capability")
        a = list(iter_items(store, "counting-objects-s0"))
        b = list(iter_items(store, "object-counting-s0"))
        assert a and b
        for items, text in ((a, "counting objects"), (b, "object counting")):
            for item in items:
                assert item.meta["capability"] == item.category == text
                assert item.meta["builtin_capability"] == "basic understanding"
                assert f"built-in fine aspect {item.meta['fine_aspect']!r}" in str(
                    item.meta["capability_mapping"]
                )
        # The same built-in aspects, yet not the same items: the text seeds the scenes.
        assert {i.meta["fine_aspect"] for i in a} == {i.meta["fine_aspect"] for i in b}
        assert {i.images[0] for i in a}.isdisjoint({i.images[0] for i in b})
        # The report (and the web app's leaderboard page, which shows this section) says so.
        html = benchmark_html(store, "counting-objects-s0")
        assert 'data-figure="capability-note"' in html
        assert "&#x27;counting objects&#x27; is not a built-in capability" in html
        with TestClient(create_app(store, WebSettings()), base_url=LOCAL) as client:
            page = client.get("/b/counting-objects-s0")
        assert page.status_code == 200
        assert "&#x27;counting objects&#x27; is not a built-in capability" in page.text
    finally:
        store.close()


def test_cli_refuses_before_writing_and_shows_the_mapping(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    base = ["-n", "1", "-k", "1", "--per-aspect", "1", "--levels", "easy", "--store", str(db)]
    refused = runner.invoke(app, ["generate", "reading clocks", *base])
    assert refused.exit_code == 2
    flat = " ".join(refused.output.split())
    assert "cannot express 'clocks'" in flat and "--examiner openai/gpt-4o" in flat
    assert not db.exists()
    empty = runner.invoke(app, ["generate", "", *base])
    assert empty.exit_code == 2 and "capability is empty" in empty.output
    assert not db.exists()

    made = runner.invoke(app, ["generate", "counting objects", *base])
    assert made.exit_code == 0, made.output
    flat = " ".join(made.output.split())
    assert "'counting objects' is not a built-in capability: composed from" in flat
    as_json = runner.invoke(app, ["generate", "counting objects", *base, "--json"])
    assert "is not a built-in capability" in json.loads(as_json.stdout)["plan"]["note"]
