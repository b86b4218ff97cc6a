"""`judge ... --limit N [--limit-seed S]` works on the subset `evaluate --limit N` asks: the
judge and the examinees asked for missing answers touch those items only, and the results
(scores, ratings) are over them, said as "over N of M items" and in --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from fakes import ScriptedModel
from judge_script import scripted_judge_reply
from typer.testing import CliRunner

from lvlmbench.cli import judge as judge_cli
from lvlmbench.judging import answer_texts, missing_answers
from lvlmbench.runner import stratified_subset
from lvlmbench.store import (
    Store,
    iter_benchmark_responses,
    iter_items,
    iter_judgments,
    put_items,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, Response

BENCH = "limited"
runner = CliRunner()


def _app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(judge_cli.judge_app, name="judge")
    app.command("noop")(lambda: None)  # a group, so `judge` stays a subcommand
    return app


@pytest.fixture
def store_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Six open items in two categories; m/good and m/bad answered every one."""
    path = str(tmp_path / "s.db")
    store = Store.open(path)
    items = [
        BenchmarkItem(
            id=f"q{i}",
            benchmark=BENCH,
            question=f"Describe picture {i}.",
            caption=f"A cat on a mat ({i}).",
            reference=f"A cat. ({i})",
            category="recognition" if i % 2 else "description",
        )
        for i in range(6)
    ]
    put_items(store, items)
    answers = [
        Response(item_id=it.id, model=m, text=f"{'GOOD' if m == 'm/good' else 'meh'} cat")
        for it in items
        for m in ("m/good", "m/bad")
    ]
    put_responses(store, answers)
    store.close()
    monkeypatch.setattr(judge_cli, "resolve_spec", lambda spec: spec)
    monkeypatch.setattr(
        judge_cli,
        "load_chat_model",
        lambda spec, **_: ScriptedModel(steps=[scripted_judge_reply] * 100, spec=spec),
    )
    return path


def _evaluate_subset(path: str, n: int, seed: int) -> set[str]:
    """The ids `evaluate --limit n --limit-seed seed` asks (the runner's own draw)."""
    store = Store.open(path)
    try:
        return stratified_subset(iter_items(store, BENCH), n, seed)
    finally:
        store.close()


def _judged_items(path: str) -> set[str]:
    store = Store.open(path)
    try:
        return {j.item_id for j in iter_judgments(store, judge="x/judge")}
    finally:
        store.close()


def _judge(path: str, protocol: str, *args: str) -> tuple[int, str]:
    models = ["-m", "m/good", "-m", "m/bad"]
    argv = ["judge", protocol, BENCH, *models, "-j", "x/judge", *args, "--store", path]
    result = runner.invoke(_app(), argv)
    return result.exit_code, result.output


def test_score_judges_the_evaluate_subset_and_scores_over_it(store_path: str) -> None:
    code, out = _judge(store_path, "score", "--limit", "2", "--limit-seed", "3", "--json")
    assert code == 0, out
    data = json.loads(out)
    subset = _evaluate_subset(store_path, 2, 3)
    assert len(subset) == 2
    assert _judged_items(store_path) == subset
    # 2 items x 2 models x 2 orders, each "7 6": the model's 6 against the reference's 7.
    assert data["run"]["ok"] == 8 and data["run"]["total"] == 8
    assert (data["items"], data["items_total"]) == (2, 6)
    assert {row["model"]: row["items"] for row in data["scores"]} == {"m/good": 2, "m/bad": 2}


def test_pairwise_ratings_leave_out_judgments_of_items_outside_the_subset(
    store_path: str,
) -> None:
    # A full run first: 6 items x 1 pair x 2 orders stored.
    code, out = _judge(store_path, "pairwise", "--json")
    assert code == 0, out
    assert json.loads(out)["ratings"]["items"] == 6
    code, out = _judge(store_path, "pairwise", "--limit", "4", "--json")
    assert code == 0, out
    data = json.loads(out)
    # Nothing asked again (resumed), and the ratings count the 4 subset items' pairs alone.
    assert data["run"]["requests"] == 0 and data["run"]["skipped"] == 8
    assert data["ratings"]["items"] == 4 and (data["items"], data["items_total"]) == (4, 6)
    assert data["ratings"]["pairs"] == 4
    code, out = _judge(store_path, "pairwise", "--limit", "4")
    assert code == 0, out
    assert "over 4 of 6 items" in out


def test_missing_answers_are_asked_on_the_subset_only(store_path: str) -> None:
    argv = ["judge", "pairwise", BENCH, "-m", "m/good", "-m", "baseline/prior", "-j", "x/judge"]
    argv += ["--reference-free", "--limit", "3", "--json", "--store", store_path]
    result = runner.invoke(_app(), argv)
    assert result.exit_code == 0, result.output
    subset = _evaluate_subset(store_path, 3, 0)
    store = Store.open(store_path)
    try:
        asked = {r.item_id for r in iter_benchmark_responses(store, BENCH, model="baseline/prior")}
    finally:
        store.close()
    assert asked == subset
    # Reference-free with the reference playing: 3 players, 3 pairs, 2 orders, 3 items.
    assert json.loads(result.output)["run"]["ok"] == 3 * 2 * 3


def test_a_limit_below_one_is_refused(store_path: str) -> None:
    code, out = _judge(store_path, "score", "--limit", "0")
    assert code == 2
    assert "--limit 0: expected a whole number of at least 1" in out
    assert _judged_items(store_path) == set()


def test_a_judge_reads_epoch_0s_answer_not_the_last_epoch_written(tmp_path: Path) -> None:
    # evaluate --epochs 2 stored two answers of m/good on one item; the judge read whichever
    # the store yielded last (epoch 1's "meh") and its verdicts had no epoch to say so.
    store = Store.open(str(tmp_path / "e.db"))
    item = BenchmarkItem(id="e0", benchmark=BENCH, question="Describe it.", reference="A cat.")
    put_items(store, [item])
    put_responses(
        store,
        [
            Response(item_id="e0", model="m/good", text="GOOD cat", epoch=0),
            Response(item_id="e0", model="m/good", text="meh cat", epoch=1),
        ],
    )
    assert answer_texts(store, [item], ["m/good"]) == {"e0": {"m/good": "GOOD cat"}}
    assert missing_answers(store, BENCH, ["m/good"]) == {"m/good": 0}
