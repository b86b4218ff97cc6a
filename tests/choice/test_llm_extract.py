"""The LLM extractor: it reads only the unparseable responses it is pointed at, its reads are
stored and counted apart from the rules', "none" keeps a response unparseable, and a re-run
asks nothing twice."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from fakes import ScriptedModel

from lvlmbench.choice import extract_unparseable
from lvlmbench.choice.accuracy import accuracy_table
from lvlmbench.models import ModelClient
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Message, ModelOutput, Response, Status

BENCH = "nine"
LETTERS = "ABCDEFGHI"  # MMMU-style: options past D
OPTIONS = dict(
    zip(
        LETTERS,
        ["red", "blue", "green", "yellow", "pink", "grey", "teal", "tan", "black"],
        strict=True,
    )
)
RULE_REASON = "no option letter or option text found"
# What the scripted extractor answers, by the reply text it is shown.
READS = {
    "Reply one: the colour of cherries, I'd wager.": "A",
    "Reply two: unsure, honestly.": "none",
    "Reply three: something like the night sky.": "I",
    "Reply four: could be anything.": "Z",  # no such option
    "Reply five: broken extractor.": "{not json",
    "Reply tf: that claim holds up.": "true",
}


def _extractor(messages: list[Message]) -> ModelOutput:
    prompt = messages[0].text()  # a re-ask appends turns after the question
    reply = re.search(r"<<<REPLY\n(.*)\nREPLY>>>", prompt, re.S)
    assert reply is not None, prompt
    answer = READS[reply.group(1)]
    text = answer if answer.startswith("{") else json.dumps({"answer": answer})
    return ModelOutput(text=text)


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    opened = Store.open(str(tmp_path / "s.db"))
    items = [
        BenchmarkItem(
            id=f"q{i}",
            benchmark=BENCH,
            kind="mc",
            question=f"Colour {i}?",
            options=OPTIONS,
            answer="AAIAA"[i],
        )
        for i in range(5)
    ]
    items.append(
        BenchmarkItem(id="t0", benchmark=BENCH, kind="tf", question="Holds?", answer="true")
    )
    put_benchmark(opened, BENCH, "test", {})
    put_items(opened, items)
    texts = list(READS)
    responses = [
        Response(
            item_id=item.id, model="m/x", text=text, status=Status.UNPARSEABLE, reason=RULE_REASON
        )
        for item, text in zip(items, [*texts[:5], texts[5]], strict=True)
    ]
    # Not to be touched: a rule read, an empty answer, another model, another variant.
    responses += [
        Response(item_id="q0", model="m/y", text="A", extracted="A"),
        Response(
            item_id="q1", model="m/y", text="", status=Status.UNPARSEABLE, reason="empty answer"
        ),
        Response(item_id="q0", model="m/other", text=texts[0], status=Status.UNPARSEABLE),
        Response(
            item_id="q0", model="m/x", text=texts[0], status=Status.UNPARSEABLE, variant="no-image"
        ),
    ]
    put_responses(opened, responses)
    return opened


def _run(store: Store, model: ScriptedModel) -> object:
    client = ModelClient(model, store)
    return asyncio.run(extract_unparseable(store, BENCH, client, models=["m/x", "m/y"]))


def _by_item(store: Store, model: str, variant: str = "default") -> dict[str, Response]:
    return {r.item_id: r for r in iter_responses(store, model=model, variant=variant)}


def test_reads_are_stored_apart_and_none_stays_unparseable(store: Store) -> None:
    extractor = ScriptedModel(steps=[_extractor] * 20, spec="fake/reader")
    summary = _run(store, extractor)
    assert vars(summary) == {
        "extractor": "fake/reader",
        "asked": 6,
        "read": 3,
        "no_answer": 3,
        "failed": 0,
        "already": 0,
    }
    got = _by_item(store, "m/x")
    assert (got["q0"].status, got["q0"].extracted, got["q0"].extracted_by) == (
        Status.OK,
        "A",
        "fake/reader",
    )
    assert got["q0"].reason is None and got["q0"].rule_reason == RULE_REASON
    assert (got["q2"].extracted, got["t0"].extracted) == ("I", "true")
    assert got["q1"].status is Status.UNPARSEABLE and got["q1"].extracted is None
    assert got["q1"].reason == "extractor fake/reader read no answer"
    assert got["q3"].status is Status.UNPARSEABLE and "'Z', which is no choice" in (
        got["q3"].reason or ""
    )
    assert "gave no usable reply" in (got["q4"].reason or "")
    assert all(r.rule_reason == RULE_REASON for r in got.values())
    # Untouched: the rule read, the empty answer, the model not asked for, the other variant.
    assert _by_item(store, "m/y")["q0"].extracted_by is None
    assert _by_item(store, "m/y")["q1"].reason == "empty answer"
    assert _by_item(store, "m/other")["q0"].status is Status.UNPARSEABLE
    assert _by_item(store, "m/x", "no-image")["q0"].extracted_by is None
    # The prompt lists every option (past D) and no image was sent.
    first = extractor.calls[0][0]
    assert "I. black" in first.text() and not first.images()


def test_accuracy_counts_llm_reads_apart(store: Store) -> None:
    _run(store, ScriptedModel(steps=[_extractor] * 20, spec="fake/reader"))
    (row,) = accuracy_table(store, BENCH, models=["m/x"])
    assert (row.answered, row.correct, row.unparseable, row.llm_read) == (6, 3, 3, 3)
    (rules_only,) = accuracy_table(store, BENCH, models=["m/y"])
    assert rules_only.llm_read == 0


def test_a_rerun_asks_nothing_twice_and_failures_are_retried(store: Store) -> None:
    failing = ScriptedModel(
        steps=[ModelOutput(status=Status.ERROR, reason="server down")] * 20, spec="fake/reader"
    )
    first = _run(store, failing)
    assert vars(first)["failed"] == 6 and vars(first)["read"] == 0
    assert all(r.extracted_by is None for r in _by_item(store, "m/x").values())
    working = ScriptedModel(steps=[_extractor] * 20, spec="fake/reader")
    second = _run(store, working)
    assert vars(second)["asked"] == 6 and len(working.calls) >= 6
    calls = len(working.calls)
    third = _run(store, working)
    # The three it read are ok now; the three it found no answer in are not asked again.
    assert vars(third)["asked"] == 0 and vars(third)["already"] == 3
    assert len(working.calls) == calls
