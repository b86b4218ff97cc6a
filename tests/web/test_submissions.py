"""Leaderboard submissions: a valid file is stored, scored in the background and shows on the
leaderboard; a bad file stores nothing and names every bad line."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
from fakes import ScriptedModel
from fastapi.testclient import TestClient
from web.conftest import CHOICE, LOCAL, OPEN, Fixture

from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.judging import PAIRWISE_REF, run_pairwise
from lvlmbench.judging.pairwise_report import pairwise_report
from lvlmbench.models import ModelClient
from lvlmbench.store import iter_judgments, iter_responses
from lvlmbench.types import Message, ModelOutput
from lvlmbench.web import WebSettings, create_app
from lvlmbench.web.background import pairwise_plan
from lvlmbench.web.submissions import list_submissions


def _csrf(client: TestClient, name: str) -> str:
    page = client.get(f"/b/{name}/submit")
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def _upload(client: TestClient, name: str, model: str, body: bytes) -> httpx.Response:
    return client.post(
        f"/b/{name}/submit",
        data={"model": model, "csrf": _csrf(client, name)},
        files={"answers": ("answers.jsonl", body, "application/jsonl")},
        follow_redirects=False,
    )


def _jsonl(rows: list[dict[str, object]]) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


def test_choice_submission_is_scored_and_on_the_leaderboard(
    client: TestClient, web_store: Fixture
) -> None:
    # Right on the first eight items, a wordy wrong answer on the rest.
    rows: list[dict[str, object]] = [
        {"item_id": item.id, "text": f"The answer is ({item.answer})."}
        for item in web_store.choice_items[:8]
    ] + [{"id": item.id, "response": "I think (Z)"} for item in web_store.choice_items[8:]]
    reply = _upload(client, CHOICE, "my-model_1", _jsonl(rows))
    assert reply.status_code == 303
    status = client.get(reply.headers["location"])
    assert "status: <b>done</b>" in status.text
    accuracy = {r.model: r for r in accuracy_table(web_store.store, CHOICE)}
    mine = accuracy["submission/my-model_1"]
    assert (mine.correct, mine.answered) == (8, 12)
    board = client.get(f"/b/{CHOICE}")
    assert 'data-model="submission/my-model_1" data-facet="overall"' in board.text
    assert "66.7" in board.text


def test_open_submission_is_judged_with_the_benchmarks_metrics(
    client: TestClient, web_store: Fixture
) -> None:
    rows: list[dict[str, object]] = [
        {"item_id": item.id, "text": item.reference} for item in web_store.open_items
    ]
    reply = _upload(client, OPEN, "copycat", _jsonl(rows))
    assert reply.status_code == 303
    scores = [
        j.score_a
        for j in iter_judgments(web_store.store, protocol="metric:rougeL")
        if j.model_a == "submission/copycat"
    ]
    assert scores == [1.0] * 6
    lengths = [j for j in iter_judgments(web_store.store, protocol="metric:length")]
    assert sum(j.model_a == "submission/copycat" for j in lengths) == 6
    (submission,) = list_submissions(web_store.store, OPEN)
    assert submission.status == "done" and submission.metrics == ["length", "rougeL"]
    assert "submission/copycat" in client.get(f"/b/{OPEN}").text


def test_bad_file_lists_every_bad_line_and_stores_nothing(
    client: TestClient, web_store: Fixture
) -> None:
    good = web_store.choice_items[0].id
    body = b"\n".join(
        [
            json.dumps({"item_id": good, "text": "A"}).encode(),
            b"{not json",
            json.dumps({"item_id": "nope", "text": "A"}).encode(),
            json.dumps({"item_id": good, "text": "B"}).encode(),
            json.dumps({"text": "B"}).encode(),
            json.dumps([1, 2]).encode(),
            b'{"item_id": "mc01", "text": "\xff\xfe"}',
            json.dumps({"item_id": "mc02", "text": 7}).encode(),
        ]
    )
    reply = _upload(client, CHOICE, "broken", body)
    assert reply.status_code == 422
    text = reply.text
    for expected in (
        "line 2: not JSON",
        "line 3: no item &#39;nope&#39;",
        "line 4: item &#39;mc00&#39; already answered on line 1",
        "line 5: expected a string field &#39;item_id&#39;",
        "line 6: expected a JSON object, found list",
        "line 7: not UTF-8",
        "line 8: expected a string field &#39;text&#39;",
    ):
        assert expected in text, expected
    assert list(iter_responses(web_store.store, model="submission/broken")) == []
    assert list_submissions(web_store.store) == []


def test_empty_file_bad_name_and_taken_name(client: TestClient, web_store: Fixture) -> None:
    assert _upload(client, CHOICE, "empty", b"\n\n").status_code == 422
    row = _jsonl([{"item_id": "mc00", "text": "A"}])
    assert _upload(client, CHOICE, "../x", row).status_code == 422
    assert _upload(client, CHOICE, "once", row).status_code == 303
    again = _upload(client, CHOICE, "once", row)
    assert again.status_code == 422
    assert "already has answers" in again.text


def test_api_endpoint_takes_jsonl_and_refuses_form_content_types(
    client: TestClient, web_store: Fixture
) -> None:
    body = _jsonl([{"item_id": item.id, "text": item.answer} for item in web_store.choice_items])
    url = f"/api/b/{CHOICE}/submissions?model=scripted"
    refused = client.post(url, content=body, headers={"Content-Type": "text/plain"})
    assert refused.status_code == 415
    reply = client.post(url, content=body, headers={"Content-Type": "application/jsonl"})
    assert reply.status_code == 202
    assert reply.json()["model"] == "submission/scripted"
    accuracy = {r.model: r.accuracy for r in accuracy_table(web_store.store, CHOICE)}
    assert accuracy["submission/scripted"] == 1.0
    bad = client.post(
        f"/api/b/{CHOICE}/submissions?model=other",
        content=b"oops",
        headers={"Content-Type": "application/jsonl"},
    )
    assert bad.status_code == 422 and bad.json()["errors"][0].startswith("line 1: not JSON")


def _fair_judge(messages: list[Message]) -> ModelOutput:
    """Prefers the answer that copies the reference; a tie when neither or both do."""
    text = messages[-1].text()
    a = re.search(r'Response A:\n"""\n(.*?)\n"""', text, re.S)
    b = re.search(r'Response B:\n"""\n(.*?)\n"""', text, re.S)
    assert a is not None and b is not None
    a_good, b_good = (m.group(1).startswith("a yellow square") for m in (a, b))
    verdict = "A" if a_good and not b_good else "B" if b_good and not a_good else "tie"
    return ModelOutput(text=f"Reasoning.\n[[{verdict}]]")


def test_open_submission_is_judged_pairwise_when_the_server_has_a_judge(
    web_store: Fixture,
) -> None:
    """Players the judge compared before stay; the new model is judged against them only."""
    store = web_store.store
    earlier = ScriptedModel(steps=[_fair_judge] * 100, spec="fake/judge")
    asyncio.run(
        run_pairwise(
            store, OPEN, ["m/good", "m/bad"], ModelClient(earlier, store), reference_backed=True
        )
    )
    assert len(earlier.calls) == 6 * 2
    judge = ScriptedModel(steps=[_fair_judge] * 100, spec="fake/judge")
    app = create_app(store, WebSettings(), judge=lambda: judge)
    with TestClient(app, base_url=LOCAL) as client:
        rows: list[dict[str, object]] = [
            {"item_id": item.id, "text": "a red circle, maybe"} for item in web_store.open_items
        ]
        reply = _upload(client, OPEN, "newcomer", _jsonl(rows))
        assert reply.status_code == 303
        status = client.get(reply.headers["location"])
        assert "Judged pairwise by fake/judge" in status.text
    # Two new pairs per item (vs m/good, vs m/bad), both orders; nothing judged twice.
    assert len(judge.calls) == 6 * 2 * 2
    report = pairwise_report(store, OPEN, "fake/judge", protocol=PAIRWISE_REF)
    assert report.online_elo is not None
    elo = report.online_elo.shuffled
    assert "submission/newcomer" in elo and elo["submission/newcomer"] < elo["m/good"]


def test_pairwise_plan_without_earlier_judging_plays_the_reference(web_store: Fixture) -> None:
    store = web_store.store
    plan = pairwise_plan(store, web_store.open_items, "fake/judge", "submission/x")
    assert plan == (["submission/x"], False, True)
    assert pairwise_plan(store, web_store.choice_items, "fake/judge", "submission/x") is None
