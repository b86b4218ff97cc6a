"""The web app in a real browser: Debian's Chromium driven by Playwright against a real
uvicorn server. Screenshots of the main pages go to $LVLMBENCH_SCREENSHOTS (or a temp dir).

Skipped when /usr/bin/chromium is missing, unless LVLMBENCH_REQUIRE_BROWSER=1 (set by
`make test`, which installs it) turns that into a failure.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web.chromium import require_chromium
from web.conftest import CHOICE, OPEN, Fixture, build_store
from web.signin import ManualClock
from web_server import running

from lvlmbench.runner import item_messages
from lvlmbench.store import invite_annotator, iter_judgments
from lvlmbench.web import WebSettings, create_app

pytestmark = pytest.mark.integration

require_chromium()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Fixture]]:
    built = build_store(tmp_path_factory.mktemp("browser"))
    with running(create_app(built.store)) as base:
        yield base, built
    built.store.close()


def test_leaderboard_shows_numbers_and_charts(
    served: tuple[str, Fixture], page, shots: Path
) -> None:  # type: ignore[no-untyped-def]
    base, _ = served
    page.goto(f"{base}/b/{CHOICE}")
    cell = page.locator('td.acc[data-model="m/good"][data-facet="overall"]')
    assert cell.inner_text() == "75.0"
    assert page.locator("svg").count() >= 2
    page.screenshot(path=str(shots / "leaderboard.png"), full_page=True)


def test_filtering_items_in_the_form(served: tuple[str, Fixture], page, shots: Path) -> None:  # type: ignore[no-untyped-def]
    base, _ = served
    page.goto(f"{base}/b/{CHOICE}/items")
    assert page.locator("#count").inner_text().startswith("12 item(s)")
    page.select_option('select[name="model"]', "m/good")
    page.select_option('select[name="outcome"]', "wrong")
    page.click("#filters button[type=submit]")
    page.wait_for_url("**outcome=wrong**")
    assert page.locator("#count").inner_text().startswith("3 item(s)")
    ids = {page.locator(".card.item").nth(i).get_attribute("data-id") for i in range(3)}
    assert ids == {"mc00", "mc04", "mc08"}
    page.screenshot(path=str(shots / "items-filtered.png"), full_page=True)


def test_casting_a_vote_stores_a_human_judgment(
    served: tuple[str, Fixture], page, shots: Path
) -> None:  # type: ignore[no-untyped-def]
    base, built = served
    page.goto(f"{base}/b/{OPEN}/vote")
    page.screenshot(path=str(shots / "vote.png"), full_page=True)
    assert "m/good" not in page.content()
    assert page.locator("#voter").inner_text() == "owner"  # local mode: the one trusted user
    page.click("#vote-2")
    reveal = page.locator("#reveal").inner_text()
    assert "Answer 1 was" in reveal and "You chose: Answer 2" in reveal
    votes = [j for j in iter_judgments(built.store, protocol="human") if j.judge == "human:owner"]
    assert len(votes) == 1
    shown_second = reveal.split("Answer 2 was ")[1].split(".")[0].strip()
    winner = votes[0].model_a if votes[0].verdict == "a" else votes[0].model_b
    assert winner == shown_second


def test_check_page_refuses_to_save_unanswered_questions(  # type: ignore[no-untyped-def]
    served: tuple[str, Fixture], page, shots: Path
) -> None:
    """Nothing is pre-chosen on the check page: "Save and next" with the questions untouched
    stays on the page with the browser's own "choose an option" prompt and stores nothing;
    once every question has an answer the save goes through."""
    base, built = served
    page.goto(f"{base}/b/{CHOICE}/check")
    assert page.locator("#check-form input[type=radio]:checked").count() == 0
    page.click("#send-check")
    first = page.locator("#check-form input[type=radio]").first
    assert first.evaluate("radio => radio.validationMessage") != ""
    assert page.url == f"{base}/b/{CHOICE}/check"
    assert list(iter_judgments(built.store, protocol="human-check")) == []
    page.screenshot(path=str(shots / "check-unanswered.png"), full_page=True)
    for fieldset in page.locator("#check-form fieldset").all():
        fieldset.locator('input[value="yes"]').check()
    page.click("#send-check")
    page.wait_for_load_state()
    verdicts = [j.verdict for j in iter_judgments(built.store, protocol="human-check")]
    assert verdicts == ["yes", "yes", "yes"]


def test_uploaded_submission_reaches_the_leaderboard(  # type: ignore[no-untyped-def]
    served: tuple[str, Fixture], page, shots: Path, tmp_path: Path
) -> None:
    base, built = served
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "\n".join(
            json.dumps({"item_id": item.id, "text": f"({item.answer})"})
            for item in built.choice_items
        ),
        encoding="utf-8",
    )
    page.goto(f"{base}/b/{CHOICE}/submit")
    page.fill('input[name="model"]', "from-browser")
    page.set_input_files('input[name="answers"]', str(answers))
    page.click("#upload")
    page.wait_for_url("**/submissions/**")
    for _ in range(50):  # judging runs in the background after the redirect
        if "done" in page.locator("#status").inner_text():
            break
        time.sleep(0.1)
        page.reload()
    assert "done" in page.locator("#status").inner_text()
    page.goto(f"{base}/b/{CHOICE}")
    cell = page.locator('td.acc[data-model="submission/from-browser"][data-facet="overall"]')
    assert cell.inner_text() == "100.0"
    page.screenshot(path=str(shots / "leaderboard-with-submission.png"), full_page=True)


def test_hostile_answer_renders_as_inert_text(
    served: tuple[str, Fixture], page, shots: Path
) -> None:  # type: ignore[no-untyped-def]
    base, _ = served
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{base}/b/{CHOICE}/items/mc01")
    row = page.locator("#responses tr", has_text="m/evil")
    assert "<script>alert(1)</script>" in row.inner_text()
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("script").count() == 0
    page.goto(f"{base}/b/{CHOICE}/items?model=m/evil")
    page.screenshot(path=str(shots / "hostile.png"), full_page=True)
    assert dialogs == []


def test_image_paths_cannot_escape(served: tuple[str, Fixture], page) -> None:  # type: ignore[no-untyped-def]
    base, built = served
    for path in ("/images/../../etc/passwd", "/images/..%2F..%2Fetc%2Fpasswd"):
        response = page.goto(base + path)
        assert response is not None and response.status == 404, path
        assert "root:" not in page.content()
    digest = built.choice_items[0].images[0]
    response = page.goto(f"{base}/images/{digest}")
    assert response is not None and response.status == 200


def test_transcript_shows_the_messages_as_sent(  # type: ignore[no-untyped-def]
    served: tuple[str, Fixture], page, shots: Path
) -> None:
    base, built = served
    item = next(i for i in built.choice_items if i.id == "mc01")
    sent = item_messages(built.store)(item)
    page.goto(f"{base}/b/{CHOICE}/items/mc01")
    transcript = page.locator('.transcript[data-model="m/good"]')
    texts = transcript.locator(".sent-text").all_inner_texts()
    assert texts == [sent[0].text()]  # question, options and answer instruction, verbatim
    thumb = transcript.locator("img.thumb")
    assert thumb.get_attribute("data-digest") == sent[0].images()[0].sha256() == item.images[0]
    assert thumb.evaluate("img => img.complete && img.naturalWidth") == 32  # served, decoded
    assert transcript.locator(".reply").inner_text().endswith("B")  # m/good's raw answer
    assert "not recorded" in transcript.inner_text()  # fixture rows predate cache keys
    page.screenshot(path=str(shots / "transcript.png"), full_page=True)
    page.click("#next")
    page.wait_for_url("**/items/mc02")
    page.click("#previous")
    page.wait_for_url("**/items/mc01")
    page.goto(f"{base}/b/{CHOICE}")
    page.click('td.acc[data-model="m/good"][data-facet="overall"] a')
    page.wait_for_url("**/items?model=m%2Fgood")
    assert page.locator("#count").inner_text().startswith("12 item(s)")
    page.screenshot(path=str(shots / "items-from-cell.png"), full_page=True)


OWNER_TOKEN = "owner-token-for-the-browser"


@pytest.fixture(scope="module")
def shared_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Fixture, str]]:
    """A shared server (write token) with one invited annotator, alice; yields her token. Its
    limits run on a clock that stands still, so a back-off lasts however slow the test is."""
    built = build_store(tmp_path_factory.mktemp("shared"))
    token = invite_annotator(built.store, "alice")
    settings = WebSettings(host="0.0.0.0", token=OWNER_TOKEN)
    with running(create_app(built.store, settings, clock=ManualClock())) as base:
        yield base, built, token
    built.store.close()


def _sign_in(page, base: str, token: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base}/login")
    page.fill('input[name="token"]', token)
    page.click("#sign-in")


def test_identity_cookie_in_a_real_browser(  # type: ignore[no-untyped-def]
    shared_served: tuple[str, Fixture, str], page, browser, shots: Path
) -> None:
    """alice signs in with her invite token, gets an HttpOnly signed cookie that scripts cannot
    read and that holds neither her token nor anything she could rename, and votes as alice; the
    owner excludes her vote on the annotators page; alice signs out, a wrong token is refused
    and the next try from this address, even with the right token, waits."""
    base, built, token = shared_served
    page.goto(f"{base}/b/{OPEN}/vote")
    assert page.locator("#sign-in-first").count() == 1
    _sign_in(page, base, token)
    page.wait_for_url(f"{base}/")
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "lvlmbench_id"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert token not in cookie["value"]
    assert "lvlmbench_id" not in page.evaluate("document.cookie")
    page.goto(f"{base}/b/{OPEN}/vote")
    assert page.locator("#voter").inner_text() == "alice"
    assert page.locator('input[name="annotator"]').count() == 0
    page.screenshot(path=str(shots / "vote-signed-in.png"), full_page=True)
    page.click("#vote-1")
    assert "You chose: Answer 1" in page.locator("#reveal").inner_text()
    judges = [j.judge for j in iter_judgments(built.store, protocol="human")]
    assert judges == ["human:alice"]
    owner = browser.new_context().new_page()
    _sign_in(owner, base, OWNER_TOKEN)
    owner.wait_for_url(f"{base}/")
    owner.goto(f"{base}/annotators?benchmark={OPEN}")
    row = owner.locator('tr[data-annotator="alice"]')
    assert row.locator("td.votes").inner_text() == "1"
    row.locator('input[name="reason"]').fill("testing")
    row.locator('button[value="exclude"]').click()
    owner.wait_for_url(f"{base}/annotators?benchmark={OPEN}")
    assert "excluded" in (owner.locator('tr[data-annotator="alice"]').get_attribute("class") or "")
    owner.screenshot(path=str(shots / "annotators.png"), full_page=True)
    owner.goto(f"{base}/b/{OPEN}")
    assert "excluded by the owner" in owner.locator("#people").inner_text()
    owner.context.close()

    page.click("#sign-out")
    page.wait_for_url(f"{base}/")
    assert page.locator("#nav-sign-in").count() == 1
    _sign_in(page, base, "not-a-token")
    assert page.locator("#login-failed").count() == 1
    _sign_in(page, base, token)
    assert "too many sign-in attempts" in page.locator("#error").inner_text()
    page.screenshot(path=str(shots / "sign-in-throttled.png"), full_page=True)
