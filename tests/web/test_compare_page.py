"""The web app's comparisons page: the report's Comparisons table for the store as it is now,
every model against the best or ``?baseline=``; an unknown baseline is a 404."""

from __future__ import annotations

from pathlib import Path

from compare_store import write_choice_store
from fastapi.testclient import TestClient
from web.conftest import LOCAL

from lvlmbench.store import Store
from lvlmbench.web import WebSettings, create_app

# 20 items (0-9 easy, 10-19 hard): A right on all; B wrong on easy 4-9 and hard 19.
A = [1] * 20
B = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0] + [1] * 9 + [0]


def test_the_page_shows_the_paired_table_and_takes_a_baseline(tmp_path: Path) -> None:
    store = Store.open(str(write_choice_store(tmp_path / "s.db", {"a": A, "b": B})))
    with TestClient(create_app(store, WebSettings()), base_url=LOCAL) as client:
        page = client.get("/b/quiz/compare")
        assert page.status_code == 200
        # B − A: −35 pp, McNemar 0 vs 7 discordant, p = 2/128, Holm ×3 over all/easy/hard.
        assert (
            "<td>b vs a</td><td>all</td><td>65.0</td><td>100.0</td><td>-35.0 pp</td>" in page.text
        )
        assert "<td>0.0156</td><td>0.0469</td><td>McNemar exact 0/7</td>" in page.text
        other = client.get("/b/quiz/compare", params={"baseline": "b"})
        assert "<td>a vs b</td><td>all</td>" in other.text
        assert client.get("/b/quiz/compare", params={"baseline": "zed"}).status_code == 404
        assert client.get("/b/nope/compare").status_code == 404
    store.close()


def test_a_single_model_has_nothing_to_compare(tmp_path: Path) -> None:
    store = Store.open(str(write_choice_store(tmp_path / "s.db", {"a": A})))
    with TestClient(create_app(store, WebSettings()), base_url=LOCAL) as client:
        page = client.get("/b/quiz/compare")
    store.close()
    assert page.status_code == 200 and "Nothing to compare" in page.text
