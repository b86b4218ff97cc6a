"""`judge PROTOCOL ... --epochs K`: each examinee's K answers per item (evaluate --epochs K's
samples, asked where missing) are judged epoch by epoch, stored per epoch, and the results
keep the item as the unit: an item's epochs average (score, hallucination) or weigh 1/K each
(win rates, ratings), so an interval counts items, not items x epochs."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
import typer
from fakes import ScriptedModel
from judge_script import scripted_judge_reply
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import judge as judge_cli
from lvlmbench.judging import (
    JudgeProtocol,
    JudgeRunSummary,
    ProgressHook,
    RatingScale,
    register,
    unregister,
)
from lvlmbench.models import ModelClient
from lvlmbench.report.scores import touchstone_scores
from lvlmbench.store import (
    Store,
    iter_benchmark_responses,
    iter_items,
    iter_judgments,
    put_items,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, Message, ModelOutput, Response
from lvlmbench.workflows import InvalidOptions, JudgeOptions, check_judge_options

BENCH = "epochs"
MODEL = "m/a"
runner = CliRunner()

# m/a's answers: epoch 0 is GOOD on every item, epoch 1 on items 0 and 1 only; on item 3
# epoch 1's answer is one the judge cannot score.
ANSWERS = {
    0: ["GOOD cat", "GOOD cat", "GOOD cat", "GOOD cat"],
    1: ["GOOD cat", "GOOD cat", "meh cat", "meh cat UNSCORABLE"],
}


def _graded(answer: str) -> int:
    return 9 if "GOOD" in answer else 3 if "meh" in answer else 5


def judge_reply(messages: list[Message]) -> ModelOutput:
    """TouchStone scores by content (GOOD 9, meh 3, the reference 5), nothing for an
    UNSCORABLE answer; every other protocol as the shared scripted judge answers."""
    text = messages[-1].text()
    answers = re.findall(r"\[Assistant \d's Answer\]\n(.*?)\n\[End", text, re.S)
    if len(answers) != 2:
        return scripted_judge_reply(messages)
    if any("UNSCORABLE" in a for a in answers):
        return ModelOutput(text="These cannot be compared.")
    return ModelOutput(text=f"{_graded(answers[0])} {_graded(answers[1])}\nbecause")


@pytest.fixture
def judge_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Calls the judge model received, over every run of the test."""
    calls: list[int] = []

    def load(spec: str, **_: object) -> ScriptedModel:
        model = ScriptedModel(steps=[judge_reply] * 100, spec=spec)
        original = model.generate

        async def counted(messages: list[Message], config: object) -> ModelOutput:
            calls.append(1)
            return await original(messages, config)  # type: ignore[arg-type]

        model.generate = counted  # type: ignore[method-assign]
        return model

    monkeypatch.setattr(judge_cli, "resolve_spec", lambda spec: spec)
    monkeypatch.setattr(judge_cli, "load_chat_model", load)
    return calls


def _store(path: Path, epochs: tuple[int, ...] = (0, 1)) -> str:
    store = Store.open(str(path))
    items = [
        BenchmarkItem(
            id=f"e{i}",
            benchmark=BENCH,
            question=f"Describe picture {i}.",
            caption=f"A cat on a mat ({i}).",
            reference=f"A cat. ({i})",
        )
        for i in range(4)
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=item.id, model=MODEL, text=ANSWERS[k][i], epoch=k)
            for k in epochs
            for i, item in enumerate(items)
        ],
    )
    store.close()
    return str(path)


def _app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(judge_cli.judge_app, name="judge")
    app.command("noop")(lambda: None)  # a group, so `judge` stays a subcommand
    return app


def _judge(path: str, protocol: str, *args: str, models: tuple[str, ...] = (MODEL,)) -> str:
    argv = ["judge", protocol, BENCH, *(a for m in models for a in ("-m", m)), "-j", "x/judge"]
    result = runner.invoke(_app(), [*argv, *args, "--store", path])
    assert result.exit_code == 0, result.output
    return result.output


def _epochs_judged(path: str) -> dict[int, int]:
    store = Store.open(path)
    try:
        found: dict[int, int] = {}
        for j in iter_judgments(store, judge="x/judge"):
            found[j.epoch] = found.get(j.epoch, 0) + 1
        return found
    finally:
        store.close()


def test_score_averages_an_items_epochs_before_the_mean(
    tmp_path: Path, judge_calls: list[int]
) -> None:
    path = _store(tmp_path / "s.db")
    data = json.loads(_judge(path, "score", "--epochs", "2", "--json"))
    # 4 items x 2 epochs x 2 orders, the last item's epoch 1 unparseable in both orders.
    assert (data["run"]["ok"], data["run"]["unparseable"]) == (14, 2)
    assert data["epochs"] == 2 and _epochs_judged(path) == {0: 8, 1: 8}
    [row] = data["scores"]
    # Items: 9 (9, 9), 9 (9, 9), 6 (9, 3), 9 (epoch 0 alone): (9 + 9 + 6 + 9) / 4 = 8.25,
    # not the 57 / 7 = 8.14 of pooling the seven scored epochs. The reference: 5.
    assert row["score"] == pytest.approx(825.0)
    assert row["reference"] == pytest.approx(500.0)
    assert row["relative_pct"] == pytest.approx(165.0)
    assert (row["items"], row["unscored"]) == (4, 1)
    text = _judge(path, "score", "--epochs", "2")
    assert "2 epochs: each item's epochs averaged, the item is the unit" in " ".join(text.split())
    # The report's interval is over the 4 items' means (900, 900, 600, 900): standard error
    # sqrt(4/3 * (3 * 75² + 225²) / 4²) = 75, t(3) 3.1824 -> 825 - 238.68; the top is cut at
    # the scale's 1000.
    store = Store.open(path)
    try:
        [entry] = touchstone_scores(store, {i.id: i for i in iter_items(store, BENCH)})
    finally:
        store.close()
    [model] = entry["models"]
    assert model["score"] == pytest.approx(825.0) and model["items"] == 4
    assert model["ci_low"] == pytest.approx(586.32, abs=0.01) and model["ci_high"] == 1000.0


def test_pairwise_weighs_each_epoch_one_over_k_and_its_interval_counts_items(
    tmp_path: Path, judge_calls: list[int]
) -> None:
    path = _store(tmp_path / "s.db")
    data = json.loads(_judge(path, "pairwise", "--reference-free", "--epochs", "2", "--json"))
    # m/a against the reference: a GOOD answer wins both orders, a meh one splits them (a
    # tie under majority). Items 0, 1: two wins; items 2, 3: a win and a tie.
    # 4 items x 2 orders x 2 epochs asked, items 0 and 1 too, whose two epochs' answers are
    # the same text: epoch 1's judge call is a cache entry of its own.
    assert len(judge_calls) == 16 and _epochs_judged(path) == {0: 8, 1: 8}
    ratings = data["ratings"]
    assert (ratings["epochs"], ratings["pairs"], ratings["unscored_pairs"]) == (2, 8, 0)
    rate = ratings["win_rate_vs_reference"][MODEL]
    assert (rate["wins"], rate["ties"], rate["matches"]) == (3, 1, 4)
    assert rate["rate"] == 0.75
    # Wilson over 4 items (3 won), not over 8 verdicts (6 won): (0.3006, 0.9544).
    assert rate["low"] == pytest.approx(0.30064, abs=1e-5)
    assert rate["high"] == pytest.approx(0.95441, abs=1e-5)
    text = _judge(path, "pairwise", "--reference-free", "--epochs", "2")
    assert "2 epochs (pairs counts item-pairs × epochs)" in " ".join(text.split())


def test_hallucination_judges_every_epoch(tmp_path: Path, judge_calls: list[int]) -> None:
    path = _store(tmp_path / "s.db")
    data = json.loads(_judge(path, "hallucination", "--epochs", "2", "--json"))
    assert data["run"]["ok"] == 8 and _epochs_judged(path) == {0: 4, 1: 4}
    [row] = data["hallucination"]
    assert (row["rated"], row["mean"]) == (4, 3.0)  # items rated, each item's epochs averaged


def test_one_epoch_judges_epoch_0_alone_as_before(tmp_path: Path, judge_calls: list[int]) -> None:
    path = _store(tmp_path / "s.db")
    data = json.loads(_judge(path, "score", "--json"))
    assert data["epochs"] == 1 and _epochs_judged(path) == {0: 8}
    assert data["scores"][0]["score"] == pytest.approx(900.0)  # epoch 0: GOOD everywhere
    # A run with more epochs stored beside it leaves the one-epoch figures as they were.
    _judge(path, "score", "--epochs", "2")
    again = json.loads(_judge(path, "score", "--json"))
    assert again["run"]["requests"] == 0
    assert again["scores"] == data["scores"]


def test_a_resumed_run_asks_and_judges_only_what_is_missing(
    tmp_path: Path, judge_calls: list[int]
) -> None:
    # m/a answered epoch 0 only; baseline/prior answered nothing.
    path = _store(tmp_path / "s.db", epochs=(0,))
    models = (MODEL, "baseline/prior")
    # One epoch first: baseline/prior is asked epoch 0, the judge 4 items x 2 orders x 2 models.
    _judge(path, "score", models=models)
    assert len(judge_calls) == 16
    assert _answers_and_epochs(path, "baseline/prior") == [(0, 4)]
    # Then two epochs: baseline/prior's epoch 1 asked (m/a is an imported player, no runnable
    # spec: never run, its epoch 1 counts as missing), and only epoch 1's units judged.
    out = json.loads(_judge(path, "score", "--epochs", "2", "--json", models=models))
    assert out["run"]["skipped"] == 16 and out["run"]["missing"] == 8
    assert len(judge_calls) == 16 + 8
    assert _answers_and_epochs(path, "baseline/prior") == [(0, 4), (1, 4)]
    # And again: nothing asked, nothing judged.
    out = json.loads(_judge(path, "score", "--epochs", "2", "--json", models=models))
    assert out["run"]["requests"] == 0 and len(judge_calls) == 24
    assert _answers_and_epochs(path, "baseline/prior") == [(0, 4), (1, 4)]


def _answers_and_epochs(path: str, model: str) -> list[tuple[int, int]]:
    store = Store.open(path)
    try:
        found: dict[int, int] = {}
        for r in iter_benchmark_responses(store, BENCH, model=model):
            found[r.epoch] = found.get(r.epoch, 0) + 1
        return sorted(found.items())
    finally:
        store.close()


def test_epochs_below_one_are_refused(tmp_path: Path, judge_calls: list[int]) -> None:
    path = _store(tmp_path / "s.db")
    argv = ["judge", "score", BENCH, "-m", MODEL, "-j", "x/judge", "--epochs", "0"]
    result = runner.invoke(_app(), [*argv, "--store", path])
    assert result.exit_code == 2
    assert "--epochs" in result.output and "greater than or equal to 1" in result.output
    with pytest.raises(ValueError, match="--epochs 0: expected at least 1"):
        api.judge(BENCH, [MODEL], "x/judge", protocol="score", store=path, epochs=0)
    assert _epochs_judged(path) == {}


async def _judges_once(
    store: Store,
    benchmark: str,
    players: Sequence[str],
    client: ModelClient,
    hook: ProgressHook | None,
    *,
    only: Collection[str] | None = None,
) -> JudgeRunSummary:
    raise AssertionError("never run: refused before")


def test_a_protocol_whose_run_takes_no_epochs_refuses_more_than_one() -> None:
    once = JudgeProtocol("once", "rating", "once", scale=RatingScale(1, 5), run=_judges_once)
    register(once)
    try:
        options = JudgeOptions(models=(MODEL,), judge="x/judge", protocol="once", epochs=2)
        with pytest.raises(InvalidOptions, match="--epochs 2: the once protocol judges one"):
            check_judge_options(options, lambda spec: spec)
        check_judge_options(replace(options, epochs=1), lambda spec: spec)  # one epoch: fine
        for protocol in ("pairwise", "score", "hallucination"):  # the built-ins judge epochs
            check_judge_options(replace(options, protocol=protocol), lambda spec: spec)
    finally:
        unregister("once")
