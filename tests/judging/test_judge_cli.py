"""CLI smoke: `judge pairwise|score|hallucination`, `rate`, `agreement` on a scripted judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from fakes import ScriptedModel
from judge_script import scripted_judge_reply
from typer.testing import CliRunner

from lvlmbench.cli import judge as judge_cli
from lvlmbench.cli import judgments as judgments_cli
from lvlmbench.store import Store, put_items, put_judgments, put_responses
from lvlmbench.types import BenchmarkItem, Judgment, Response

BENCH = "cli-judge"
runner = CliRunner()


def _app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(judge_cli.judge_app, name="judge")
    app.command("rate")(judgments_cli.rate)
    app.command("agreement")(judgments_cli.agreement)
    return app


@pytest.fixture
def store_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = str(tmp_path / "s.db")
    store = Store.open(path)
    items = [
        BenchmarkItem(
            id=f"c{i}",
            benchmark=BENCH,
            question=f"Describe picture {i}.",
            caption=f"A cat on a mat ({i}).",
            reference=f"A cat. ({i})",
            category="description",
        )
        for i in range(2)
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=it.id, model=m, text=f"{'GOOD' if m == 'm/good' else 'meh'} cat")
            for it in items
            for m in ("m/good", "m/bad")
        ],
    )
    store.close()
    monkeypatch.setattr(judge_cli, "resolve_spec", lambda spec: spec)
    monkeypatch.setattr(
        judge_cli,
        "load_chat_model",
        lambda spec, **_: ScriptedModel(steps=[scripted_judge_reply] * 100, spec=spec),
    )
    return path


def test_pairwise_rate_agreement(store_path: str) -> None:
    app = _app()
    base = ["--store", store_path]
    args = ["judge", "pairwise", BENCH, "-m", "m/good", "-m", "m/bad", "--judge", "x/judge"]
    result = runner.invoke(app, [*args, "--reference-free", "--json", *base])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["run"]["ok"] == 2 * 3 * 2 and data["run"]["unparseable"] == 0
    elo = data["ratings"]["online_elo"]
    assert set(elo["in_order"]) == set(elo["shuffled_mean"]) == {"m/good", "m/bad", "reference"}
    # A judge run records no battle order: the in-order figure says it replays item order.
    assert elo["in_order_label"] == "online Elo, in benchmark item order (no battle order recorded)"
    assert elo["shuffled_label"] == "online Elo, mean of 100 shuffled orders"
    shown = runner.invoke(app, ["rate", BENCH, *base])
    assert shown.exit_code == 0, shown.output
    words = " ".join(shown.output.split())
    assert "m/good" in shown.output
    assert f"{elo['in_order_label']}: the matches replayed once" in words
    assert f"{elo['shuffled_label']} (seed 0): the same matches in random orders" in words

    store = Store.open(store_path)
    put_judgments(
        store,
        [
            Judgment(
                item_id="c0",
                judge=f"human:{k}",
                protocol="human",
                model_a="m/good",
                model_b="m/bad",
                verdict="a",
            )
            for k in range(3)
        ],
    )
    store.close()
    agreed = runner.invoke(app, ["agreement", BENCH, "--judge", "x/judge", "--json", *base])
    assert agreed.exit_code == 0, agreed.output
    report = json.loads(agreed.output)
    assert report["pairs"] == 1 and report["levels"][0]["coin_flip_rate"] == 1.0
    table = runner.invoke(app, ["agreement", BENCH, "--judge", "x/judge", *base])
    assert "3/3" in table.output


def test_score_and_hallucination(store_path: str) -> None:
    app = _app()
    base = ["--store", store_path, "--judge", "x/judge"]
    # The items carry their own reference (TouchStone's gpt4_ha_answer), the default since
    # "published"; a caption-assisted one written by the judge is asked for explicitly.
    regen = ["--regenerate-reference", "--json"]
    scored = runner.invoke(app, ["judge", "score", BENCH, "-m", "m/good", *base, *regen])
    assert scored.exit_code == 0, scored.output
    data = json.loads(scored.output)
    assert data["reference"] == "reference:x/judge"
    (row,) = data["scores"]
    assert row["items"] == 2 and row["score"] == pytest.approx(650.0)
    assert row["reference"] == pytest.approx(650.0)
    plain = runner.invoke(app, ["judge", "score", BENCH, "-m", "m/good", *base])
    assert plain.exit_code == 0 and "TouchStone" in plain.output
    halluc = runner.invoke(app, ["judge", "hallucination", BENCH, "-m", "m/bad", *base])
    assert halluc.exit_code == 0, halluc.output
    assert "3.00" in halluc.output


def test_unknown_benchmark_is_exit_2(store_path: str) -> None:
    result = runner.invoke(
        _app(),
        [
            "judge",
            "pairwise",
            "nope",
            "-m",
            "a/b",
            "-m",
            "c/d",
            "--judge",
            "x/j",
            "--store",
            store_path,
        ],
    )
    assert result.exit_code == 2


def test_missing_answers_are_asked_first(store_path: str) -> None:
    args = ["judge", "pairwise", BENCH, "-m", "m/good", "-m", "baseline/prior", "--judge", "x/j"]
    result = runner.invoke(_app(), [*args, "--reference-free", "--json", "--store", store_path])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["run"]["missing"] == 0 and data["run"]["ok"] == 2 * 3 * 2
