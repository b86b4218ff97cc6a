"""A small store with one choice benchmark and one open-ended benchmark (three models each,
metric judgments on the open one, a hostile answer), and a web app over it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pngs import solid_png

# The browser tests' fixtures, shared by every module here (a conftest below the root cannot
# name plugins).
from web.chromium import browser as browser
from web.chromium import page as page
from web.chromium import shots as shots

from lvlmbench.judging.metrics import judge_with_metrics
from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response, Status
from lvlmbench.web import WebSettings, create_app

CHOICE = "mc-bench"
OPEN = "open-bench"
HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(1)>"
LEVELS = ("easy", "medium", "hard")
CAPABILITIES = ("spatial", "colour")
MODELS = ("m/good", "m/bad", "m/evil")
LOCAL = "http://127.0.0.1:8000"
"""Where test clients send their requests: a Host the loopback app answers (TestClient's
default, ``testserver``, is refused like any foreign name)."""


@dataclass
class Fixture:
    store: Store
    choice_items: list[BenchmarkItem]
    open_items: list[BenchmarkItem]


def _choice_items(store: Store) -> list[BenchmarkItem]:
    items = []
    for i in range(12):
        image = store.put_image(solid_png((20 * i, 100, 200), size=(32, 32)))
        items.append(
            BenchmarkItem(
                id=f"mc{i:02d}",
                benchmark=CHOICE,
                kind="mc",
                question=f"Which shape is number {i}?",
                options={"A": "circle", "B": "square", "C": "star", "D": "heart"},
                answer="ABCD"[i % 4],
                images=[image],
                caption=f"A picture with shape {i}.",
                category=CAPABILITIES[i % 2],
                meta={
                    "capability": CAPABILITIES[i % 2],
                    "fine_aspect": f"aspect {i % 3}",
                    "difficulty": LEVELS[i % 3],
                },
            )
        )
    return items


def _choice_responses(items: list[BenchmarkItem]) -> list[Response]:
    responses = []
    for i, item in enumerate(items):
        assert item.answer is not None
        wrong = "ABCD"[(i + 1) % 4]
        # m/good is right on all but every fourth item; m/bad only on every third.
        good = item.answer if i % 4 else wrong
        bad = item.answer if i % 3 == 0 else wrong
        for model, letter in (("m/good", good), ("m/bad", bad)):
            responses.append(Response(item_id=item.id, model=model, text=letter, extracted=letter))
        responses.append(
            Response(item_id=item.id, model="m/evil", text=HOSTILE, status=Status.UNPARSEABLE)
        )
    return responses


def _open_items(store: Store) -> list[BenchmarkItem]:
    image = store.put_image(solid_png((250, 200, 0), size=(32, 32)))
    return [
        BenchmarkItem(
            id=f"op{i:02d}",
            benchmark=OPEN,
            kind="open",
            question=f"Describe picture {i}.",
            images=[image],
            reference=f"a yellow square number {i} on a plain background",
            caption="A yellow square.",
            category="describe",
        )
        for i in range(6)
    ]


def _open_responses(items: list[BenchmarkItem]) -> list[Response]:
    texts = {
        "m/good": "a yellow square number {i} on a plain background",
        "m/bad": "a red circle",
        "m/evil": HOSTILE,
    }
    return [
        Response(item_id=item.id, model=model, text=text.format(i=i))
        for i, item in enumerate(items)
        for model, text in texts.items()
    ]


def build_store(path: Path) -> Fixture:
    """The test store at ``path`` (a new directory)."""
    store = Store.open(str(path / "store.db"))
    choice, opened = _choice_items(store), _open_items(store)
    put_benchmark(store, CHOICE, "autobench", {})
    put_benchmark(store, OPEN, "open", {})
    put_items(store, choice)
    put_items(store, opened)
    put_responses(store, _choice_responses(choice) + _open_responses(opened))
    judge_with_metrics(store, OPEN, list(MODELS), ["rougeL", "length"])
    return Fixture(store, choice, opened)


@pytest.fixture()
def web_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fixture]:
    built = build_store(tmp_path_factory.mktemp("web"))
    yield built
    built.store.close()


@pytest.fixture()
def client(web_store: Fixture) -> Iterator[TestClient]:
    with TestClient(create_app(web_store.store, WebSettings()), base_url=LOCAL) as test_client:
        yield test_client
