"""The leaderboard is computed once per store revision and never served stale: two Store
objects on one file stand for the web server and a CLI run in another process."""

from fastapi.testclient import TestClient

from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response
from lvlmbench.web import create_app
from lvlmbench.web.revision_cache import RevisionCache

LOCAL = "http://127.0.0.1:8000"
BENCH = "rev-bench"


def _items() -> list[BenchmarkItem]:
    return [
        BenchmarkItem(
            id=f"r{i}",
            benchmark=BENCH,
            kind="mc",
            question=f"q{i}",
            options={"A": "x", "B": "y"},
            answer="A",
        )
        for i in range(4)
    ]


def _answers(model: str, right: int) -> list[Response]:
    return [
        Response(item_id=f"r{i}", model=model, text=letter, extracted=letter)
        for i, letter in enumerate("A" * right + "B" * (4 - right))
    ]


def _accuracy(client: TestClient) -> dict[str, float]:
    summary = client.get(f"/api/b/{BENCH}/leaderboard").json()["summary"]
    return {row["model"]: row["accuracy"] for row in summary["overall"]}


def test_a_write_by_another_store_object_shows_on_the_next_view(tmp_path):
    path = str(tmp_path / "s.db")
    server, cli = Store.open(path), Store.open(path)
    put_benchmark(cli, BENCH, "mc", {})
    put_items(cli, _items())
    put_responses(cli, _answers("m/first", 3))
    app = create_app(server)
    figures: RevisionCache = app.state.figures
    client = TestClient(app, base_url=LOCAL)

    page = client.get(f"/b/{BENCH}")
    assert page.status_code == 200 and "m/first" in page.text and "m/second" not in page.text
    assert _accuracy(client) == {"m/first": 75.0}
    again = client.get(f"/b/{BENCH}")
    assert again.text == page.text
    hits = figures.hits
    assert hits >= 1  # the unchanged store was not summarised again

    put_responses(cli, _answers("m/second", 1))  # the other process writes
    page = client.get(f"/b/{BENCH}")
    assert "m/second" in page.text
    assert _accuracy(client) == {"m/first": 75.0, "m/second": 25.0}
    put_responses(cli, _answers("m/first", 4))  # a replaced row changes no count
    assert _accuracy(client) == {"m/first": 100.0, "m/second": 25.0}
    assert figures.hits == hits  # every view after a write was computed afresh
    cli.close()
    server.close()


def test_cache_keeps_only_the_current_revision_and_recomputes_after_a_write(tmp_path):
    store = Store.open(str(tmp_path / "s.db"))
    cache = RevisionCache(store, size=2)
    calls: list[str] = []

    def compute(tag: str) -> str:
        calls.append(tag)
        return f"{tag}@{store.revision()}"

    assert cache.get("a", lambda: compute("a")) == cache.get("a", lambda: compute("a"))
    assert calls == ["a"]
    put_items(store, _items()[:1])
    assert cache.get("a", lambda: compute("a")).endswith(f"@{store.revision()}")
    assert calls == ["a", "a"]
    cache.get("b", lambda: compute("b"))
    cache.get("c", lambda: compute("c"))  # size 2: "a" (least recently used) is dropped
    cache.get("a", lambda: compute("a"))
    assert calls == ["a", "a", "b", "c", "a"]
