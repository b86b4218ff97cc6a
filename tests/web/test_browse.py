"""Read-only pages: numbers equal the store's, filters select exactly the right items, model
text is inert, images are served by hash only."""

from __future__ import annotations

import io
import re

from fastapi.testclient import TestClient
from PIL import Image
from web.conftest import CHOICE, HOSTILE, OPEN, Fixture

from lvlmbench.autobench.experiments import rekey_benchmark
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.store import iter_responses


def _item_ids(html: str) -> set[str]:
    return set(re.findall(r'class="card item" data-id="([^"]+)"', html))


def test_index_lists_every_benchmark_with_counts(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert f'href="/b/{CHOICE}"' in page.text and f'href="/b/{OPEN}"' in page.text
    row = re.search(rf"<td><a href=\"/b/{CHOICE}\">.*?</tr>", page.text, re.S)
    assert row is not None and '<td class="num">12</td>' in row.group(0)


def test_leaderboard_shows_the_stores_accuracy(client: TestClient, web_store: Fixture) -> None:
    page = client.get(f"/b/{CHOICE}")
    assert page.status_code == 200
    rows = accuracy_table(web_store.store, CHOICE)
    assert {r.model for r in rows} == {"m/good", "m/bad", "m/evil"}
    for row in rows:
        cell = re.search(
            rf'<td class="acc" data-model="{re.escape(row.model)}" data-facet="overall"'
            r'[^>]*><a href="[^"]+">([0-9.]+)</a></td>',
            page.text,
        )
        assert cell is not None, row.model
        assert cell.group(1) == f"{100 * row.accuracy:.1f}"
    assert "<svg" in page.text


def test_filter_by_model_and_outcome_selects_exactly_the_wrong_answers(
    client: TestClient, web_store: Fixture
) -> None:
    wrong = {
        r.item_id
        for r in iter_responses(web_store.store, model="m/good")
        if r.item_id.startswith("mc") and r.extracted != _key(web_store, r.item_id)
    }
    page = client.get(f"/b/{CHOICE}/items", params={"model": "m/good", "outcome": "wrong"})
    assert page.status_code == 200
    assert _item_ids(page.text) == wrong == {"mc00", "mc04", "mc08"}
    right = client.get(f"/b/{CHOICE}/items", params={"model": "m/good", "outcome": "right"})
    assert _item_ids(right.text) == {f"mc{i:02d}" for i in range(12)} - wrong


def _key(web_store: Fixture, item_id: str) -> str | None:
    return next(i.answer for i in web_store.choice_items if i.id == item_id)


def test_facet_filters_combine(client: TestClient) -> None:
    page = client.get(f"/b/{CHOICE}/items", params={"capability": "spatial", "difficulty": "hard"})
    # spatial: even indexes; hard: i % 3 == 2 → 2, 8.
    assert _item_ids(page.text) == {"mc02", "mc08"}
    assert "2 item(s)" in page.text


def test_unparseable_outcome_filter_and_bad_filter_value(client: TestClient) -> None:
    page = client.get(f"/b/{CHOICE}/items", params={"model": "m/evil", "outcome": "unparseable"})
    assert len(_item_ids(page.text)) == 12
    assert client.get(f"/b/{CHOICE}/items", params={"outcome": "maybe"}).status_code == 422


def test_hostile_model_text_is_escaped_everywhere(client: TestClient) -> None:
    for url in (
        f"/b/{CHOICE}/items/mc01",
        f"/b/{OPEN}/items/op01",
        f"/b/{CHOICE}/items?model=m/evil",
    ):
        page = client.get(url)
        assert page.status_code == 200, url
        assert HOSTILE not in page.text, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text, url
        assert "<img src=x" not in page.text, url


def test_item_page_shows_every_response_and_metric_judgment(client: TestClient) -> None:
    page = client.get(f"/b/{OPEN}/items/op02")
    assert page.status_code == 200
    for model in ("m/good", "m/bad", "m/evil"):
        assert model in page.text
    assert page.text.count("metric:rougeL") == 3
    assert "a yellow square number 2 on a plain background" in page.text


def test_unknown_benchmark_and_item_are_404(client: TestClient) -> None:
    assert client.get("/b/nope").status_code == 404
    assert client.get(f"/b/{CHOICE}/items/op01").status_code == 404  # item of another benchmark
    assert client.get(f"/b/{CHOICE}/items/zzz").status_code == 404


def test_images_only_by_content_hash(client: TestClient, web_store: Fixture) -> None:
    digest = web_store.choice_items[0].images[0]
    image = client.get(f"/images/{digest}")
    assert image.status_code == 200
    assert image.content == web_store.store.read_image(digest)
    assert image.headers["content-type"] == "image/png"
    for bad in (
        "/images/..%2F..%2Fetc%2Fpasswd",
        "/images/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/images/" + digest.upper(),
        "/images/" + "0" * 64,
        "/images/" + digest[:-1],
        "/images/" + digest + ".png",
    ):
        assert client.get(bad).status_code == 404, bad


def test_a_stored_jpeg_is_served_as_jpeg(client: TestClient, web_store: Fixture) -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (0, 90, 200)).save(buffer, format="JPEG")
    digest = web_store.store.put_image(buffer.getvalue())  # kept as given, under <hash>.jpg
    image = client.get(f"/images/{digest}")
    assert image.status_code == 200
    assert image.content == buffer.getvalue()
    assert image.headers["content-type"] == "image/jpeg"


def test_every_page_sends_the_security_headers(client: TestClient) -> None:
    page = client.get("/")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"


def test_position_bias_copies_are_listed_under_their_source(
    client: TestClient, web_store: Fixture
) -> None:
    copy = rekey_benchmark(web_store.store, CHOICE, "A")
    page = client.get("/")
    assert f'<td><a href="/b/{copy}">' not in page.text
    assert f'href="/b/{copy}/items">keys-A-s0</a>' in page.text
    assert client.get(f"/b/{copy}/items").status_code == 200
