"""What a budgeted evaluation did and decided, and the decision as ``--json`` prints it (the
records of :mod:`._rounds`, kept apart from its round loop)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lvlmbench.budget import Decision, Spend
from lvlmbench.runner import EvalSummary

__all__ = ["BudgetedRun", "decision_json"]


def decision_json(question: str | None, decision: Decision) -> dict[str, Any]:
    """The question and the decision with its confidence, as ``--json`` prints them."""
    return {
        "question": question,
        "answered": decision.answered,
        "decision": decision.text,
        "order": list(decision.order),
        "unresolved": [list(p) for p in decision.unresolved],
        "alpha": decision.alpha,
        "p_value": decision.p_value,
        "cluster": decision.unit,
        "clusters_used": decision.clusters,
    }


@dataclass
class BudgetedRun:
    """What a budgeted evaluation did and decided."""

    question: str
    decision: Decision
    used: list[str]
    """Item ids asked, in draw order."""
    pool: int
    """Items a full run would ask."""
    calls_per_item: int
    budget: int | None
    rounds: int
    summaries: list[EvalSummary] = field(default_factory=list)
    mix_gap: float = 0.0
    """Largest difference between a stratum's share among the items used and in the pool."""
    money: Spend | None = None
    """What the answers used cost, when every examinee run has a price."""

    @property
    def calls(self) -> int:
        return len(self.used) * self.calls_per_item

    @property
    def paid_usd(self) -> float:
        """What this run's requests cost (stored and cached answers cost nothing)."""
        return sum(s.cost_usd or 0.0 for s in self.summaries)

    @property
    def saved(self) -> int:
        """Examinee calls a full run would have made beyond this one."""
        return (self.pool - len(self.used)) * self.calls_per_item

    def as_json(self) -> dict[str, Any]:
        return {
            **decision_json(self.question, self.decision),
            "items_used": len(self.used),
            "items_full": self.pool,
            "calls": self.calls,
            "calls_full": self.pool * self.calls_per_item,
            "calls_saved": self.saved,
            "budget": self.budget,
            "rounds": self.rounds,
            "requests": sum(s.requests for s in self.summaries),
            "strata_share_gap": self.mix_gap,
            "money": None if self.money is None else self._money_json(self.money),
        }

    def _money_json(self, spend: Spend) -> dict[str, Any]:
        return {
            "cap_usd": spend.cap_usd,
            "used_usd": spend.used_usd,
            "paid_usd": self.paid_usd,
            "full_estimate_usd": spend.full_estimate_usd(self.pool, len(self.used)),
            "item_mean_usd": spend.item_usd(dearest=False) if spend.known else None,
        }
