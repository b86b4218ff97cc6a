"""`lvlmbench generate` in scene mode against a local OpenAI-compatible examiner that writes a
wrong answer key until it is told why: the key check's verdicts and re-asks are counted in the
summary and in --json, apart from the self-check's rejected renders, and every request that
redraws a scene program is seeded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from examiner_fakes import COLOURS, Call, assigned_truth, default_reply, description_colours
from examiner_fakes import prompt_kind as kind_of
from http_fixture import Recorded, RecordingServer, Reply
from typer.testing import CliRunner

from lvlmbench.autobench.descriptions import _SEED_STRIDE as SEED_STRIDE
from lvlmbench.cli import app
from lvlmbench.types import GenerationConfig, Message

runner = CliRunner()
TOLD = "contradicts your answer key"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def _wrong_until_told(call: Call) -> str:
    """The circle keyed with the square's colour, until a re-ask says what the program has."""
    if any(TOLD in m.text() for m in call.messages):
        return default_reply(call)
    circle, square = description_colours(call.description)
    form: dict[str, Any] = {"kind": "color", "subject": {"category": "circle"}}
    if call.kind == "mc":
        wrong = [c for c in COLOURS if c not in (circle, square)][:2]
        body = {"question": "What colour is the circle?", "kind": "mc", "correct": square}
        return json.dumps({**body, "distractors": [circle, *wrong], "form": form})
    truth = assigned_truth(call.prompt) or "true"
    claim = square if truth == "true" else circle
    body = {"question": f"The circle is {claim}.", "kind": "tf", "correct": truth}
    return json.dumps({**body, "distractors": [], "form": {**form, "claim": claim}})


class ExaminerServer(RecordingServer):
    """Answers every chat request as the scripted examiner does (question writers wrong until
    told), and the client's preflight GET with a 404."""

    def _answer(self, recorded: Recorded) -> Reply:
        if recorded.method == "GET":
            return Reply(404, {"error": {"message": "no such route"}})
        body = recorded.json()
        with self._lock:
            self.requests.append(recorded)
        build = {"system": Message.system, "user": Message.user, "assistant": Message.assistant}
        messages = [build[m["role"]](_text(m["content"])) for m in body["messages"]]
        # A description round's sampling epoch is not sent; its provider seed ends in it.
        epoch = int(body.get("seed") or 0) % SEED_STRIDE
        call = Call(kind_of(messages), messages, GenerationConfig(epoch=epoch))
        text = _wrong_until_told(call) if call.kind in ("mc", "tf") else default_reply(call)
        choice = {"index": 0, "message": {"role": "assistant", "content": text}}
        usage = {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27}
        return Reply(200, {"choices": [{**choice, "finish_reason": "stop"}], "usage": usage})


@pytest.fixture
def server() -> Any:
    with ExaminerServer() as running:
        yield running


def _generate(server: ExaminerServer, db: Path, *flags: str) -> str:
    args = ["generate", "colour naming", "--examiner", f"openai/m?base_url={server.url}/v1"]
    args += ["--images", "procedural", "--mode", "scene", "-n", "1", "-k", "1"]
    args += ["--per-aspect", "4", "--levels", "easy", "--k-checks", "2", "--tf-share", "0.5"]
    result = runner.invoke(app, [*args, "--store", str(db), *flags])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_verdicts_and_reasks_are_counted_apart_from_rejected_renders(
    server: ExaminerServer, tmp_path: Path
) -> None:
    report = json.loads(_generate(server, tmp_path / "s.db", "--json"))
    check, keys = report["self_check"], report["key_check"]
    # Four units, each drawn once: every key was wrong, asked again once and then verified.
    assert (check["units"], check["accepted"], check["renders"]) == (4, 4, 4)
    assert check["rejected_renders"] == 0
    assert keys == {
        "questions": 4,
        "verified": 4,
        "mismatched": 0,
        "not_checkable": 0,
        "reasks": 4,
        "fixed_by_reask": 4,
        "units_dropped": 0,
    }
    told = [r.json() for r in server.requests if TOLD in json.dumps(r.json()["messages"])]
    assert len(told) == 4
    # The summary a person reads says the same (the re-run resumes: no new requests).
    before = len(server.requests)
    summary = " ".join(_generate(server, tmp_path / "s.db").split())
    assert len(server.requests) == before
    assert "0 of 4 renders rejected" in summary
    assert "4 verified, 0 mismatched (0 units dropped), 0 not checkable; 4 re-asks (4 fixed)" in (
        summary
    )
