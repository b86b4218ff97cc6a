"""The description↔aspect check on the web app's check page, and alignment rates per level on
the benchmark page (the report's section, embedded)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient
from web.conftest import CHOICE, Fixture

from lvlmbench.judging.human_checks import HUMAN_CHECK
from lvlmbench.store import iter_items, iter_judgments


def _field(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found is not None, name
    return found.group(1)


def test_aspect_check_is_offered_and_rated_per_level(client: TestClient, web_store: Fixture):
    levels = {i.id: i.meta["difficulty"] for i in iter_items(web_store.store, CHOICE)}
    verdicts = {}
    for n in range(3):
        page = client.get(f"/b/{CHOICE}/check")
        assert "Does the description test the aspect it was written for?" in page.text
        assert re.search(r'<span id="aspect">[^<]*aspect \d</span>', page.text)
        item_id = _field(page.text, "item")
        verdict = "yes" if n < 2 else "no"
        form = {
            "item": item_id,
            "csrf": _field(page.text, "csrf"),
            "annotator": "fay",
            "image-matches-description": "unsure",  # the page needs every question answered
            "description-matches-aspect": verdict,
            "key-is-right": "unsure",
        }
        assert (
            client.post(f"/b/{CHOICE}/check", data=form, follow_redirects=False).status_code == 303
        )
        verdicts[item_id] = verdict
    stored = {
        j.item_id: j.verdict
        for j in iter_judgments(web_store.store, protocol=HUMAN_CHECK)
        if j.model_a == "description-matches-aspect"
    }
    assert stored == verdicts  # a second answer to the same item and check replaces the first
    board = client.get(f"/b/{CHOICE}").text
    assert "Human evaluation: alignment rates" in board
    assert 'data-condition="guidelines"' in board
    for level in set(levels[i] for i in verdicts):
        yes = sum(1 for i, v in verdicts.items() if levels[i] == level and v == "yes")
        total = sum(1 for i in verdicts if levels[i] == level)
        cell = re.search(
            rf'<td data-check="description-matches-aspect" data-level="{level}">([^<]*)</td>',
            board,
        )
        assert cell is not None and cell.group(1).startswith(f"{100 * yes / total:.1f} [")
