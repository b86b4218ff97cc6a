"""Generation settings end to end: `lvlmbench evaluate` against a real local HTTP server that
records every request body. Each flag changes what is sent; settings split the stored answer
sets; a reply cut by the token limit is stored as truncated, apart from unparseable; --limit
picks a stable stratified subset; --epochs asks K times per item, once."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from http_fixture import ChatRecorder
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.ratings import wilson_interval
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem, Status

runner = CliRunner()
BENCH = "letters"
OPTIONS = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta"}


def _always_a(body: dict[str, Any], seen: int) -> tuple[str, str]:
    return "Answer: A", "stop"


def _items(n: int, strata: list[tuple[str, str]]) -> list[BenchmarkItem]:
    return [
        BenchmarkItem(
            id=f"q{i:02d}",
            benchmark=BENCH,
            question=f"Which option is the first letter of the Greek alphabet? ({i})",
            kind="mc",
            options=OPTIONS,
            answer="A",
            meta=dict(zip(("capability", "difficulty"), strata[i % len(strata)], strict=True)),
        )
        for i in range(n)
    ]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with 4 multiple-choice items keyed A."""
    return _make_store(tmp_path / "s.db", _items(4, [("counting", "easy")]))


def _make_store(path: Path, items: list[BenchmarkItem]) -> Path:
    store = Store.open(str(path))
    put_benchmark(store, BENCH, "imported", {"source": "test"})
    put_items(store, items)
    store.close()
    return path


def _evaluate(db: Path, server: ChatRecorder, *flags: str, spec: str = "") -> dict[str, Any]:
    model = spec or f"openai/m?base_url={server.url}/v1"
    args = ["evaluate", BENCH, "-m", model, "--store", str(db), "--json", *flags]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def _stored_models(db: Path) -> Counter[str]:
    store = Store.open(str(db))
    try:
        return Counter(r.model for r in iter_responses(store))
    finally:
        store.close()


def test_defaults_send_a_budget_that_does_not_truncate_and_nothing_unasked(db: Path) -> None:
    with ChatRecorder(_always_a) as server:
        _evaluate(db, server)
    body = server.chats[0]
    assert body["max_tokens"] == 4096  # no longer 256: reasoning answers fit
    assert body["temperature"] == 0.0
    assert "top_p" not in body and "seed" not in body and "reasoning_effort" not in body
    assert [m["role"] for m in body["messages"]] == ["user"]


def test_every_flag_changes_what_is_sent(db: Path) -> None:
    flags = [
        "--max-tokens", "77", "--temperature", "0.5", "--top-p", "0.9", "--seed", "3",
        "--system-prompt", "Answer with one letter.",
        "--param", "reasoning_effort=high", "--param", 'extra_body={"a": [1, 2]}',
        "--param", "logprobs=true",
    ]  # fmt: skip
    with ChatRecorder(_always_a) as server:
        _evaluate(db, server, *flags)
    assert len(server.chats) == 4
    for body in server.chats:
        assert body["max_tokens"] == 77
        assert body["temperature"] == 0.5
        assert body["top_p"] == 0.9
        assert body["seed"] == 3
        assert body["messages"][0] == {"role": "system", "content": "Answer with one letter."}
        assert body["messages"][1]["role"] == "user"
        # --param: JSON values sent as JSON, anything else as text
        assert body["reasoning_effort"] == "high"
        assert body["extra_body"] == {"a": [1, 2]}
        assert body["logprobs"] is True


def test_system_prompt_from_a_file_and_a_missing_file_is_refused(db: Path, tmp_path: Path) -> None:
    prompt = tmp_path / "system.txt"
    prompt.write_text("You are a careful grader.\nAnswer briefly.", encoding="utf-8")
    with ChatRecorder(_always_a) as server:
        _evaluate(db, server, "--system-prompt", f"@{prompt}")
        first = server.chats[-1]["messages"][0]["content"]
        _evaluate(db, server, "--system-prompt", str(prompt))  # a plain existing path: read
        assert len(server.chats) == 4  # same text, same identity: all cached
    assert first == "You are a careful grader.\nAnswer briefly."
    result = runner.invoke(
        app,
        ["evaluate", BENCH, "-m", "openai/m?base_url=http://127.0.0.1:9/v1", "--store", str(db),
         "--system-prompt", f"@{tmp_path / 'absent.txt'}"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "absent.txt" in result.output


def test_output_changing_settings_keep_separate_answer_sets(db: Path) -> None:
    with ChatRecorder(_always_a) as server:
        _evaluate(db, server, "--temperature", "0.7")
        assert len(server.chats) == 4
        _evaluate(db, server)  # default settings: a second answer set, asked anew
        assert len(server.chats) == 8
        again = _evaluate(db, server, "--temperature", "0.7")  # same settings: all resumed
        also = _evaluate(db, server, spec=f"openai/m?base_url={server.url}/v1&temperature=0.7")
        assert len(server.chats) == 8
    models = _stored_models(db)
    assert models == {
        f"openai/m?base_url={server.url}/v1": 4,
        f"openai/m?base_url={server.url}/v1&temperature=0.7": 4,
    }
    assert again["runs"][0]["skipped"] == 4 and again["runs"][0]["requests"] == 0
    assert also["runs"][0]["model"] == again["runs"][0]["model"]  # flag and spec agree
    assert [row["model"] for row in again["accuracy"]] == [again["runs"][0]["model"]]


def test_system_prompt_identity_is_a_digest_and_params_are_readable(db: Path) -> None:
    with ChatRecorder(_always_a) as server:
        out = _evaluate(db, server, "--system-prompt", "Be terse.", "--param", "verbosity=low")
    model = out["runs"][0]["model"]
    assert "param.verbosity=low" in model
    assert "system=sha256:" in model and "terse" not in model


def test_a_spec_and_a_flag_that_disagree_are_refused(db: Path) -> None:
    result = runner.invoke(
        app,
        ["evaluate", BENCH, "-m", "openai/m?base_url=http://127.0.0.1:9/v1&temperature=0.2",
         "--temperature", "0.7", "--store", str(db)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "temperature" in result.output


def _cut_when_asked_for_b(body: dict[str, Any], seen: int) -> tuple[str, str]:
    # Items 0 and 1: cut before any letter; item 2: cut after its letter; item 3: whole reply.
    prompt = body["messages"][-1]["content"]
    text = prompt if isinstance(prompt, str) else prompt[0]["text"]
    if "(0)" in text or "(1)" in text:
        return "Let me think about the Greek alphabet step by step. It starts with", "length"
    if "(2)" in text:
        return "Answer: A. Because the Greek alphabet begins with alpha, which", "length"
    return "Answer: A", "stop"


def test_truncated_replies_are_stored_and_shown_apart_from_unparseable(db: Path) -> None:
    with ChatRecorder(_cut_when_asked_for_b) as server:
        out = _evaluate(db, server)
        shown = runner.invoke(
            app, ["evaluate", BENCH, "-m", out["runs"][0]["model"], "--store", str(db)]
        )
    store = Store.open(str(db))
    try:
        by_item = {r.item_id: r for r in iter_responses(store)}
    finally:
        store.close()
    assert by_item["q00"].status is Status.TRUNCATED and by_item["q00"].truncated
    assert "token limit" in (by_item["q00"].reason or "")
    assert by_item["q02"].status is Status.OK and by_item["q02"].truncated
    assert by_item["q02"].extracted == "A"
    assert by_item["q03"].status is Status.OK and not by_item["q03"].truncated
    [row] = out["accuracy"]
    assert (row["truncated"], row["truncated_unread"], row["unparseable"]) == (3, 2, 0)
    assert (row["correct"], row["answered"]) == (2, 4)  # unread truncation counts as wrong
    assert out["runs"][0]["truncated"] == 3
    assert "truncated" in shown.output and "3 (2)" in shown.output, shown.output


def test_the_run_line_counts_truncated_replies_as_the_table_does(db: Path, tmp_path: Path) -> None:
    # Items 0 and 1 are cut before any answer (status truncated), item 2 is cut after "A".
    # The table says 0 unparseable and "3 (2)" truncated (unread); the run's own line and its
    # JSON said "2 unparseable" for the same two replies.
    other = _make_store(tmp_path / "other.db", _items(4, [("counting", "easy")]))
    with ChatRecorder(_cut_when_asked_for_b) as server:
        spec = f"openai/m?base_url={server.url}/v1"
        shown = runner.invoke(app, ["evaluate", BENCH, "-m", spec, "--store", str(other)])
        out = _evaluate(db, server, spec=spec)
    assert shown.exit_code == 0, shown.output
    line = next(line for line in shown.output.splitlines() if " ok, " in line)
    assert "2 ok, 0 unparseable, 0 refused, 0 failed, 3 truncated (2 unread)" in line, line
    [row] = out["accuracy"]
    [run] = out["runs"]
    assert (run["unparseable"], run["truncated_unread"]) == (row["unparseable"], 2) == (0, 2)


def _restating_the_options(body: dict[str, Any], seen: int) -> tuple[str, str]:
    # Small models copy the options out; items 0-2 never get to an answer (the key is A).
    prompt = body["messages"][-1]["content"]
    text = prompt if isinstance(prompt, str) else prompt[0]["text"]
    if "(0)" in text:
        return "Let's look at the options:\nA. alpha\nB. beta\nC.", "length"
    if "(1)" in text:
        return "The options are:\nA. alpha\nB.", "stop"
    if "(2)" in text:
        return "Let me work out which Greek letter comes first.\nA", "length"
    return "Answer: A", "stop"


def test_a_restated_options_list_is_never_scored_as_an_answer(db: Path) -> None:
    with ChatRecorder(_restating_the_options) as server:
        out = _evaluate(db, server)
    store = Store.open(str(db))
    try:
        by_item = {r.item_id: r for r in iter_responses(store)}
    finally:
        store.close()
    listed, stopped, lone = by_item["q00"], by_item["q01"], by_item["q02"]
    assert (listed.status, listed.extracted, listed.truncated) == (Status.TRUNCATED, None, True)
    assert "restates the options (A, B, C)" in (listed.reason or "")
    assert (stopped.status, stopped.extracted) == (Status.UNPARSEABLE, None)
    assert stopped.reason == "restates the options (A, B) without choosing one"
    assert (lone.status, lone.extracted) == (Status.TRUNCATED, None)  # "A" after the cut
    assert "token limit on a line naming option A" in (lone.reason or "")
    [row] = out["accuracy"]
    assert (row["correct"], row["answered"], row["unparseable"]) == (1, 4, 1)
    assert (row["truncated"], row["truncated_unread"]) == (2, 2)


STRATA = [("counting", "easy"), ("counting", "hard"), ("colour", "easy"), ("colour", "hard")]


def test_limit_asks_a_stable_stratified_subset(tmp_path: Path) -> None:
    db = _make_store(tmp_path / "s.db", _items(40, STRATA))
    with ChatRecorder(_always_a) as server:
        first = _evaluate(db, server, "--limit", "8")
        asked = {json.dumps(b["messages"]) for b in server.chats}
        second = _evaluate(db, server, "--limit", "8")
        assert len(server.chats) == 8  # the same subset: nothing asked again
        third = _evaluate(db, server, "--limit", "8", "--limit-seed", "1")
        other = {json.dumps(b["messages"]) for b in server.chats[8:]}
    assert len(asked) == 8 and other != asked
    assert second["runs"][0]["skipped"] == 8 and second["runs"][0]["total"] == 8
    # Accuracy is over the run's subset only, though more items are answered by the third.
    for out in (first, second, third):
        assert sum(row["answered"] for row in out["accuracy"]) == 8
    assert sum(_stored_models(db).values()) > 8
    # Two items from each of the four (capability, difficulty) strata.
    per_stratum = Counter(STRATA[_item_number(body) % 4] for body in asked)
    assert set(per_stratum.values()) == {2}, per_stratum


def _item_number(body: str) -> int:
    content = json.loads(body)[-1]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    return int(re.search(r"\((\d+)\)", text).group(1))  # type: ignore[union-attr]


def _a_then_b(body: dict[str, Any], seen: int) -> tuple[str, str]:
    return ("Answer: A" if seen % 2 == 0 else "Answer: B"), "stop"


def test_epochs_ask_k_times_once_and_report_the_mean(db: Path) -> None:
    with ChatRecorder(_a_then_b) as server:
        first = _evaluate(db, server, "--epochs", "3")
        assert len(server.chats) == 12  # 3 epochs x 4 items, each its own cache entry
        second = _evaluate(db, server, "--epochs", "3")
        assert len(server.chats) == 12  # resumed per epoch: nothing asked again
        more = _evaluate(db, server, "--epochs", "4")
        assert len(server.chats) == 16  # only the new epoch is asked
    assert first["runs"][0]["total"] == 12 and second["runs"][0]["skipped"] == 12
    assert more["runs"][0]["skipped"] == 12
    [row] = second["accuracy"]
    # Epochs 0 and 2 say A (right), epoch 1 says B: mean 2/3 over 12 answers of 4 items.
    assert row["answered"] == 12 and row["items"] == 4 and row["epochs"] == 3
    assert row["accuracy"] == pytest.approx(2 / 3)
    # The item is the unit, not the sample: every item scores 2/3, so the t interval over the
    # 4 items has no spread and is widened to Wilson's over them (z exact, hence abs=1e-4).
    over_items = wilson_interval(8 / 3, 4)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (over_items.low, over_items.high), abs=1e-4
    )
    assert row["estimator"] == "clustered-t, Wilson floor" and row["clusters"] == 4
    pooled = wilson_interval(8, 12)
    assert row["ci_high"] - row["ci_low"] > pooled.high - pooled.low
    store = Store.open(str(db))
    try:
        epochs = Counter(r.epoch for r in iter_responses(store))
    finally:
        store.close()
    assert epochs == {0: 4, 1: 4, 2: 4, 3: 4}


def _visit_store(folder: Path) -> Path:
    from PIL import Image

    rows = []
    for i, (name, rgb) in enumerate({"red": (200, 30, 30), "blue": (30, 30, 200)}.items()):
        Image.new("RGB", (8, 8), rgb).save(folder / f"img{i}.png")
        rows.append(f"What colour is the square?,colour,img{i}.png,The square is {name}.")
    csv = folder / "visit.csv"
    header = "instruction,instruction_category,image,reference_output"
    csv.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    db = folder / "s.db"
    result = runner.invoke(
        app, ["import", str(csv), "-f", "visit", "--name", "v", "--store", str(db)]
    )
    assert result.exit_code == 0, result.output
    return db


def _judgment_judges(db: Path) -> Counter[str]:
    from lvlmbench.store import iter_judgments

    store = Store.open(str(db))
    try:
        return Counter(j.judge for j in iter_judgments(store))
    finally:
        store.close()


def test_judge_commands_send_the_settings_and_keep_verdicts_apart(tmp_path: Path) -> None:
    db = _visit_store(tmp_path)
    flags = ["--temperature", "0.3", "--max-tokens", "200", "--system-prompt", "Judge fairly.",
             "--param", "reasoning_effort=low"]  # fmt: skip

    def verdict(body: dict[str, Any], seen: int) -> tuple[str, str]:
        return "Both are fine. Verdict: A", "stop"

    with ChatRecorder(verdict) as server:
        judge = f"openai/judge?base_url={server.url}/v1"
        args = ["judge", "pairwise", "v", "-m", "baseline/prior", "-m", "baseline/random",
                "-j", judge, "--store", str(db)]  # fmt: skip
        first = runner.invoke(app, [*args, *flags])
        assert first.exit_code == 0, first.output
        asked = len(server.chats)
        again = runner.invoke(app, [*args, *flags])
        assert again.exit_code == 0 and len(server.chats) == asked  # same settings: cached
        plain = runner.invoke(app, args)
        assert plain.exit_code == 0 and len(server.chats) == 2 * asked  # other settings: asked
    assert asked > 0
    for body in server.chats[:asked]:
        assert (body["temperature"], body["max_tokens"]) == (0.3, 200)
        assert body["reasoning_effort"] == "low"
        assert body["messages"][0]["role"] == "system"
        assert body["messages"][0]["content"].startswith("Judge fairly.")
    for body in server.chats[asked:]:
        assert "reasoning_effort" not in body and body["temperature"] == 0.0
    judges = _judgment_judges(db)
    assert len(judges) == 2
    assert any("temperature=0.3" in j and "param.reasoning_effort=low" in j for j in judges)
