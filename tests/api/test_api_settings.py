"""Generation settings given to the Python API name the model exactly as `lvlmbench evaluate`'s
flags do, with the same defaults: answers made under other settings are never reused for the
plain spec, and answers made under the command line's defaults are (a real local server records
what each request carried)."""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

import pytest
from cli_runs import count_rows, evaluate_json
from http_fixture import ChatRecorder
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.models import GenerationSettings, RegistryError
from lvlmbench.store import Store, iter_judgments, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, GenerationConfig, Response

BENCH = "quiz"
ITEMS = 10
CLI_MAX_TOKENS = 4096  # `lvlmbench evaluate`'s reply budget without --max-tokens (README)


def _letter_a(body: dict[str, Any], seen: int) -> tuple[str, str]:
    return "Answer: A", "stop"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return write_quiz(tmp_path / "s.db", BENCH, ITEMS)


def test_a_config_is_part_of_the_name_so_the_plain_cli_run_asks_anew(db: Path) -> None:
    with ChatRecorder(_letter_a) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        made = api.evaluate(BENCH, [spec], store=str(db), config=GenerationConfig(temperature=0.5))
        sent = server.chats
        assert len(sent) == ITEMS
        # The temperature given, and the command line's budget (not GenerationConfig's 512).
        assert {(b["temperature"], b["max_tokens"]) for b in sent} == {(0.5, CLI_MAX_TOKENS)}
        named = f"{spec}&temperature=0.5"
        assert [run.model for run in made.runs] == [named]
        assert set(made.overall_accuracy()) == {named}
        plain = evaluate_json(db, BENCH, "-m", spec)
        assert (plain["runs"][0]["skipped"], plain["runs"][0]["ok"]) == (0, ITEMS)
        assert len(server.chats) == 2 * ITEMS
        assert {b["temperature"] for b in server.chats[ITEMS:]} == {0.0}
        # The flag that says the same finds the API's answers: nothing is asked again.
        flagged = evaluate_json(db, BENCH, "-m", spec, "--temperature", "0.5")
        assert flagged["runs"][0]["model"] == named
        assert flagged["runs"][0]["skipped"] == ITEMS and len(server.chats) == 2 * ITEMS
    assert count_rows(db, "responses") == 2 * ITEMS


@pytest.mark.parametrize(
    "config",
    [None, GenerationConfig(), GenerationConfig(temperature=0.0), GenerationSettings()],
    ids=["none", "config-unset", "config-temperature-0", "settings-unset"],
)
def test_the_command_lines_defaults_reuse_its_answers(
    db: Path, config: GenerationConfig | GenerationSettings | None
) -> None:
    with ChatRecorder(_letter_a) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        evaluate_json(db, BENCH, "-m", spec)
        again = api.evaluate(BENCH, [spec], store=str(db), config=config)
        assert len(server.chats) == ITEMS
    assert [(run.model, run.skipped, run.ok) for run in again.runs] == [(spec, ITEMS, 0)]
    # write_quiz keys A, B, C, D in turn: "A" is right on items 0, 4 and 8 of 10.
    assert again.overall_accuracy() == {spec: pytest.approx(0.3)}


def test_every_setting_matches_its_flag(db: Path) -> None:
    config = GenerationConfig(
        temperature=0.7, top_p=0.9, seed=3, max_tokens=77, params={"reasoning_effort": "low"}
    )
    flags = ["--temperature", "0.7", "--top-p", "0.9", "--seed", "3", "--max-tokens", "77",
             "--param", "reasoning_effort=low"]  # fmt: skip
    with ChatRecorder(_letter_a) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        made = api.evaluate(BENCH, [spec], store=str(db), config=config)
        body = server.chats[0]
        by_flags = evaluate_json(db, BENCH, "-m", spec, *flags)
        assert len(server.chats) == ITEMS
    assert (body["temperature"], body["top_p"], body["seed"], body["max_tokens"]) == (
        0.7,
        0.9,
        3,
        77,
    )
    assert body["reasoning_effort"] == "low"
    assert by_flags["runs"][0]["model"] == made.runs[0].model
    assert by_flags["runs"][0]["skipped"] == ITEMS


def test_settings_no_flag_takes_are_refused_before_anything_is_written(db: Path) -> None:
    spec = "openai/m?base_url=http://127.0.0.1:9/v1"
    with pytest.raises(ValueError, match="stop"):
        api.evaluate(BENCH, [spec], store=str(db), config=GenerationConfig(stop=("END",)))
    with pytest.raises(RegistryError, match="temperature"):
        api.evaluate(BENCH, [spec], store=str(db), config=GenerationConfig(temperature=-1))
    with pytest.raises(ValueError, match="temperature"):  # the spec says otherwise
        api.evaluate(
            BENCH,
            [f"{spec}&temperature=0.2"],
            store=str(db),
            config=GenerationConfig(temperature=0.5),
        )
    assert count_rows(db, "responses") == 0


def test_a_credential_given_to_the_api_is_refused_and_its_value_is_nowhere(db: Path) -> None:
    secret = "sk-live-Q7xAPIPARAMSECRET42"
    with ChatRecorder(_letter_a) as server, pytest.raises(RegistryError) as refused:
        api.evaluate(
            BENCH,
            [f"openai/m?base_url={server.url}/v1"],
            store=str(db),
            config=GenerationConfig(params={"api_key": secret}),
        )
    shown = "".join(traceback.format_exception(refused.value))
    assert "looks like a credential" in shown and "OPENAI_API_KEY" in shown
    assert secret not in shown
    assert server.requests == []
    stored = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    assert secret.encode() not in stored


def test_the_judges_settings_are_part_of_its_name_as_with_the_judge_flags(tmp_path: Path) -> None:
    db = tmp_path / "open.db"
    store = Store.open(str(db))
    put_benchmark(store, "open", "open", {})
    items = [
        BenchmarkItem(id=f"o{i}", benchmark="open", question=f"Describe {i}.", reference="A cat.")
        for i in range(3)
    ]
    put_items(store, items)
    answers = {"m/good": "A cat.", "m/bad": "A dog."}
    put_responses(
        store,
        [Response(item_id=it.id, model=m, text=t) for it in items for m, t in answers.items()],
    )
    store.close()

    def verdict(body: dict[str, Any], seen: int) -> tuple[str, str]:
        return "Verdict: A", "stop"

    with ChatRecorder(verdict) as server:
        judge = f"openai/j?base_url={server.url}/v1"
        made = api.judge(
            "open", list(answers), judge, store=str(db), config=GenerationConfig(temperature=0.3)
        )
        asked = len(server.chats)
        flags = ["--temperature", "0.3", "--store", str(db)]
        cli = CliRunner().invoke(
            app, ["judge", "pairwise", "open", "-m", "m/good", "-m", "m/bad", "-j", judge, *flags]
        )
        assert cli.exit_code == 0, cli.output
        assert len(server.chats) == asked  # the same judge under the same settings: cached
    assert made.ok > 0 and asked > 0
    assert {b["temperature"] for b in server.chats} == {0.3}
    store = Store.open(str(db))
    try:
        judges = {j.judge for j in iter_judgments(store)}
    finally:
        store.close()
    assert judges == {f"{judge}&temperature=0.3"}
