"""`lvlmbench generate` and api.generate: every option of the command is the API's, with the
same default; the same offline call both ways (at once, and in rounds under a budget) stores
the same benchmark, and options one refuses the other refuses too."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.store import Store, iter_items
from lvlmbench.workflows import InvalidOptions

PRINTING_ONLY = {"as_json"}
"""Options that only choose how the command prints."""
AS_TYPED: dict[str, Callable[[Any], Any]] = {"levels": lambda text: text.split(",")}
"""Options the command takes as text and parses: its default as the API's value."""


def _options() -> dict[str, Any]:
    """name -> the click parameter of `lvlmbench generate`."""
    command: Any = typer.main.get_command(app)
    return {p.name: p for p in command.commands["generate"].params}


def test_every_option_is_the_apis_with_the_same_default() -> None:
    cli = _options()
    wanted = inspect.signature(api.generate).parameters
    shared = set(cli) & set(wanted)
    assert set(cli) - shared - PRINTING_ONLY == set()  # nothing the API cannot do
    assert set(wanted) - set(cli) == set()  # nothing the command cannot do
    for name in shared:
        default = wanted[name].default
        if cli[name].required:
            assert default is inspect.Parameter.empty, name
            continue
        given = AS_TYPED.get(name, lambda value: value)(cli[name].default)
        expected = list(default) if isinstance(default, tuple) else default
        assert given == expected, (
            f"--{name}: the command's default {given!r}, the API's {expected!r}"
        )


def _stored(db: Path, benchmark: str) -> list[tuple[str, str, str | None, str, str | None]]:
    store = Store.open(str(db))
    rows = [
        (i.id, i.question, i.answer, str(sorted(i.options.items())), i.category)
        for i in iter_items(store, benchmark)
    ]
    store.close()
    return rows


def test_the_same_generation_both_ways(tmp_path: Path) -> None:
    """Procedural examiner and images (offline): the same name, the same items, in order."""
    by_cli, by_api = tmp_path / "cli.db", tmp_path / "api.db"
    args = ["generate", "spatial understanding", "-n", "1", "-k", "2", "--per-aspect", "1"]
    result = CliRunner().invoke(app, [*args, "--seed", "3", "--store", str(by_cli)])
    assert result.exit_code == 0, result.output
    made = api.generate("spatial understanding", store=str(by_api), n=1, m=2, per_aspect=1, seed=3)
    assert made.benchmark in result.output
    assert made.items == 1 * 2 * 3  # n x m fine aspects x 3 levels, one image each
    rows = _stored(by_cli, made.benchmark)
    assert len(rows) == made.items and rows == _stored(by_api, made.benchmark)


def test_the_same_generation_in_rounds_both_ways(tmp_path: Path) -> None:
    """--budget builds in rounds through both doors: the same units built, calls and items."""
    by_cli, by_api = tmp_path / "cli.db", tmp_path / "api.db"
    args = ["generate", "spatial understanding", "-n", "2", "-k", "2", "--per-aspect", "1"]
    rounds = ["--budget", "5", "--first-round", "2", "--json"]
    result = CliRunner().invoke(app, [*args, *rounds, "--store", str(by_cli)])
    assert result.exit_code == 0, result.output
    made = api.generate(
        "spatial understanding", store=str(by_api), n=2, m=2, per_aspect=1, budget=5, first_round=2
    )
    assert made.rounds is not None
    spent = json.loads(result.output)["budget"]
    assert made.rounds.as_json() == spent
    # a procedural unit costs one render call: 5 calls build 5 of the 2 x 2 x 3 units planned
    assert (spent["units_built"], spent["calls"], spent["units_planned"]) == (5, 5, 12)
    assert spent["stopped_by_budget"]
    assert made.items == spent["units_built"]  # one image per unit here
    rows = _stored(by_cli, made.benchmark)
    assert len(rows) == made.items and rows == _stored(by_api, made.benchmark)


@pytest.mark.parametrize(
    ("cli_args", "api_options", "message"),
    [
        (["--model", "baseline/random"], {"model": ["baseline/random"]}, "--model"),
        (["--budget", "0"], {"budget": 0}, "--budget 0"),
        (["--zeta", "hard=2"], {"zeta": "hard=2"}, "--zeta"),
        (["--tf-share", "1.5"], {"tf_share": 1.5}, "--tf-share"),
        (["--concurrency", "0"], {"concurrency": 0}, "--concurrency"),
        (["--image-size", "30"], {"image_size": 30}, "--image-size 30"),
    ],
)
def test_refused_alike_and_nothing_written(
    tmp_path: Path, cli_args: list[str], api_options: dict[str, Any], message: str
) -> None:
    """What the command refuses with exit 2, the API refuses with InvalidOptions: same
    message, before any store is opened (no file is created)."""
    by_cli, by_api = tmp_path / "cli.db", tmp_path / "api.db"
    args = ["generate", "spatial understanding", *cli_args, "--store", str(by_cli)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    with pytest.raises(InvalidOptions, match=re.escape(message)) as refused:
        api.generate("spatial understanding", store=str(by_api), **api_options)
    assert str(refused.value).split(":")[0] in " ".join(result.output.split())
    assert not by_cli.exists() and not by_api.exists()


def test_the_same_decision_in_rounds_both_ways(tmp_path: Path) -> None:
    """--until with two examinees: the same rounds, decision and examinee runs both ways."""
    by_cli, by_api = tmp_path / "cli.db", tmp_path / "api.db"
    oracle, random = "baseline/oracle", "baseline/random"
    plan = ["generate", "spatial understanding", "-n", "1", "-k", "2", "--per-aspect", "2"]
    until = ["--model", oracle, "--model", random, "--until", f"compare:{random},{oracle}"]
    result = CliRunner().invoke(app, [*plan, *until, "--json", "--store", str(by_cli)])
    assert result.exit_code == 0, result.output
    made = api.generate(
        "spatial understanding",
        store=str(by_api),
        n=1,
        m=2,
        per_aspect=2,
        model=[oracle, random],
        until=f"compare:{random},{oracle}",
    )
    assert made.rounds is not None and made.rounds.decided is not None
    printed = json.loads(result.output)
    assert made.rounds.as_json() == printed["budget"]
    assert [(s.model, s.ok, s.total) for s in made.rounds.summaries] == [
        (run["model"], run["ok"], run["total"]) for run in printed["runs"]
    ]
    assert _stored(by_cli, made.benchmark) == _stored(by_api, made.benchmark)
