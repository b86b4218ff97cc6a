"""The money cap's arithmetic: a probe while the cost is unknown, rounds sized by the dearest
item seen and at most doubling, the overshoot only a round's estimation error, the full run
estimated by the mean."""

from __future__ import annotations

import pytest

from lvlmbench.budget import Spend

A, B = "openai/a", "openai/b"


def test_the_first_round_is_a_probe_until_every_model_has_a_cost() -> None:
    spend = Spend([A, B], cap_usd=1.0)
    assert not spend.known and spend.next_round(50, 0) == 1
    assert spend.items_affordable(400) == 400  # unknown: the rule is not told it is hopeless
    assert spend.full_estimate_usd(400, 0) is None
    spend.observe({A: [0.01], B: []})  # B's call failed: no answer, no cost, still unknown
    assert not spend.known and spend.next_round(50, 1) == 1
    spend.observe({A: [0.01], B: [0.02]})
    assert spend.known and spend.used_usd == pytest.approx(0.04)


def test_rounds_are_sized_by_the_dearest_item_seen() -> None:
    spend = Spend([A, B], cap_usd=1.0, samples_per_item=2)
    spend.observe({A: [0.01, 0.03], B: [0.02, 0.02]})
    # One item: 2 samples × (dearest A 0.03 + dearest B 0.02) = 0.10; 0.93 left.
    assert spend.item_usd(dearest=True) == pytest.approx(0.10)
    assert spend.item_usd(dearest=False) == pytest.approx(2 * (0.02 + 0.02))
    assert spend.next_round(50, 20) == 9 and spend.next_round(5, 20) == 5
    assert spend.items_affordable(3) == 3
    # A round asks at most as many new items as were used before it.
    assert spend.next_round(50, 4) == 4 and spend.next_round(50, 0) == 1


def test_an_exact_fit_is_not_lost_to_rounding() -> None:
    spend = Spend([A], cap_usd=0.4)
    spend.observe({A: [0.1]})
    assert spend.next_round(10, 10) == 3  # 0.3 / 0.1 is 2.9999… in floating point


def test_a_cap_reached_affords_nothing_and_a_free_model_everything() -> None:
    spent = Spend([A], cap_usd=0.05)
    spent.observe({A: [0.06]})  # the probe alone cost more than the cap
    assert spent.left_usd == pytest.approx(-0.01)
    assert spent.items_affordable(100) == 0 and spent.next_round(100, 1) == 0
    free = Spend([A], cap_usd=0.05)
    free.observe({A: [0.0]})
    assert free.items_affordable(100) == 100


def test_without_a_cap_costs_are_only_counted() -> None:
    spend = Spend([A])
    assert spend.next_round(50, 0) == 50  # no probe, no limit on growth
    spend.observe({A: [0.01, 0.03]})
    assert spend.left_usd is None and spend.items_affordable(7) == 7
    assert spend.full_estimate_usd(10, 2) == pytest.approx(0.04 + 8 * 0.02)


def _walk(costs: list[float], cap: float) -> tuple[Spend, int, list[float]]:
    """A run over items of the given costs under ``cap``; each round's overshoot of the cap
    is checked against that round's estimation error (what it cost beyond its plan)."""
    spend, used, overshoots = Spend([A], cap_usd=cap), 0, []
    while (n := spend.next_round(len(costs) - used, used)) > 0:
        left, dearest_before = spend.left_usd, spend.dearest.get(A)
        assert left is not None
        spend.observe({A: costs[used : used + n]})
        if dearest_before is not None:
            planned = n * dearest_before
            assert planned <= left + 1e-12  # the round was affordable as estimated
            over = max(0.0, spend.used_usd - cap)
            assert over <= sum(costs[used : used + n]) - planned + 1e-12
            overshoots.append(over)
        used += n
    return spend, used, overshoots


def test_steady_costs_never_exceed_the_cap_and_spend_it() -> None:
    spend, used, _ = _walk([0.03] * 200, 1.0)
    assert spend.used_usd <= 1.0 + 1e-12 and used == 33  # 33 × 0.03 = 0.99


def test_the_overshoot_is_one_rounds_estimation_error() -> None:
    """Items that get dearer along the order (what the random order makes unlikely): the round
    that meets them costs more than planned, by its dear items × the difference."""
    spend, used, overshoots = _walk([0.01] * 40 + [0.05] * 200, 1.0)
    # Rounds of 1, 1, 2, 4, 8, 16 (0.32 spent), then 32 planned at 0.01 each (0.32 of the 0.68
    # left): 8 cheap and 24 dear items cost 1.28, so the cap is passed by 0.6 (within the
    # round's error of 24 × 0.04 = 0.96); then nothing is left.
    assert used == 64 and spend.used_usd == pytest.approx(1.6)
    assert max(overshoots) == pytest.approx(0.6)


@pytest.mark.parametrize("cap", [0.0, -1.0, float("nan"), float("inf")])
def test_a_cap_must_be_a_positive_amount(cap: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        Spend([A], cap_usd=cap)
