"""Judge protocols as a type: the built-in registry, typed results read back from stored rows,
and a toy protocol registered here (nowhere else) that the CLI table, the report section and
the number formats pick up."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import typer
from fakes import ScriptedModel
from rich.console import Console
from typer.testing import CliRunner

from lvlmbench.cli import judge as judge_cli
from lvlmbench.cli._judge_tables import protocol_table
from lvlmbench.judging import (
    Column,
    JudgeProtocol,
    JudgeRunSummary,
    ParsedRating,
    ProgressHook,
    RatingScale,
    column_digits,
    is_human_judge,
    metric_name,
    pairwise_protocols,
    protocol_for,
    protocols,
    register,
    unregister,
)
from lvlmbench.judging._rated import run_rated
from lvlmbench.models import ModelClient
from lvlmbench.report import collect
from lvlmbench.report.leaderboard import leaderboard_markdown, leaderboard_rows
from lvlmbench.report.render import render_benchmark
from lvlmbench.store import (
    Store,
    iter_judgments,
    put_benchmark,
    put_items,
    put_judgments,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, Judgment, Message, ModelOutput, Response, Status

BENCH = "toy-bench"
TOY = "toy-brevity"


def test_builtin_protocols_are_registered_in_report_order() -> None:
    names = [p.name for p in protocols()]
    assert names[:6] == ["pairwise-ref", "pairwise", "metric:", "score", "hallucination", "human"]
    keys = [p.report_key for p in protocols() if p.report_key]
    assert keys[:4] == ["pairwise", "metrics", "touchstone", "hallucination"]
    assert pairwise_protocols() == ["pairwise-ref", "pairwise"]


def test_lookups_by_stored_protocol_value() -> None:
    assert protocol_for("metric:rougeL").name == "metric:"
    assert protocol_for("score").kind == "score"
    assert metric_name("metric:bleu4") == "bleu4"
    assert metric_name("pairwise") is None
    assert is_human_judge("human:alice") and not is_human_judge("openai/gpt-4o")
    with pytest.raises(ValueError, match=r"unknown judge protocol 'nope'.*pairwise"):
        protocol_for("nope")


def test_number_formats_come_from_the_owning_protocol() -> None:
    assert column_digits("metric:rougeL") == 3
    assert column_digits("hallucination:judge/x") == 2
    assert column_digits("touchstone:judge/x") == 1
    assert column_digits("bt:judge/x") == 1
    assert column_digits("accuracy") == 1
    assert protocol_for("metric:cider").fmt(0.123456) == "0.123"
    assert protocol_for("hallucination").fmt(None) == "-"


def test_every_prompt_file_a_protocol_sends_exists() -> None:
    root = resources.files("lvlmbench.prompts")
    for protocol in protocols():
        for name in protocol.prompts:
            assert root.joinpath(name).is_file(), f"{protocol.name}: {name}"


@pytest.mark.parametrize(
    ("protocol", "reply"),
    [
        ("pairwise", "Both are fine, but [[B]]"),
        ("pairwise-ref", "I cannot judge these."),
        ("score", "8 7\nAssistant 1 is more detailed."),
        ("score", "eleven and three"),
        ("hallucination", "Hallucination score: 3"),
        ("hallucination", "no idea"),
    ],
)
def test_typed_result_round_trips_through_the_stored_row(protocol: str, reply: str) -> None:
    """What parse writes into the wide Judgment row, the protocol reads back unchanged."""
    kind = protocol_for(protocol)
    assert kind.parse is not None and kind.result is not None
    parsed = kind.parse(reply)
    row = Judgment(item_id="i", judge="j", protocol=protocol, model_a="m", model_b="n")
    stored = row.model_copy(update=parsed.fields())
    read = kind.result(Judgment.model_validate_json(stored.model_dump_json()))
    assert read.fields() == parsed.fields()


# --- a toy protocol, registered here only ---------------------------------------------------


@dataclass(frozen=True)
class Brevity:
    """One model's mean brevity rating (1 rambling - 5 to the point)."""

    model: str
    mean: float | None
    rated: int

    def row(self) -> dict[str, Any]:
        return {"model": self.model, "mean": self.mean, "rated": self.rated}


def _summarise(rows: Iterable[Judgment], items: Mapping[str, BenchmarkItem]) -> dict[str, Brevity]:
    values: dict[str, list[float]] = {}
    for row in rows:
        rating = ParsedRating.of(row)
        if row.item_id in items and rating.status is Status.OK and rating.value is not None:
            values.setdefault(row.model_a, []).append(rating.value)
    return {m: Brevity(m, sum(v) / len(v), len(v)) for m, v in sorted(values.items())}


def _toy_messages(item: BenchmarkItem, answer: str) -> list[Message]:
    return [Message.user(f"How brief is this answer to {item.question!r}? 1-5.\n\n{answer}")]


async def _toy_run(
    store: Store,
    benchmark: str,
    players: Sequence[str],
    client: ModelClient,
    hook: ProgressHook | None,
    *,
    only: Collection[str] | None = None,
) -> JudgeRunSummary:
    return await run_rated(
        store,
        benchmark,
        players,
        client,
        protocol=TOY,
        messages=_toy_messages,
        on_progress=hook,
        only=only,
    )


TOY_PROTOCOL = JudgeProtocol(
    TOY,
    "rating",
    "brevity",
    prompts=("judge/hallucination.md",),
    result=ParsedRating.of,
    summarise=_summarise,
    digits=2,
    columns=("brevity:",),
    cli_columns=(
        Column("model", "model", None),
        Column("brevity", "mean", 2),
        Column("rated", "rated", None),
    ),
    report_key="brevity",
    run=_toy_run,
    help="Rate how brief each answer is (1 rambling - 5 to the point).",
    scale=RatingScale(1, 5, "1 rambling - 5 to the point"),
)


@pytest.fixture
def toy() -> Iterator[JudgeProtocol]:
    register(TOY_PROTOCOL)
    try:
        yield TOY_PROTOCOL
    finally:
        unregister(TOY)


@pytest.fixture
def toy_store(tmp_path: Path) -> Store:
    store = Store.open(str(tmp_path / "toy.db"))
    put_benchmark(store, BENCH, "open", {})
    items = [
        BenchmarkItem(id=f"t{i}", benchmark=BENCH, question=f"Describe {i}.") for i in range(3)
    ]
    put_items(store, items)
    ratings = {"m/short": (4.0, 5.0, 4.0), "m/long": (1.0, 2.0, None)}
    put_judgments(
        store,
        [
            Judgment(
                item_id=item.id,
                judge="judge/terse",
                protocol=TOY,
                model_a=model,
                score_a=value,
                status=Status.OK if value is not None else Status.UNPARSEABLE,
            )
            for model, values in ratings.items()
            for item, value in zip(items, values, strict=True)
        ],
    )
    return store


def test_toy_protocol_number_format_and_lookup(toy: JudgeProtocol) -> None:
    assert protocol_for(TOY) is toy
    assert column_digits("brevity:judge/terse") == 2
    assert toy.fmt(4.333333) == "4.33"
    unregister(TOY)
    assert column_digits("brevity:judge/terse") == 1


def test_toy_protocol_cli_table(toy: JudgeProtocol) -> None:
    rows = [Brevity("m/short", 13 / 3, 3).row(), Brevity("m/long", None, 0).row()]
    console = Console(width=100, record=True)
    console.print(protocol_table(toy, rows, "toy-bench: brevity"))
    text = console.export_text()
    assert "toy-bench: brevity" in text
    assert [h in text for h in ("model", "brevity", "rated")] == [True] * 3
    assert "4.33" in text and "m/short" in text
    long_line = next(line for line in text.splitlines() if "m/long" in line)
    assert "-" in long_line and " 0 " in long_line + " "


def test_toy_protocol_report_section(toy: JudgeProtocol, toy_store: Store) -> None:
    data = collect(toy_store, [BENCH])
    bench = data["benchmarks"][0]
    assert bench["brevity"] == [
        {
            "judge": "judge/terse",
            "models": [
                {"model": "m/long", "mean": 1.5, "rated": 2},
                {"model": "m/short", "mean": 13 / 3, "rated": 3},
            ],
        }
    ]
    html = render_benchmark(bench)
    assert "<h3>brevity — judge judge/terse</h3>" in html
    assert '<td data-model="m/short" data-column="mean">4.33</td>' in html
    assert '<td data-model="m/long" data-column="mean">1.50</td>' in html
    assert "Pairwise ratings" not in html  # no built-in section without data
    # the leaderboard gets its headline column, in its number format
    rows = {r.model: r.flat() for r in leaderboard_rows(data)}
    assert rows["m/short"]["brevity:judge/terse"] == pytest.approx(4.3333)
    markdown = leaderboard_markdown(data)
    assert "| model | brevity:judge/terse |" in markdown
    assert "| m/short | 4.33 |" in markdown and "| m/long | 1.50 |" in markdown


def test_without_registration_there_is_no_toy_section(toy_store: Store) -> None:
    bench = collect(toy_store, [BENCH])["benchmarks"][0]
    assert "brevity" not in bench
    assert "brevity" not in render_benchmark(bench)


def _brief_or_not(messages: list[Message]) -> ModelOutput:
    return ModelOutput(text="Rating: 5" if "Short." in messages[-1].text() else "2")


def test_toy_protocol_gets_a_judge_command(
    toy: JudgeProtocol, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Registered, it runs as `lvlmbench judge toy-brevity` with the common options: answers
    judged and stored under its name, its table printed, its rows under its name in --json."""
    path = str(tmp_path / "run.db")
    store = Store.open(path)
    put_benchmark(store, BENCH, "open", {})
    items = [BenchmarkItem(id=f"r{i}", benchmark=BENCH, question=f"Q{i}?") for i in range(2)]
    put_items(store, items)
    texts = {"m/short": "Short.", "m/long": "A long and winding answer."}
    put_responses(
        store, [Response(item_id=it.id, model=m, text=t) for it in items for m, t in texts.items()]
    )
    store.close()
    monkeypatch.setattr(judge_cli, "resolve_spec", lambda spec: spec)
    monkeypatch.setattr(
        judge_cli,
        "load_chat_model",
        lambda spec, **_: ScriptedModel(steps=[_brief_or_not] * 10, spec=spec),
    )
    judge_app = typer.Typer()
    assert TOY in judge_cli.add_protocol_commands(judge_app)
    app = typer.Typer()
    app.add_typer(judge_app, name="judge")
    args = ["judge", TOY, BENCH, "-m", "m/short", "-m", "m/long", "-j", "x/judge", "--store", path]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    # rich wraps the title to the table's width
    words = " ".join(shown.output.split())
    assert f"{BENCH}: brevity (1 rambling - 5 to the point)" in words
    assert "5.00" in shown.output and "2.00" in shown.output
    stored = list(iter_judgments(Store.open(path), protocol=TOY))
    assert (
        sorted((j.model_a, j.score_a) for j in stored)
        == [("m/long", 2.0)] * 2 + [("m/short", 5.0)] * 2
    )
    again = CliRunner().invoke(app, [*args, "--json"])
    assert again.exit_code == 0, again.output
    body = json.loads(again.output)
    assert body["run"]["skipped"] == 4 and body["run"]["ok"] == 0
    assert body[TOY] == [
        {"model": "m/long", "mean": 2.0, "rated": 2},
        {"model": "m/short", "mean": 5.0, "rated": 2},
    ]
    help_text = CliRunner().invoke(app, ["judge", TOY, "--help"]).output
    assert "Rate how brief each answer is" in help_text and "--workers" in help_text


def _on_scales(messages: list[Message]) -> ModelOutput:
    # The short answer's judge uses the toy's 1-5 scale; the long one's a 0-10 habit.
    return ModelOutput(text="Brief.\n4/5" if "Short." in messages[-1].text() else "Rating: 4/10")


def test_a_rating_protocol_reads_replies_on_its_own_scale(
    toy: JudgeProtocol, tmp_path: Path
) -> None:
    """A 1-5 protocol's rows: "4/5" is 4, "Rating: 4/10" is unparseable naming both scales
    (a 0-10 parser read it as a valid 4)."""
    store = Store.open(str(tmp_path / "scales.db"))
    put_benchmark(store, BENCH, "open", {})
    put_items(store, [BenchmarkItem(id="s0", benchmark=BENCH, question="Q?")])
    texts = {"m/short": "Short.", "m/long": "A long and winding answer."}
    put_responses(store, [Response(item_id="s0", model=m, text=t) for m, t in texts.items()])
    client = ModelClient(ScriptedModel(steps=[_on_scales] * 2, spec="x/judge"), store)
    summary = asyncio.run(_toy_run(store, BENCH, list(texts), client, None))
    assert (summary.ok, summary.unparseable) == (1, 1)
    rows = {j.model_a: j for j in iter_judgments(store, protocol=TOY)}
    assert (rows["m/short"].status, rows["m/short"].score_a) == (Status.OK, 4.0)
    assert (rows["m/long"].status, rows["m/long"].score_a) == (Status.UNPARSEABLE, None)
    assert rows["m/long"].reason == "rating 4/10 is on a scale out of 10, not the protocol's 1-5"
    assert toy.parse is not None and toy.parse("Rating: 6").status is Status.UNPARSEABLE


def test_a_rating_protocol_must_name_its_scale_and_parse_on_it() -> None:
    with pytest.raises(ValueError, match="name its scale"):
        JudgeProtocol("no-scale", "rating", "no scale")
    with pytest.raises(ValueError, match="parses on its scale"):
        JudgeProtocol(
            "other-parse",
            "rating",
            "other parse",
            scale=RatingScale(1, 5),
            parse=RatingScale(0, 10).parse,
        )
    same = JudgeProtocol("own-parse", "rating", "own", scale=RatingScale(1, 5))
    assert same.parse is not None and same.parse("Rating: 4/10").status is Status.UNPARSEABLE
    assert same.parse("4/5").value == 4.0
    given = JudgeProtocol(
        "given-parse", "rating", "own", scale=RatingScale(1, 5), parse=RatingScale(1, 5).parse
    )
    assert given.parse is not None and given.parse("4/5").value == 4.0
    with pytest.raises(ValueError, match="low < high"):
        RatingScale(5, 1)
