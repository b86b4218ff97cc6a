"""ARCHITECTURE.md's "Adding things" recipes, followed exactly: a toy chat provider, a toy
importer and a toy judge protocol added through the registries alone (what the recipe's files
do when imported), each then run through the CLI and the Python API. A second list beside a
registry (the CLI's old format enum) is what made ``import FILE -f newformat`` exit 2."""

from __future__ import annotations

import csv
import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
from fakes import ScriptedModel
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.cli import judge as judge_cli
from lvlmbench.datasets.importers import (
    IMPORT_FORMATS,
    DatasetError,
    FormatRule,
    ParsedItem,
    detect,
    import_dataset,
    register_format,
    register_parser,
)
from lvlmbench.datasets.importers.detect import format_rules
from lvlmbench.judging import (
    Column,
    JudgeProtocol,
    JudgeRunSummary,
    ParsedRating,
    ProgressHook,
    RatingScale,
    register,
    unregister,
)
from lvlmbench.judging._rated import run_rated
from lvlmbench.models import CHAT_PROVIDERS, ModelClient, Provider
from lvlmbench.store import Store, iter_items, iter_judgments
from lvlmbench.types import BenchmarkItem, Judgment, Message, ModelOutput, Status

runner = CliRunner()
FORMAT = "toyqa"
PROTOCOL = "toy-terse"
PROVIDER = "toyllm"


# --- the importer recipe: datasets/importers/<format>.py + its FormatRule ---------------------


def parse_toyqa(path: Path, on_progress: Any = None, *, access: Any = None) -> Iterator[ParsedItem]:
    """``question => reference`` per line; a line without the arrow names its row."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for row, line in enumerate(lines, start=1):
        question, arrow, reference = line.partition(" => ")
        if not arrow:
            raise DatasetError(path, "expected 'question => reference'", row=row)
        yield ParsedItem(key=str(row), row=row, question=question, reference=reference)
        if on_progress is not None:
            on_progress(row, len(lines))


# --- the provider recipe: models/<name>.py + its Provider line -------------------------------


def _toy_model(name: str, options: Mapping[str, str]) -> ScriptedModel:
    # The examinee answers tersely; the judge rates an answer of one word 5, else 2.
    def reply(messages: list[Message]) -> ModelOutput:
        text = messages[-1].text()
        if "How terse" in text:
            answer = text.rsplit("\n", 1)[-1]
            return ModelOutput(text=f"Rating: {5 if len(answer.split()) == 1 else 2}")
        return ModelOutput(text="Paris." if name == "terse" else "It is Paris, in France.")

    return ScriptedModel(steps=[reply] * 20, spec=f"{PROVIDER}/{name}")


# --- the protocol recipe: prompts/judge/<name>.md + judging/<name>.py -------------------------


def _summarise(rows: Iterable[Judgment], items: Mapping[str, BenchmarkItem]) -> dict[str, Any]:
    values: dict[str, list[float]] = {}
    for row in rows:
        rating = ParsedRating.of(row)
        if row.item_id in items and rating.status is Status.OK and rating.value is not None:
            values.setdefault(row.model_a, []).append(rating.value)
    return {m: _Terse(m, sum(v) / len(v)) for m, v in sorted(values.items())}


class _Terse:
    def __init__(self, model: str, mean: float) -> None:
        self.model, self.mean = model, mean

    def row(self) -> dict[str, Any]:
        return {"model": self.model, "mean": self.mean}


def _messages(item: BenchmarkItem, answer: str) -> list[Message]:
    return [Message.user(f"How terse is this answer to {item.question!r}? 1-5.\n{answer}")]


async def _run(
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
        protocol=PROTOCOL,
        messages=_messages,
        on_progress=hook,
        only=only,
    )


TOY_PROTOCOL = JudgeProtocol(
    PROTOCOL,
    "rating",
    "terseness",
    prompts=("judge/hallucination.md",),
    result=ParsedRating.of,
    summarise=_summarise,
    digits=2,
    columns=("terse:",),
    cli_columns=(Column("model", "model", None), Column("mean", "mean", 2)),
    report_key="terse",
    run=_run,
    help="Rate how terse each answer is.",
    scale=RatingScale(1, 5, "1 rambling - 5 terse"),
)


@pytest.fixture
def registered() -> Iterator[None]:
    """What importing the recipe's files does, undone afterwards."""
    rules = format_rules()
    register_parser(FORMAT, parse_toyqa, help="toy question => reference lines")
    register_format(FormatRule(FORMAT, "TXT: question => reference", _is_toyqa, priority=5))
    CHAT_PROVIDERS.add(PROVIDER, Provider(None, None, {}, factory=_toy_model))
    register(TOY_PROTOCOL)
    try:
        yield
    finally:
        IMPORT_FORMATS.remove(FORMAT)
        CHAT_PROVIDERS.remove(PROVIDER)
        unregister(PROTOCOL)
        detect._RULES[:] = rules


def _is_toyqa(sample: Any) -> bool:
    return sample.layout == "csv" and any(" => " in c for c in sample.columns)


@pytest.fixture
def toy_file(tmp_path: Path) -> Path:
    path = tmp_path / "capitals.toyqa"
    path.write_text("Capital of France? => Paris\nCapital of Peru? => Lima\n", encoding="utf-8")
    return path


def test_importer_recipe_through_the_cli(registered: None, toy_file: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    shown = runner.invoke(app, ["import", str(toy_file), "-f", FORMAT, "--store", db, "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["items_added"] == 2
    items = list(iter_items(Store.open(db), "capitals"))
    assert sorted((i.question, i.reference) for i in items) == [
        ("Capital of France?", "Paris"),
        ("Capital of Peru?", "Lima"),
    ]
    help_text = " ".join(runner.invoke(app, ["import", "--help"]).output.split())
    assert FORMAT in help_text


def test_importer_recipe_through_the_api(registered: None, toy_file: Path, tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "api.db"))
    summary = import_dataset(store, toy_file, FORMAT)
    assert (summary.format, summary.items_added) == (FORMAT, 2)
    bad = tmp_path / "bad.toyqa"
    bad.write_text("Capital of France? => Paris\nno arrow here\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="row 2"):
        import_dataset(store, bad, FORMAT)


def test_without_the_registration_the_format_is_refused(toy_file: Path, tmp_path: Path) -> None:
    shown = runner.invoke(
        app, ["import", str(toy_file), "-f", FORMAT, "--store", str(tmp_path / "x.db")]
    )
    assert shown.exit_code == 2
    with pytest.raises(ValueError, match="unknown import format 'toyqa'"):
        import_dataset(Store.open(str(tmp_path / "s.db")), toy_file, FORMAT)


def test_provider_and_protocol_recipes_through_the_api(
    registered: None, toy_file: Path, tmp_path: Path
) -> None:
    db = str(tmp_path / "judge.db")
    import_dataset(Store.open(db), toy_file, FORMAT, name="caps")
    models = [f"{PROVIDER}/terse", f"{PROVIDER}/wordy"]
    run = api.judge("caps", models, f"{PROVIDER}/judge", protocol=PROTOCOL, store=db)
    assert (run.ok, run.unparseable) == (4, 0)
    stored = sorted((j.model_a, j.score_a) for j in iter_judgments(Store.open(db)))
    assert stored == [(models[0], 5.0)] * 2 + [(models[1], 2.0)] * 2


def test_provider_and_protocol_recipes_through_the_cli(
    registered: None, toy_file: Path, tmp_path: Path
) -> None:
    db = str(tmp_path / "cli-judge.db")
    import_dataset(Store.open(db), toy_file, FORMAT, name="caps")
    # The judge sub-commands are built when the CLI is imported, after the recipe's modules;
    # a protocol registered later gets its command the same way.
    judge_app = typer.Typer()
    assert PROTOCOL in judge_cli.add_protocol_commands(judge_app)
    cli = typer.Typer()
    cli.add_typer(judge_app, name="judge")
    args = ["judge", PROTOCOL, "caps", "-m", f"{PROVIDER}/terse", "-m", f"{PROVIDER}/wordy"]
    shown = runner.invoke(cli, [*args, "-j", f"{PROVIDER}/judge", "--store", db, "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)[PROTOCOL] == [
        {"model": f"{PROVIDER}/terse", "mean": 5.0},
        {"model": f"{PROVIDER}/wordy", "mean": 2.0},
    ]


def test_protocol_recipe_gets_a_report_section_and_leaderboard_columns(
    registered: None, toy_file: Path, tmp_path: Path
) -> None:
    """The registration alone puts the protocol in every report file, as the built-ins are:
    its entry in summary.json, its section in report.html, its headline column (``terse:``
    and the judge, in its 2-decimal format) in leaderboard.csv/.md and the web API's rows."""
    db = str(tmp_path / "report.db")
    import_dataset(Store.open(db), toy_file, FORMAT, name="caps")
    models, judge = [f"{PROVIDER}/terse", f"{PROVIDER}/wordy"], f"{PROVIDER}/judge"
    api.judge("caps", models, judge, protocol=PROTOCOL, store=db)
    files = api.report(tmp_path / "out" / "report.html", store=db)
    (bench,) = json.loads(files.summary.read_text(encoding="utf-8"))["benchmarks"]
    assert bench["terse"] == [
        {
            "judge": judge,
            "models": [{"model": models[0], "mean": 5.0}, {"model": models[1], "mean": 2.0}],
        }
    ]
    html = files.html.read_text(encoding="utf-8")
    assert f"<h3>terseness — judge {judge}</h3>" in html
    assert f'<td data-model="{models[0]}" data-column="mean">5.00</td>' in html
    with files.leaderboard_csv.open(encoding="utf-8") as f:
        board = {row["model"]: row for row in csv.DictReader(f)}
    assert {m: board[m][f"terse:{judge}"] for m in models} == {models[0]: "5.0", models[1]: "2.0"}
    markdown = files.leaderboard_md.read_text(encoding="utf-8")
    assert f"| model | terse:{judge} |" in markdown
    assert f"| {models[0]} | 5.00 |" in markdown and f"| {models[1]} | 2.00 |" in markdown


def test_a_registered_protocol_judges_a_limit_subset_alone(
    registered: None, toy_file: Path, tmp_path: Path
) -> None:
    db = str(tmp_path / "limited.db")
    import_dataset(Store.open(db), toy_file, FORMAT, name="caps")
    models = [f"{PROVIDER}/terse", f"{PROVIDER}/wordy"]
    run = api.judge("caps", models, f"{PROVIDER}/judge", protocol=PROTOCOL, store=db, limit=1)
    # One of the two items, each model's answer rated once: 2 ratings, not 4.
    assert (run.ok, run.total) == (2, 2)
    assert len({j.item_id for j in iter_judgments(Store.open(db))}) == 1
