"""``evaluate --until ... --budget-usd X``: the examinees' prices and what their answers cost.

Prices come from the specs (``openai/gpt-4o?price=2.5,10``: USD per million input and output
tokens); the cost of an answer is its stored tokens at its model's price, read from the store
after each round and fed to :class:`lvlmbench.budget.Spend`, which decides how far the next
round may go (see :mod:`lvlmbench.budget.money` for what the cap guarantees).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lvlmbench.budget import Spend
from lvlmbench.models import model_identity, model_price
from lvlmbench.store import Store, iter_benchmark_responses
from lvlmbench.types import Status, Usage
from lvlmbench.workflows._errors import InvalidOptions

__all__ = ["Meter", "check_budget_usd", "meter_for", "money_line", "require_prices", "usd"]

Price = tuple[float, float]
"""USD per million input and output tokens."""


def usd(amount: float) -> str:
    """An amount of US dollars as a run report shows it: cents of a cent below $10."""
    return f"${amount:.4f}" if abs(amount) < 10 else f"${amount:,.2f}"


def check_budget_usd(budget_usd: float | None) -> None:
    """InvalidOptions for a ``--budget-usd`` that is not a positive amount."""
    if budget_usd is not None and not (math.isfinite(budget_usd) and budget_usd > 0):
        raise InvalidOptions(f"--budget-usd {budget_usd}: expected an amount of US dollars above 0")


def require_prices(specs: Sequence[str]) -> None:
    """InvalidOptions naming the first examinee spec without a ``price=IN,OUT`` (a money cap must
    know what every call it runs costs)."""
    for spec in specs:
        if model_price(spec) is None:
            raise InvalidOptions(
                f"--budget-usd: --model {spec!r} has no price; give it one in the spec as "
                f"'{spec}{'&' if '?' in spec else '?'}price=IN,OUT' (USD per million input and "
                "output tokens, e.g. price=2.5,10)"
            )


def _cost(usage: Usage, price: Price) -> float:
    return (usage.input_tokens * price[0] + usage.output_tokens * price[1]) / 1e6


@dataclass
class Meter:
    """A :class:`Spend` fed from the store: the cost of the answers of each round's items."""

    store: Store
    benchmark: str
    variant: str
    prices: Mapping[str, Price]
    """Stored identity of each examinee run -> its price."""
    spend: Spend

    def observe(self, item_ids: Sequence[str]) -> None:
        """Take the cost of every stored answer (of this run's epochs) to ``item_ids``: paid in
        this round or found stored, an answer used is an answer counted."""
        wanted = set(item_ids)
        epochs = self.spend.samples_per_item
        costs: dict[str, list[float]] = {}
        for model, price in self.prices.items():
            responses = iter_benchmark_responses(
                self.store, self.benchmark, model=model, variant=self.variant
            )
            costs[model] = [
                _cost(r.usage, price)
                for r in responses
                if r.item_id in wanted and r.epoch < epochs and r.status is not Status.ERROR
            ]
        self.spend.observe(costs)


def meter_for(
    store: Store,
    benchmark: str,
    specs: Sequence[str],
    *,
    variant: str,
    epochs: int,
    budget_usd: float | None,
) -> Meter | None:
    """The meter of a budgeted run of ``specs`` (the examinees it runs): None when some has no
    price (then there is no ``--budget-usd`` either: :func:`require_prices` refused it)."""
    prices = {model_identity(spec): model_price(spec) for spec in specs}
    known = {model: price for model, price in prices.items() if price is not None}
    if not specs or len(known) != len(prices):
        return None
    spend = Spend(list(known), budget_usd, epochs)
    return Meter(store, benchmark, variant, known, spend)


def money_line(spend: Spend, paid_usd: float, pool: int, used: int) -> str:
    """The report's money line: the answers used against the cap, what this run paid, and the
    full run's estimated cost."""
    cap = f" of a cap of {usd(spend.cap_usd)}" if spend.cap_usd is not None else ""
    full = spend.full_estimate_usd(pool, used)
    estimate = (
        f"the full run ({pool} items) would cost about {usd(full)} (estimate: "
        f"{usd(spend.item_usd(dearest=False))} per item, the mean of the items used)"
        if full is not None
        else "no answer yet to estimate the full run's cost from"
    )
    return (
        f"money: {usd(spend.used_usd)} for the answers used{cap} ({usd(paid_usd)} paid by this "
        f"run: stored and cached answers cost nothing); {estimate}"
    )
