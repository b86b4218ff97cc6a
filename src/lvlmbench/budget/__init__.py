"""Budgeted evaluation: stratified draws in rounds and rules that stop when the question asked
("rank these models", "is A better than B") is answered, or the budget (calls, or money:
:mod:`.money`) cannot answer it.

Pure logic over item ids and scores, below the store: the runner and the CLI feed it
(``evaluate --until``), the simulations in :mod:`.simulate` test it.
"""

from lvlmbench.budget.draws import MIXED, ClusterOrder, cluster_order, facet_mix, stratified_order
from lvlmbench.budget.money import Spend
from lvlmbench.budget.rules import (
    MIN_FUTILITY_ITEMS,
    CompareRule,
    Decision,
    ItemScores,
    RankRule,
    StoppingRule,
    round_ends,
)
from lvlmbench.budget.sequential import BETS, PairedTest
from lvlmbench.budget.simulate import Outcome, clustered_scores, simulate_run, simulated_scores

__all__ = [
    "BETS",
    "MIN_FUTILITY_ITEMS",
    "MIXED",
    "ClusterOrder",
    "CompareRule",
    "Decision",
    "ItemScores",
    "Outcome",
    "PairedTest",
    "RankRule",
    "Spend",
    "StoppingRule",
    "cluster_order",
    "clustered_scores",
    "facet_mix",
    "round_ends",
    "simulate_run",
    "simulated_scores",
    "stratified_order",
]
