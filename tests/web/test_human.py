"""Blind pairwise votes and alignment checks: what a person does in the browser ends up as the
human judgments `lvlmbench agreement` reads, and nothing else can write them. These run in local
mode (no token): the one trusted user votes as the server's owner."""

from __future__ import annotations

import json
import re
from html import unescape

from fastapi.testclient import TestClient
from typer.testing import CliRunner
from web.conftest import CHOICE, LOCAL, MODELS, OPEN, Fixture

from lvlmbench.cli import app
from lvlmbench.judging.human_checks import CHECK_ANSWERS, HUMAN_CHECK
from lvlmbench.store import iter_judgments
from lvlmbench.web import Rate, WebSettings, create_app


def _field(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found is not None, name
    return found.group(1)


def _ballot(client: TestClient) -> tuple[str, str, str]:
    """(ballot id, csrf, page html) of a fresh vote page."""
    page = client.get(f"/b/{OPEN}/vote")
    assert page.status_code == 200
    return _field(page.text, "ballot"), _field(page.text, "csrf"), page.text


def _vote(client: TestClient, choice: str) -> str:
    ballot, csrf, _ = _ballot(client)
    form = {"ballot": ballot, "choice": choice, "csrf": csrf}
    reply = client.post(f"/b/{OPEN}/vote", data=form)
    assert reply.status_code == 200, reply.text
    return reply.text


def test_ballot_hides_the_models_until_the_vote(client: TestClient) -> None:
    _, _, page = _ballot(client)
    for model in MODELS:
        assert model not in page
    assert "Answer 1" in page and "Answer 2" in page


def test_vote_is_stored_with_sorted_players_and_revealed(
    client: TestClient, web_store: Fixture
) -> None:
    reveal = _vote(client, "left")
    shown = re.search(r"Answer 1 was <b>([^<]+)</b>, Answer 2 was <b>([^<]+)</b>", reveal)
    assert shown is not None
    left, right = shown.groups()
    votes = list(iter_judgments(web_store.store, protocol="human"))
    assert len(votes) == 1
    vote = votes[0]
    assert vote.judge == "human:owner"
    assert (vote.model_a, vote.model_b) == tuple(sorted((left, right)))
    winner = vote.model_a if vote.verdict == "a" else vote.model_b
    assert winner == left


def test_a_ballot_counts_once(client: TestClient, web_store: Fixture) -> None:
    ballot, csrf, _ = _ballot(client)
    form = {"ballot": ballot, "choice": "tie", "csrf": csrf}
    assert client.post(f"/b/{OPEN}/vote", data=form).status_code == 200
    assert client.post(f"/b/{OPEN}/vote", data=form).status_code == 409
    assert len(list(iter_judgments(web_store.store, protocol="human"))) == 1


def test_an_annotator_is_not_asked_the_same_pair_twice(web_store: Fixture) -> None:
    pairs = 6 * 3  # six items, three models → three pairs each
    unlimited = WebSettings(vote_limit=Rate(0, 1), ip_vote_limit=Rate(0, 1))
    with TestClient(create_app(web_store.store, unlimited), base_url=LOCAL) as client:
        for _ in range(pairs):
            _vote(client, "right")
        page = client.get(f"/b/{OPEN}/vote")
    assert 'id="no-ballot"' in page.text


def test_votes_without_csrf_or_from_another_site_are_refused(
    client: TestClient, web_store: Fixture
) -> None:
    ballot, csrf, _ = _ballot(client)
    form = {"ballot": ballot, "choice": "left"}
    assert client.post(f"/b/{OPEN}/vote", data=form).status_code == 403
    assert client.post(f"/b/{OPEN}/vote", data={**form, "csrf": "x" * 43}).status_code == 403
    foreign = client.post(
        f"/b/{OPEN}/vote",
        data={**form, "csrf": csrf},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    assert list(iter_judgments(web_store.store, protocol="human")) == []


def test_a_bad_choice_stores_nothing_and_keeps_the_ballot(
    client: TestClient, web_store: Fixture
) -> None:
    ballot, csrf, _ = _ballot(client)
    bad_choice = {"ballot": ballot, "choice": "both", "csrf": csrf}
    assert client.post(f"/b/{OPEN}/vote", data=bad_choice).status_code == 422
    assert list(iter_judgments(web_store.store, protocol="human")) == []
    good = client.post(f"/b/{OPEN}/vote", data={**bad_choice, "choice": "tie"})
    assert good.status_code == 200


def test_a_name_in_the_form_is_not_who_votes(client: TestClient, web_store: Fixture) -> None:
    """The form may claim any name (or a hostile one): the vote is the server's owner's."""
    ballot, csrf, page = _ballot(client)
    assert 'name="annotator"' not in page
    claimed = {"ballot": ballot, "choice": "left", "csrf": csrf, "annotator": "<b>x</b>"}
    assert client.post(f"/b/{OPEN}/vote", data=claimed).status_code == 200
    judges = {j.judge for j in iter_judgments(web_store.store, protocol="human")}
    assert judges == {"human:owner"}


def _rank(text: str) -> int:
    """How ROUGE-L against the reference orders the three answers: m/good copies it, m/bad
    shares one word ("a"), m/evil none."""
    return 2 if text.startswith("a yellow square") else 1 if text == "a red circle" else 0


def test_agreement_command_reads_the_web_votes(client: TestClient, web_store: Fixture) -> None:
    """A voter who always prefers what ROUGE-L prefers agrees with it 100% by the CLI."""
    for _ in range(8):
        ballot, csrf, page = _ballot(client)
        texts = re.findall(r'<h3>Answer [12]</h3><p class="text">([^<]*)<', page)
        assert len(texts) == 2
        choice = "left" if _rank(unescape(texts[0])) > _rank(unescape(texts[1])) else "right"
        form = {"ballot": ballot, "choice": choice, "csrf": csrf}
        assert client.post(f"/b/{OPEN}/vote", data=form).status_code == 200
    result = CliRunner().invoke(
        app,
        ["agreement", OPEN, "--judge", "metric/rougeL", "--json", "--store", web_store.store.url],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["judge"] == "metric/rougeL"
    assert data["pairs"] == 8
    overall = data["levels"][-1]
    assert overall["pairs"] == 8 and overall["coin_flip_rate"] == 1.0
    page = client.get(f"/b/{OPEN}")
    table = re.search(r'<table id="agreement">.*?</table>', page.text, re.S)
    assert table is not None and "metric/rougeL" in table.group(0)
    assert "100.0%" in table.group(0)


def test_alignment_checks_are_stored_and_summarised(client: TestClient, web_store: Fixture) -> None:
    page = client.get(f"/b/{CHOICE}/check")
    item_id, csrf = _field(page.text, "item"), _field(page.text, "csrf")
    form = {
        "item": item_id,
        "csrf": csrf,
        "image-matches-description": "yes",
        "description-matches-aspect": "unsure",
        "key-is-right": "no",
    }
    reply = client.post(f"/b/{CHOICE}/check", data=form, follow_redirects=False)
    assert reply.status_code == 303
    stored = {j.model_a: j.verdict for j in iter_judgments(web_store.store, protocol=HUMAN_CHECK)}
    assert stored == {
        "image-matches-description": "yes",
        "description-matches-aspect": "unsure",
        "key-is-right": "no",
    }
    board = client.get(f"/b/{CHOICE}")
    table = re.search(r'<table id="checks">.*?</table>', board.text, re.S)
    assert table is not None
    assert "Does the image match the description?" in table.group(0)
    bad = {**form, "key-is-right": "perhaps"}
    assert client.post(f"/b/{CHOICE}/check", data=bad).status_code == 422


def test_check_page_starts_unanswered_and_refuses_a_skipped_question(
    client: TestClient, web_store: Fixture
) -> None:
    """The check page used to pre-select "unsure" everywhere, so "Save and next" stored three
    answers nobody gave and retired the item; now nothing is chosen, and a save with a question
    left out is refused with that question named and nothing stored."""
    page = client.get(f"/b/{CHOICE}/check")
    assert "checked" not in page.text
    assert page.text.count(" required>") == 3 * len(CHECK_ANSWERS)  # three questions apply
    item_id, csrf = _field(page.text, "item"), _field(page.text, "csrf")
    form = {"item": item_id, "csrf": csrf, "image-matches-description": "yes", "key-is-right": "no"}
    reply = client.post(f"/b/{CHOICE}/check", data=form, follow_redirects=False)
    assert reply.status_code == 422
    assert "Does the description test the aspect it was written for?" in unescape(reply.text)
    assert "Is the answer key right?" not in unescape(reply.text)
    assert list(iter_judgments(web_store.store, protocol=HUMAN_CHECK)) == []
    complete = {**form, "description-matches-aspect": "unsure"}
    saved = client.post(f"/b/{CHOICE}/check", data=complete, follow_redirects=False)
    assert saved.status_code == 303
    stored = {j.model_a: j.verdict for j in iter_judgments(web_store.store, protocol=HUMAN_CHECK)}
    assert stored == {k: v for k, v in complete.items() if k not in ("item", "csrf")}
