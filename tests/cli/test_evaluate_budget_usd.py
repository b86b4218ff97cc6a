"""Prices and money caps through the real CLI, runner and store, against the fake
OpenAI-compatible server (every answer: 20 input + 3 output tokens, so at price=1000,2000 an
answer costs $0.026 and an item asked of two models $0.052): a priced run prints its cost,
``--budget-usd`` stops before the cap with fewer items than the full run, a rerun pays nothing
and stops at the same place, and a spec without a price is refused before anything is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runs import count_rows, evaluate_json
from fake_openai_server import FakeOpenAIServer
from quiz_store import write_quiz
from typer.testing import CliRunner

from lvlmbench.cli import app

runner = CliRunner()
BENCH = "quiz"
ITEMS = 400
PRICE = "price=1000,2000"
ANSWER_USD = (20 * 1000 + 3 * 2000) / 1e6
ITEM_USD = 2 * ANSWER_USD  # two examinees


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store holding ITEMS text-only multiple-choice items over 2 aspects × 3 levels."""
    return write_quiz(tmp_path / "s.db", BENCH, ITEMS)


def _spec(server: FakeOpenAIServer, name: str, price: str | None = PRICE) -> str:
    return f"openai/{name}?base_url={server.base_url}" + (f"&{price}" if price else "")


def _pair(server: FakeOpenAIServer) -> list[str]:
    a, b = _spec(server, "a"), _spec(server, "b")
    return ["-m", a, "-m", b, "--until", "compare"]


def test_a_priced_run_prints_what_it_paid(db: Path, server: FakeOpenAIServer) -> None:
    priced, plain = _spec(server, "a"), _spec(server, "b", price=None)
    args = ["evaluate", BENCH, "-m", priced, "-m", plain, "--limit", "10", "--store", str(db)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    line_a = text[text.index(f"openai/a?base_url={server.base_url}: 10 ok") :]
    line_b = text[text.index(f"openai/b?base_url={server.base_url}: 10 ok") :]
    assert "s, $0.2600 paid (200 in + 30 out tokens)" in line_a[:180]
    assert "paid" not in line_b
    again = evaluate_json(db, BENCH, "-m", priced, "-m", plain, "--limit", "10")
    first_a = again["runs"][0]
    assert first_a["cost_usd"] == 0 and first_a["requests"] == 0  # stored answers are free
    assert again["runs"][1]["cost_usd"] is None  # no price: no cost, not a cost of 0
    fresh = evaluate_json(db, BENCH, "-m", priced, "--limit", "20")["runs"][0]
    assert fresh["requests"] == 10 and fresh["input_tokens"] == 200
    assert fresh["cost_usd"] == pytest.approx(10 * ANSWER_USD)


def test_budget_usd_stops_before_the_cap_and_a_rerun_pays_nothing(
    db: Path, server: FakeOpenAIServer
) -> None:
    before = server.stats.requests
    report = evaluate_json(db, BENCH, *_pair(server), "--budget-usd", "1")
    budget, money = report["budget"], report["budget"]["money"]
    # A probe item, then rounds of 1, 2, 4, 8 (0.832 spent) and the 3 items 0.168 affords.
    assert budget["items_used"] == 19 < ITEMS and budget["rounds"] == 6
    assert money["used_usd"] == pytest.approx(19 * ITEM_USD) and money["used_usd"] <= 1
    assert money["cap_usd"] == 1 and money["paid_usd"] == pytest.approx(money["used_usd"])
    assert money["full_estimate_usd"] == pytest.approx(ITEMS * ITEM_USD)
    assert money["item_mean_usd"] == pytest.approx(ITEM_USD)
    assert "within budget (the budget is spent)" in budget["decision"]
    assert server.stats.requests - before == 2 * 19 == count_rows(db, "responses")
    assert sum(run["cost_usd"] for run in report["runs"]) == pytest.approx(19 * ITEM_USD)

    again = evaluate_json(db, BENCH, *_pair(server), "--budget-usd", "1")
    assert server.stats.requests - before == 2 * 19  # nothing asked again
    assert again["budget"]["money"]["paid_usd"] == 0
    same = ("items_used", "decision", "order", "rounds")
    assert {k: again["budget"][k] for k in same} == {k: budget[k] for k in same}
    assert again["budget"]["money"]["used_usd"] == pytest.approx(money["used_usd"])


def test_the_human_report_states_money_cap_and_estimate(db: Path, server: FakeOpenAIServer) -> None:
    result = runner.invoke(
        app, ["evaluate", BENCH, *_pair(server), "--budget-usd", "1", "--store", str(db)]
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "money: $0.9880 for the answers used of a cap of $1.0000" in text
    assert "($0.9880 paid by this run" in text
    assert "the full run (400 items) would cost about $20.80 (estimate: $0.0520 per item" in text


@pytest.mark.parametrize(
    ("calls", "usd", "items"),
    [
        ("20", "1", 10),  # 20 calls: 10 items, $0.52
        ("100", "0.5", 9),  # 1 + 1 + 2 + 4 + 1 items: $0.468
    ],
)
def test_the_first_cap_reached_stops(
    db: Path, server: FakeOpenAIServer, calls: str, usd: str, items: int
) -> None:
    budget = evaluate_json(db, BENCH, *_pair(server), "--budget", calls, "--budget-usd", usd)[
        "budget"
    ]
    assert budget["items_used"] == items and budget["calls"] <= int(calls)
    used = budget["money"]["used_usd"]
    assert used == pytest.approx(items * ITEM_USD) and used <= float(usd)


def test_epochs_count_every_answer(db: Path, server: FakeOpenAIServer) -> None:
    budget = evaluate_json(db, BENCH, *_pair(server), "--epochs", "2", "--budget-usd", "1")[
        "budget"
    ]
    # $0.104 an item: 1 + 1 + 2 + 4 items ($0.832), then 1 more.
    assert budget["items_used"] == 9
    assert budget["money"]["used_usd"] == pytest.approx(9 * 2 * ITEM_USD)
    assert count_rows(db, "responses") == 9 * 2 * 2


def test_a_cap_below_one_item_is_passed_by_the_probe_alone(
    db: Path, server: FakeOpenAIServer
) -> None:
    """The documented exception: an item's cost is learned by asking it."""
    budget = evaluate_json(db, BENCH, *_pair(server), "--budget-usd", "0.01")["budget"]
    assert budget["items_used"] == 1 and budget["rounds"] == 1
    assert budget["money"]["used_usd"] == pytest.approx(ITEM_USD)
    assert "the budget is spent" in budget["decision"]


def test_a_model_without_a_price_is_refused_before_anything_is_written(
    tmp_path: Path, db: Path, server: FakeOpenAIServer
) -> None:
    before = server.stats.requests + server.stats.probes
    priced, plain = _spec(server, "a"), _spec(server, "b", price=None)
    for store in (db, tmp_path / "new.db"):
        args = ["evaluate", BENCH, "-m", priced, "-m", plain, "--until", "compare"]
        result = runner.invoke(app, [*args, "--budget-usd", "1", "--store", str(store)])
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert f"--model '{plain}' has no price" in text and "price=IN,OUT" in text
    assert not (tmp_path / "new.db").exists()
    assert (
        count_rows(db, "responses") == 0 and server.stats.requests + server.stats.probes == before
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--until", "compare", "--budget-usd", "0"], "--budget-usd 0.0: expected an amount"),
        (["--until", "compare", "--budget-usd", "-2"], "--budget-usd -2.0: expected"),
        (["--until", "compare", "--budget-usd", "nan"], "--budget-usd nan: expected"),
        (["--budget-usd", "5"], "--budget-usd caps a budgeted run: give --until"),
    ],
)
def test_bad_budget_usd_exits_2(
    db: Path, server: FakeOpenAIServer, args: list[str], needle: str
) -> None:
    models = ["-m", _spec(server, "a"), "-m", _spec(server, "b")]
    result = runner.invoke(app, ["evaluate", BENCH, *models, *args, "--store", str(db)])
    assert result.exit_code == 2, result.output
    assert needle in " ".join(result.output.split())
    assert count_rows(db, "responses") == 0
