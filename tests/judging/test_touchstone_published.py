"""TouchStone as published: the dataset's gpt4_ha_answer is the reference by default, abilities
split on commas as eval.py splits them, the ×100 score worked by hand, the prompt's criteria, and
the table of judge replies our parser reads and eval.py drops (or the other way round)."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from pathlib import Path

import pytest
import typer
from fakes import ScriptedModel
from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli import judge as judge_cli
from lvlmbench.datasets import import_dataset
from lvlmbench.judging import REFERENCE, item_abilities, parse_scores, score_messages
from lvlmbench.report.collect import benchmark_summary
from lvlmbench.report.render_ratings import touchstone_section
from lvlmbench.store import Store, iter_items, put_responses
from lvlmbench.types import BenchmarkItem, Message, ModelOutput, Response, Status

BENCH = "ts"
MODEL = "m/x"
runner = CliRunner()

# The released TSV's columns (FORMATS.md), in its order.
HEADER = ["index", "question", "human_annotation", "gpt4_ha_answer", "category", "task_name"]
ROWS = [
    ["0", "Question 0: describe it.", "A red square.", "REFERENCE 0", "basic description",
     "detailed description"],
    ["1", "Question 1: who is this?", "A blue square.", "REFERENCE 1\nsecond line",
     "visual recognition", "celebrity recognition"],
    # Two abilities in one cell, comma-separated as in the released file: counts in both.
    ["2", "Question 2: who, and why?", "A green square.", "REFERENCE 2",
     "visual recognition,visual comprehension", "celebrity recognition"],
    ["3", "Question 3: write a poem.", "A grey square.", "REFERENCE 3", "visual storytelling",
     "poem writing"],
]  # fmt: skip

# The judge's reply per item and order. "ab" shows the model as Assistant 1, "ba" the reference.
REPLIES = {
    ("0", "ab"): "7 8\nAssistant 2 is more complete.",
    ("0", "ba"): "9 6\nAssistant 1 is more complete.",
    ("1", "ab"): "5 9\nAssistant 1 names the wrong person.",
    ("1", "ba"): "Assistant 1: 8\nAssistant 2: 3\nAssistant 2 is wrong.",  # eval.py drops this
    ("2", "ab"): "8 8\nBoth are right.",
    ("2", "ba"): "9 7\nAssistant 1 explains more.",
    ("3", "ab"): "3 7\nAssistant 1 is not a poem.",
    ("3", "ba"): "Both answers are fine.",  # no scores: item 3 is unscored, never half-scored
}
# By hand, model | reference per item (mean of its two orders' scores):
#   item 0: (7 + 6) / 2 = 6.5 | (8 + 9) / 2 = 8.5
#   item 1: (5 + 3) / 2 = 4.0 | (9 + 8) / 2 = 8.5
#   item 2: (8 + 7) / 2 = 7.5 | (8 + 9) / 2 = 8.5
#   item 3: unscored
# Overall model (6.5 + 4.0 + 7.5) / 3 = 6.0 -> 600.0; reference 25.5 / 3 = 8.5 -> 850.0;
# relative 600 / 850 = 70.588...%.
# Abilities: basic description 6.5 -> 650.0; visual recognition (items 1, 2) (4.0 + 7.5) / 2 =
# 5.75 -> 575.0; visual comprehension (item 2) 7.5 -> 750.0; visual storytelling: none.
# Sub-tasks: detailed description 650.0; celebrity recognition (items 1, 2) 575.0.
# The overall 600.0 is a mean over the 3 scored items, which cover 3 of the benchmark's 4
# abilities (visual storytelling has no scored item): it says so beside the score.


def _image_b64(n: int) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (60 * n, 20, 20)).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def _write_tsv(path: Path, with_reference: bool = True) -> Path:
    header = HEADER if with_reference else [c for c in HEADER if c != "gpt4_ha_answer"]
    with path.open("w", newline="") as sink:
        writer = csv.writer(sink, delimiter="\t")
        writer.writerow([*header, "image"])
        for n, row in enumerate(ROWS):
            cells = row if with_reference else [c for i, c in enumerate(row) if i != 3]
            writer.writerow([*cells, _image_b64(n)])
    return path


def _judge(messages: list[Message]) -> ModelOutput:
    text = messages[-1].text()
    if "MODEL" not in text:  # the reference writer's prompt: caption and question only
        return ModelOutput(text="REFERENCE written from the caption.")
    index = re.search(r"Question (\d)", text)
    assert index is not None
    first_is_model = text.index("MODEL") < text.index("REFERENCE")
    return ModelOutput(text=REPLIES[(index.group(1), "ab" if first_is_model else "ba")])


def _app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(judge_cli.judge_app, name="judge")
    app.command("noop")(lambda: None)
    return app


def _store(tmp_path: Path, with_reference: bool = True) -> str:
    path = str(tmp_path / "s.db")
    store = Store.open(path)
    import_dataset(
        store, _write_tsv(tmp_path / "touchstone.tsv", with_reference), "touchstone", BENCH
    )
    put_responses(
        store,
        [Response(item_id=i.id, model=MODEL, text=f"MODEL answer {n}")
         for n, i in enumerate(iter_items(store, BENCH))],
    )  # fmt: skip
    store.close()
    return path


@pytest.fixture
def judge_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The specs of every judge or writer model the CLI loads (each answers with _judge)."""
    loaded: list[str] = []

    def load(spec: str, **_: object) -> ScriptedModel:
        loaded.append(spec)
        return ScriptedModel(steps=[_judge] * 100, spec=spec)

    monkeypatch.setattr(judge_cli, "resolve_spec", lambda spec: spec)
    monkeypatch.setattr(judge_cli, "load_chat_model", load)
    return loaded


def test_score_x100_by_hand_against_gpt4_ha_answer(tmp_path: Path, judge_calls: list[str]) -> None:
    store_path = _store(tmp_path)
    args = ["judge", "score", BENCH, "-m", MODEL, "-j", "x/judge", "--store", store_path]
    result = runner.invoke(_app(), [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["reference"] == REFERENCE and judge_calls == ["x/judge"]  # no writer loaded
    assert (data["run"]["ok"], data["run"]["unparseable"]) == (7, 1)
    (row,) = data["scores"]
    assert row["score"] == pytest.approx(600.0) and row["reference"] == pytest.approx(850.0)
    assert row["relative_pct"] == pytest.approx(100 * 600 / 850)
    assert (row["items"], row["unscored"]) == (3, 1)
    assert row["abilities"] == pytest.approx(
        {"basic description": 650.0, "visual recognition": 575.0, "visual comprehension": 750.0}
    )
    assert row["tasks"] == pytest.approx(
        {"detailed description": 650.0, "celebrity recognition": 575.0}
    )
    assert row["covers"] == "3 of 4 abilities"
    # The report reads the same figures, and its per-ability intervals use the same split.
    store = Store.open(store_path)
    bench = benchmark_summary(store, BENCH)
    store.close()
    (entry,) = bench["touchstone"]
    assert "dataset&#x27;s own reference (TouchStone: gpt4_ha_answer)" in touchstone_section(bench)
    (model,) = entry["models"]
    assert entry["reference"] == REFERENCE and model["score"] == pytest.approx(600.0)
    recognition = model["abilities"]["visual recognition"]
    assert recognition["score"] == pytest.approx(575.0) and recognition["items"] == 2
    # Two items (400, 750): t with 1 df, se = 175, half = 12.7062 · 175 = 2223.6, so the
    # interval is the whole 1-10 scale ×100 (main's bootstrap gave 400-750, the two values).
    assert (recognition["ci_low"], recognition["ci_high"]) == (100.0, 1000.0)
    assert (recognition["estimator"], recognition["clusters"]) == ("clustered-t", 2)
    assert model["covers"]["missing"] == ["visual storytelling"]
    assert 'data-covers="abilities">3 of 4 abilities</td>' in touchstone_section(bench)
    shown = runner.invoke(_app(), args)
    assert shown.exit_code == 0 and "3 of 4" in shown.output, shown.output


def test_regenerating_the_reference_is_explicit(tmp_path: Path, judge_calls: list[str]) -> None:
    store_path = _store(tmp_path, with_reference=False)
    args = ["judge", "score", BENCH, "-m", MODEL, "-j", "x/judge", "--store", store_path]
    missing = runner.invoke(_app(), args)
    assert missing.exit_code == 2
    assert "--regenerate-reference" in missing.output and "gpt4_ha_answer" in missing.output
    assert judge_calls == []  # nothing asked before the error
    stray = runner.invoke(_app(), [*args, "--writer", "w/writer"])
    assert stray.exit_code == 2 and "--writer only applies" in stray.output
    regen = runner.invoke(
        _app(), [*args, "--regenerate-reference", "--writer", "w/writer", "--json"]
    )
    assert regen.exit_code == 0, regen.output
    assert json.loads(regen.output)["reference"] == "reference:w/writer"
    assert judge_calls == ["x/judge", "w/writer"]


def test_abilities_split_on_commas() -> None:
    def item(category: str | None) -> BenchmarkItem:
        return BenchmarkItem(id="i", benchmark="b", question="q", category=category)

    assert item_abilities(item("visual recognition,visual comprehension")) == [
        "visual recognition",
        "visual comprehension",
    ]
    # eval.py would keep " b" with its space as a separate ability; names are stripped here.
    assert item_abilities(item("a, b,,a")) == ["a", "b"]
    assert item_abilities(item(None)) == [] and item_abilities(item(" ")) == []


def test_prompt_asks_for_every_criterion_of_the_paper() -> None:
    item = BenchmarkItem(id="i", benchmark="b", question="What is it?", caption="A red square.")
    system, user = score_messages(item, "first answer", "second answer")
    text = (system.text() + "\n" + user.text()).lower()
    for criterion in ("helpfulness", "relevance", "accuracy", "level of detail", "comprehensive"):
        assert criterion in text
    assert "a red square." in text and text.index("first answer") < text.index("second answer")
    assert "first line" in text  # the reply format eval.py and our parser both read


def eval_py_reads(reply: str) -> tuple[float, float] | None:
    """What TouchStone's eval.py keeps of a reply, restated: it asks with stop=["\\n"], so only
    the text before the first newline arrives; it appends "\\nok", strips, splits off the first
    line, splits that on single spaces and needs exactly two float()-able fields. Anything else
    raises, the round is retried and finally dropped (None)."""
    content = reply.split("\n", 1)[0]
    parts = (content + "\nok").strip().split("\n", 1)
    if len(parts) != 2:
        return None
    fields = parts[0].strip().split(" ")
    if len(fields) != 2:
        return None
    try:
        return float(fields[0]), float(fields[1])
    except ValueError:
        return None


OK, REFUSED, UNPARSEABLE = Status.OK, Status.REFUSED, Status.UNPARSEABLE
NAN = float("nan")
# reply -> (ours: scores or status), (eval.py: scores or None for dropped)
REPLY_TABLE: list[tuple[str, tuple[float, float] | Status, tuple[float, float] | None]] = [
    ("8 7\nAssistant 1 is better.", (8, 7), (8, 7)),
    ("8.5 7\nwhy", (8.5, 7), (8.5, 7)),
    ("8 7.\nwhy", (8, 7), (8, 7)),
    ("8, 7\nwhy", (8, 7), None),
    ("8/10 7/10\nwhy", (8, 7), None),
    ("8\t7\nwhy", (8, 7), None),
    ("8  7\nwhy", (8, 7), None),  # two spaces: three fields for eval.py
    ("**8 7**\nwhy", (8, 7), None),
    ("Scores: 8 7\nwhy", (8, 7), None),
    ("Assistant 1: 8\nAssistant 2: 7\nwhy", (8, 7), None),
    ("Assistant 1 misses the dog.\n8 7", (8, 7), None),  # reasoning first
    ("\n8 7\nwhy", (8, 7), None),  # a leading newline: eval.py's stop leaves nothing
    ('{"assistant_1": 8, "assistant_2": 7}', (8, 7), None),
    ("11 3\nwhy", UNPARSEABLE, (11, 3)),  # out of 1-10: eval.py averages it in
    ("0 5\nwhy", UNPARSEABLE, (0, 5)),
    ("-1 5\nwhy", UNPARSEABLE, (-1, 5)),
    ("1e1 5\nwhy", UNPARSEABLE, (10, 5)),
    ("inf 2\nwhy", UNPARSEABLE, (float("inf"), 2)),
    ("nan nan\nwhy", UNPARSEABLE, (NAN, NAN)),  # eval.py's mean becomes nan
    ("8 7 6\nwhy", UNPARSEABLE, None),
    ("8 7 Assistant 2 is vague.", UNPARSEABLE, None),
    ("I cannot score these answers.", REFUSED, None),
    ("", UNPARSEABLE, None),
]


@pytest.mark.parametrize(("reply", "ours", "theirs"), REPLY_TABLE)
def test_reply_table_ours_vs_eval_py(
    reply: str, ours: tuple[float, float] | Status, theirs: tuple[float, float] | None
) -> None:
    parsed = parse_scores(reply)
    if isinstance(ours, Status):
        assert parsed.status is ours and parsed.first is None and parsed.second is None
    else:
        assert parsed.status is OK and (parsed.first, parsed.second) == ours
    kept = eval_py_reads(reply)
    if theirs is None or kept is None:
        assert kept is theirs
    else:
        assert kept == pytest.approx(theirs, nan_ok=True)
