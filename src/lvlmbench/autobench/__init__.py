"""AutoBench-V: on-demand benchmarks for a capability, built in resumable stages."""

from lvlmbench.autobench._backend import AspectPlan, ExaminerBackend
from lvlmbench.autobench.balance import (
    LETTERS,
    BalanceTarget,
    ChoiceDraft,
    DraftLike,
    balance_positions,
    letter_counts,
)

__all__ = [
    "LETTERS",
    "AspectPlan",
    "BalanceTarget",
    "ChoiceDraft",
    "DraftLike",
    "ExaminerBackend",
    "balance_positions",
    "letter_counts",
]
