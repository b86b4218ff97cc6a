"""Credentials in a ``base_url`` through the command line: evaluate, models check and report
work (no aiohttp traceback), the server gets them as basic auth, and the password reaches no
output line and no file (store, journals, report, summary, CSVs), short or long."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.models import _secrets as secrets

runner = CliRunner()


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short password registered here is forgotten afterwards."""
    for name in ("_secrets", "_short", "_short_forms", "_short_words"):
        monkeypatch.setattr(secrets, name, getattr(secrets, name))


@pytest.mark.timeout(90)
@pytest.mark.parametrize("password", ["Zq7", "Zq7-a-longer-password"])
def test_url_credentials_are_sent_and_never_shown_or_stored(
    password: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set-as-well-0123456789")  # what made aiohttp raise
    db = write_quiz(tmp_path / "s.db", "bench", 6)
    token = base64.b64encode(f"alice:{password}".encode()).decode()
    with FakeOpenAIServer(echo_key=True) as server:
        url = server.base_url.replace("http://", f"http://alice:{password}@")
        spec = f"openai/m?base_url={url}"
        identity = f"openai/m?base_url={server.base_url}"
        verbose = runner.invoke(app, ["-v", "evaluate", "bench", "-m", spec, "--store", str(db)])
        as_json = runner.invoke(
            app, ["evaluate", "bench", "-m", spec, "--store", str(db), "--json"]
        )
        check = runner.invoke(app, ["models", "check", spec, "--json"])
        typo = runner.invoke(app, ["models", "check", f"{spec}&max_token=3"])
    report = runner.invoke(
        app, ["report", "--out", str(tmp_path / "out" / "report.html"), "--store", str(db)]
    )
    for result in (verbose, as_json, check, report):
        assert result.exit_code == 0, result.output
    assert typo.exit_code == 2 and "unknown option 'max_token'" in typo.output
    # The server got the credentials as basic auth (it echoes the header back, masked).
    assert json.loads(check.stdout)["reply"].endswith("(you sent Basic ***)")
    assert json.loads(check.stdout)["model"] == identity
    assert [run["model"] for run in json.loads(as_json.stdout)["runs"]] == [identity]
    for result in (verbose, as_json, check, typo, report):
        assert "Traceback" not in result.output
        assert password not in result.output and token not in result.output
        assert f"alice:{password}" not in result.output
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".html" for p in written) and any(p.name == "s.db" for p in written)
    for path in written:
        data = path.read_bytes()
        assert password.encode() not in data and token.encode() not in data, path
