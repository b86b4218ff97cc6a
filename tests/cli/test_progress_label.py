"""The progress line names a model by a short form of its spec: a ``--system-prompt`` (often a
whole file) shows as its first words and the digest the model's identity carries, not in full."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from cli.test_generation_settings import BENCH, ChatRecorder, _always_a, db, runner  # noqa: F401

from lvlmbench.cli import app
from lvlmbench.cli._common import err_console

PROMPT = " ".join(
    f"Rule {i}: look at every corner of the picture before you answer." for i in range(40)
)
DIGEST = "sha256:" + hashlib.sha256(PROMPT.encode()).hexdigest()[:16]


def test_the_progress_line_shows_the_system_prompt_s_first_words_and_digest(
    db: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(err_console, "width", 300)  # a wide terminal: nothing cut for width
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(PROMPT, encoding="utf-8")
    with ChatRecorder(_always_a) as server:
        args = ["evaluate", BENCH, "-m", f"openai/m?base_url={server.url}/v1", "--store", str(db)]
        result = runner.invoke(app, [*args, "--system-prompt", f"@{prompt}"])
        assert result.exit_code == 0, result.output
        assert server.chats[0]["messages"][0]["content"] == PROMPT  # sent in full
    label = f'system="Rule 0: look at every corner…" ({DIGEST})'
    assert label in result.stderr
    assert "Rule 1:" not in result.output and "Rule+0" not in result.output


def test_spec_labels_keep_other_options_and_short_prompts() -> None:
    from lvlmbench.models import spec_label

    assert spec_label("openai/m") == "openai/m"
    short = "openai/m?base_url=http://h:1/v1&system=Be+terse."
    digest = "sha256:" + hashlib.sha256(b"Be terse.").hexdigest()[:16]
    assert spec_label(short) == f'openai/m?base_url=http://h:1/v1&system="Be terse." ({digest})'
    # A digest typed back (an identity used as a spec) stays as it is.
    assert spec_label(f"openai/m?system={digest}") == f"openai/m?system={digest}"
    one_long_word = "x" * 200
    assert spec_label(f"openai/m?system={one_long_word}").count("x") == 48
