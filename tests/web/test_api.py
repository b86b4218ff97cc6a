"""The read-only JSON API answers with the pages' numbers: every accuracy cell of the leaderboard,
every item count on the front page, the item browser's selection for the same filters, and the
leaderboard cells' links lead to exactly the items behind the cell's number."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient
from web.conftest import CHOICE, OPEN, Fixture

from lvlmbench.store import iter_responses
from lvlmbench.web import queries

_CELL = re.compile(
    r'<td class="acc" data-model="([^"]*)" data-facet="([^"]*)" data-group="([^"]*)">'
    r'<a href="([^"]+)">([0-9.]+)</a></td>'
)


def _cards(html: str) -> list[str]:
    return re.findall(r'class="card item" data-id="([^"]+)"', html)


def _api_accuracy(summary: dict[str, object], facet: str, model: str, group: str) -> float:
    rows = summary[facet]
    assert isinstance(rows, list)
    [row] = [r for r in rows if r["model"] == model and (facet == "overall" or r[facet] == group)]
    return float(row["accuracy"])


def test_benchmarks_equal_the_front_page(client: TestClient) -> None:
    listed = client.get("/api/benchmarks").json()["benchmarks"]
    page = client.get("/").text
    assert {b["name"] for b in listed} == {CHOICE, OPEN}
    for bench in listed:
        row = re.search(rf"<td><a href=\"/b/{bench['name']}\">.*?</tr>", page, re.S)
        assert row is not None
        assert f'<td class="num">{bench["items"]}</td>' in row.group(0)
        assert bench["models"] == ["m/bad", "m/evil", "m/good"]


def test_every_leaderboard_cell_equals_the_api(client: TestClient) -> None:
    page = client.get(f"/b/{CHOICE}").text
    body = client.get(f"/api/b/{CHOICE}/leaderboard").json()
    cells = _CELL.findall(page)
    assert {facet for _, facet, _, _, _ in cells} >= {"overall", "capability", "difficulty"}
    for model, facet, group, _, shown in cells:
        accuracy = _api_accuracy(body["summary"], facet, unescape(model), unescape(group))
        assert f"{accuracy:.1f}" == shown, (model, facet, group)
    rows = {r["model"]: r for r in body["rows"]}
    assert rows["m/good"]["accuracy"] == pytest.approx(75.0) and rows["m/bad"]["accuracy"] > 0


def test_cell_links_lead_to_the_items_behind_the_number(client: TestClient) -> None:
    page = client.get(f"/b/{CHOICE}").text
    for model, facet, group, href, shown in _CELL.findall(page):
        items = client.get(unescape(href))
        assert items.status_code == 200
        right = items.text.count('<span class="badge right">')
        scored = sum(
            items.text.count(f'<span class="badge {o}">') for o in ("right", "wrong", "unparseable")
        )
        assert scored > 0 and f"{100 * right / scored:.1f}" == shown, (model, facet, group)
        if facet == "capability":
            assert len(_cards(items.text)) == 6  # half of the 12 items each


def test_items_equal_the_browser_for_the_same_filters(client: TestClient) -> None:
    for params in (
        {},
        {"model": "m/good", "outcome": "wrong"},
        {"capability": "spatial", "difficulty": "hard"},
        {"right": "m/good", "wrong": "m/bad"},
        {"q": "NUMBER 11"},
        {"model": "m/evil", "q": "alert"},
    ):
        html = client.get(f"/b/{CHOICE}/items", params=params).text
        body = client.get(f"/api/b/{CHOICE}/items", params=params).json()
        assert [i["id"] for i in body["items"]] == _cards(html), params
        assert f"{body['total']} item(s)" in html


def test_model_a_right_model_b_wrong(client: TestClient, web_store: Fixture) -> None:
    keys = {i.id: i.answer for i in web_store.choice_items}
    said = {
        (r.model, r.item_id): r.extracted
        for r in iter_responses(web_store.store)
        if r.item_id in keys and r.variant == "default"
    }
    expected = {i for i in keys if said[("m/good", i)] == keys[i] != said[("m/bad", i)]}
    body = client.get(f"/api/b/{CHOICE}/items", params={"right": "m/good", "wrong": "m/bad"})
    assert {i["id"] for i in body.json()["items"]} == expected and expected
    # m/evil never answers parseably: unparseable counts as wrong, so B=m/evil keeps A's rights.
    good = client.get(f"/api/b/{CHOICE}/items", params={"right": "m/good", "wrong": "m/evil"})
    assert good.json()["total"] == 9


def test_search_and_option_texts(client: TestClient) -> None:
    body = client.get(f"/api/b/{CHOICE}/items", params={"q": "number 11"}).json()
    assert [i["id"] for i in body["items"]] == ["mc11"]
    assert client.get(f"/api/b/{CHOICE}/items", params={"q": "heart"}).json()["total"] == 12
    html = client.get(f"/b/{CHOICE}/items", params={"q": "number 11"}).text
    assert "<b>D</b>. heart" in html and 'value="number 11"' in html


def test_items_are_paginated(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queries, "PAGE_SIZE", 5)
    pages = [client.get(f"/api/b/{CHOICE}/items", params={"page": p}).json() for p in (1, 2, 3)]
    assert [p["pages"] for p in pages] == [3, 3, 3] and pages[0]["page_size"] == 5
    ids = [i["id"] for p in pages for i in p["items"]]
    assert ids == [f"mc{i:02d}" for i in range(12)]
    html = client.get(f"/b/{CHOICE}/items", params={"page": 2}).text
    assert _cards(html) == [i["id"] for i in pages[1]["items"]]


def test_item_equals_its_page(client: TestClient) -> None:
    body = client.get(f"/api/b/{OPEN}/items/op02").json()
    page = client.get(f"/b/{OPEN}/items/op02").text
    assert [t["response"]["model"] for t in body["transcripts"]] == ["m/bad", "m/evil", "m/good"]
    for shown in body["transcripts"]:
        assert f'data-model="{shown["response"]["model"]}"' in page
    table = re.search(r'<table id="judgments">.*?</table>', page, re.S)
    assert table is not None
    protocols = re.findall(r"<tr><td>([^<]+)</td>", table.group(0))
    assert protocols == [j["protocol"] for j in body["judgments"]] and len(protocols) == 6


def test_errors_are_json_and_foreign_hosts_are_refused(client: TestClient) -> None:
    missing = client.get("/api/b/nope/leaderboard")
    assert missing.status_code == 404 and "nope" in missing.json()["detail"]
    assert client.get(f"/api/b/{CHOICE}/items/zzz").status_code == 404
    bad = client.get(f"/api/b/{CHOICE}/items", params={"outcome": "maybe"})
    assert bad.status_code == 422 and "outcome" in bad.json()["detail"]
    foreign = client.get("/api/benchmarks", headers={"Host": "evil.example"})
    assert foreign.status_code in (400, 421) and "benchmarks" not in foreign.text
    assert client.post("/api/benchmarks").status_code == 405


def test_previous_and_next_walk_the_filtered_items(client: TestClient) -> None:
    wrong = {"model": "m/good", "outcome": "wrong"}  # mc00, mc04, mc08
    cards = client.get(f"/b/{CHOICE}/items", params=wrong).text
    assert 'href="/b/mc-bench/items/mc04?model=m%2Fgood&amp;outcome=wrong"' in cards
    page = client.get(f"/b/{CHOICE}/items/mc04", params=wrong).text
    assert 'href="/b/mc-bench/items/mc00?model=m%2Fgood&amp;outcome=wrong" id="previous"' in page
    assert 'href="/b/mc-bench/items/mc08?model=m%2Fgood&amp;outcome=wrong" id="next"' in page
    assert "item 2 of 3" in page
    body = client.get(f"/api/b/{CHOICE}/items/mc04", params=wrong).json()
    assert body["neighbours"] == {"previous": "mc00", "next": "mc08", "position": 2, "total": 3}
    plain = client.get(f"/api/b/{CHOICE}/items/mc04").json()["neighbours"]
    assert plain == {"previous": "mc03", "next": "mc05", "position": 5, "total": 12}
