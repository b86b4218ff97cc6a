"""``--budget-usd`` with a weightless ``baseline/…`` examinee: the baseline costs nothing, so
it needs no ``price=`` (it used to be refused for lacking one) and adds $0 to every item."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli.test_evaluate_budget_usd import ANSWER_USD, BENCH, _spec, db, server  # noqa: F401
from cli_runs import count_rows, evaluate_json
from fake_openai_server import FakeOpenAIServer

from lvlmbench.models import model_price


def test_baselines_are_free_and_need_no_price(
    db: Path,  # noqa: F811
    server: FakeOpenAIServer,  # noqa: F811
) -> None:
    before = server.stats.requests
    args = ["-m", _spec(server, "a"), "-m", "baseline/random", "--until", "compare"]
    report = evaluate_json(db, BENCH, *args, "--budget-usd", "0.5")
    budget, money = report["budget"], report["budget"]["money"]
    used = budget["items_used"]
    # Only the priced model's answers cost anything: $0.026 an item, whatever the baseline said.
    assert used > 1 and money["used_usd"] == pytest.approx(used * ANSWER_USD)
    assert money["used_usd"] <= 0.5
    assert money["item_mean_usd"] == pytest.approx(ANSWER_USD)
    assert server.stats.requests - before == used  # the baseline asks no server
    assert count_rows(db, "responses") == 2 * used


def test_a_baseline_s_price_is_zero_unless_its_spec_gives_one() -> None:
    assert model_price("baseline/random") == (0.0, 0.0)
    assert model_price("baseline/prior?seed=3") == (0.0, 0.0)
    assert model_price("openai/gpt-4o") is None  # a paid provider without a price stays unknown
