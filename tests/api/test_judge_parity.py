"""`lvlmbench judge PROTOCOL` and `api.judge` are one use case behind two front doors: every option
of each judge command has its API counterpart with the same default, a run with nothing to judge
fails through both (the API returned a summary with every unit "missing" where the command exits
1), and the same call made both ways stores the same judgments."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import typer.main
from fakes import ScriptedModel
from judge_script import SETTINGS_FLAGS, scripted_judge_reply
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.api import _judges as api_judges
from lvlmbench.cli import app
from lvlmbench.cli import judge as judge_cli
from lvlmbench.models import GenerationSettings
from lvlmbench.store import Store, iter_judgments, put_items, put_judgments, put_responses
from lvlmbench.types import BenchmarkItem, Judgment, Response
from lvlmbench.workflows import NothingToJudge

BENCH = "open"
MODELS = ["m/good", "m/bad"]
CLI_ONLY = {"as_json": "how the command prints"}
RENAMED = {"model": "models"}
SETTINGS = SETTINGS_FLAGS
runner = CliRunner()


def _write(path: Path, *, captions: bool) -> str:
    store = Store.open(str(path))
    items = [
        BenchmarkItem(
            id=f"o{i}",
            benchmark=BENCH,
            question=f"Describe picture {i}.",
            caption=f"A cat on a mat ({i})." if captions else None,
            reference=f"A cat. ({i})",
            category="description",
        )
        for i in range(3)
    ]
    put_items(store, items)
    answers = [  # two epochs of answers (evaluate --epochs 2), for judge --epochs 2
        Response(item_id=it.id, model=m, text=f"{'GOOD' if m == 'm/good' else 'meh'} cat", epoch=k)
        for it in items
        for m in MODELS
        for k in range(2)
    ]
    put_responses(store, answers)
    store.close()
    return str(path)


@pytest.fixture(autouse=True)
def scripted_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    def load(spec: str, **_: object) -> ScriptedModel:
        return ScriptedModel(steps=[scripted_judge_reply] * 200, spec=spec)

    for module in (api_judges, judge_cli):
        monkeypatch.setattr(module, "resolve_spec", lambda spec: spec)
        monkeypatch.setattr(module, "load_chat_model", load)


def _judgments(path: str) -> list[tuple[str, str, str, str | None, str | None, int]]:
    store = Store.open(path)
    try:
        rows = iter_judgments(store)
        return sorted((j.judge, j.protocol, j.item_id, j.model_a, j.model_b, j.epoch) for j in rows)
    finally:
        store.close()


@pytest.mark.parametrize("command", ["pairwise", "score", "hallucination"])
def test_every_judge_option_has_its_api_counterpart_with_the_same_default(command: str) -> None:
    group = typer.main.get_command(app).commands["judge"]  # type: ignore[attr-defined]
    params = {p.name: p for p in group.commands[command].params}
    api_params = inspect.signature(api.judge).parameters
    for name, param in params.items():
        if name in CLI_ONLY or name == "benchmark":
            continue
        if name in SETTINGS:
            assert SETTINGS[name] in {f for f in GenerationSettings.__dataclass_fields__}
            assert "config" in api_params
            continue
        counterpart = api_params.get(RENAMED.get(name, name))
        assert counterpart is not None, f"--{name} has no api.judge parameter"
        if counterpart.default is not inspect.Parameter.empty and name != "store":
            assert counterpart.default == param.default, name


def test_a_run_with_nothing_to_judge_fails_through_both_doors(tmp_path: Path) -> None:
    # No captions: the hallucination judge cannot build a single unit.
    path = _write(tmp_path / "s.db", captions=False)
    cli = runner.invoke(
        app, ["judge", "hallucination", BENCH, *_models_args(), "-j", "x/judge", "--store", path]
    )
    assert cli.exit_code == 1, cli.output
    assert "every unit (6) lacks an answer, caption or reference" in " ".join(cli.output.split())
    with pytest.raises(NothingToJudge, match=r"every unit \(6\) lacks") as raised:
        api.judge(BENCH, MODELS, "x/judge", protocol="hallucination", store=path)
    assert raised.value.result.run.missing == 6


def _models_args() -> list[str]:
    return [arg for m in MODELS for arg in ("-m", m)]


@pytest.mark.parametrize(
    ("command", "cli_flags", "api_options"),
    [
        ("pairwise", ["--reference-free"], {"reference_free": True}),
        ("score", [], {}),
        ("hallucination", [], {}),
        ("score", ["--limit", "2"], {"limit": 2}),
        ("hallucination", ["--limit", "2", "--limit-seed", "1"], {"limit": 2, "limit_seed": 1}),
        ("pairwise", ["--epochs", "2"], {"epochs": 2}),
        ("score", ["--epochs", "2", "--limit", "2"], {"epochs": 2, "limit": 2}),
    ],
)
def test_the_same_call_both_ways_stores_the_same_judgments(
    tmp_path: Path, command: str, cli_flags: list[str], api_options: dict[str, object]
) -> None:
    by_api = _write(tmp_path / "api.db", captions=True)
    by_cli = _write(tmp_path / "cli.db", captions=True)
    made = api.judge(
        BENCH,
        MODELS,
        "x/judge",
        protocol=command,
        store=by_api,
        **api_options,  # type: ignore[arg-type]
    )
    args = ["judge", command, BENCH, *_models_args(), "-j", "x/judge", *cli_flags]
    cli = runner.invoke(app, [*args, "--json", "--store", by_cli])
    assert cli.exit_code == 0, cli.output
    run = json.loads(cli.output)["run"]
    assert (run["ok"], run["missing"], run["protocol"]) == (made.ok, made.missing, made.protocol)
    assert made.ok > 0
    assert _judgments(by_api) == _judgments(by_cli)
    judged = {row[2] for row in _judgments(by_api)}
    assert len(judged) == api_options.get("limit", 3)  # a --limit subset alone is judged
    epochs = {row[5] for row in _judgments(by_api)}
    assert epochs == set(range(int(api_options.get("epochs", 1))))  # type: ignore[call-overload]
    assert json.loads(cli.output)["epochs"] == api_options.get("epochs", 1)
    # Asked again through the other door: everything is found done, nothing is asked twice.
    again = runner.invoke(app, [*args, "--json", "--store", by_api])
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["run"]["requests"] == 0


def _with_votes(path: str) -> None:
    store = Store.open(path)
    votes = [
        Judgment(
            item_id=f"o{i}",
            judge=f"human:crowd-{k}",
            protocol="human",
            model_a="m/good",
            model_b="m/bad",
            verdict="a" if (i + k) % 3 else "b",
        )
        for i in range(3)
        for k in range(3)
    ]
    put_judgments(store, votes)
    store.close()


@pytest.mark.parametrize("command", ["rate", "agreement"])
def test_every_rating_option_has_its_api_counterpart_with_the_same_default(command: str) -> None:
    params = {p.name: p for p in typer.main.get_command(app).commands[command].params}  # type: ignore[attr-defined]
    api_params = inspect.signature(getattr(api, command)).parameters
    renamed = {"style_control": "style"}
    for name, param in params.items():
        if name in CLI_ONLY or name == "benchmark":
            continue
        counterpart = api_params.get(renamed.get(name, name))
        assert counterpart is not None, f"{command} --{name} has no api.{command} parameter"
        if counterpart.default is not inspect.Parameter.empty and name != "store":
            assert counterpart.default == param.default, name


def test_rate_from_peoples_votes_is_the_same_through_both_doors(tmp_path: Path) -> None:
    # The API looked "human" up as a model spec (no ratings from votes) where the command rates.
    path = _write(tmp_path / "s.db", captions=True)
    _with_votes(path)
    cli = runner.invoke(app, ["rate", BENCH, "-j", "human", "--json", "--store", path])
    assert cli.exit_code == 0, cli.output
    by_api = api.rate(BENCH, "human", store=path)
    assert by_api.pairs == 3
    assert json.loads(cli.output) == json.loads(json.dumps(by_api.as_dict()))


def test_agreement_is_the_same_through_both_doors(tmp_path: Path) -> None:
    # The same judge found under the protocol it used (it also scored, under another), the
    # same pairs compared, and an annotator group with no votes refused alike.
    path = _write(tmp_path / "s.db", captions=True)
    _with_votes(path)
    api.judge(BENCH, MODELS, "x/judge", protocol="score", store=path)
    api.judge(BENCH, MODELS, "x/judge", store=path)  # pairwise-ref rows, pairs with votes
    cli = runner.invoke(app, ["agreement", BENCH, "-j", "x/judge", "--json", "--store", path])
    assert cli.exit_code == 0, cli.output
    found = api.agreement(BENCH, "x/judge", store=path)
    assert json.loads(cli.output)["pairs"] == found.majority.pairs  # type: ignore[union-attr]
    args = ["agreement", BENCH, "-j", "x/judge", "--annotators", "expert", "--store", path]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2
    with pytest.raises(ValueError, match="expert"):
        api.agreement(BENCH, "x/judge", store=path, annotators="expert")
