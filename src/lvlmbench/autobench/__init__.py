"""AutoBench-V: on-demand benchmarks for a capability, built in resumable stages."""

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
    "BalanceTarget",
    "ChoiceDraft",
    "DraftLike",
    "balance_positions",
    "letter_counts",
]
