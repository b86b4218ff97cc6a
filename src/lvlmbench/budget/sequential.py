"""An anytime-valid test of "is A better than B" on paired per-item score differences.

Each item both models answered gives a difference D = score_A − score_B in [−1, 1] (−1, 0 or 1
for one answer each; a mean over epochs otherwise). The null "A is not better" says E[D] ≤ 0.
Where items cluster, the test is fed one value per cluster instead (its summed differences
over the largest cluster's size, still in [−1, 1]; :mod:`.rules` says why and which null that
is): the test only needs its values bounded and each one's mean, given the values before it,
at most 0 under the null.

Why a betting e-process (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
betting", 2023) and not a t-test on each round: a fixed-sample test looked at after every round
rejects a true null far more often than its α (with ten looks, about three times as often).
For a bet λ in [0, 1) the wealth K_λ(t) = Π (1 + λ D_i) is a non-negative supermartingale
whenever E[D] ≤ 0, and so is any average of such wealths; Ville's inequality then bounds the
chance that the wealth *ever* reaches 1/a by a, however often and whenever one looks, and
whatever the rule for stopping. We average over a geometric grid of bets (0.9, 0.45, … ,
0.0018): one of them is within a factor two of the best fixed bet for any effect from a fraction
of a point to tens of points, at the price of log(grid size) in the threshold. The test needs no
variance estimate and no normal approximation, is exact for any number of items, and items on
which the models agree (D = 0) leave the wealth untouched, so, like McNemar's test, it is driven
by the discordant items alone. Alternatives considered: a normal-mixture boundary (Robbins)
assumes the worst-case variance of a [−1, 1] variable and wastes most of the budget when the
models agree on most items; an asymptotic confidence sequence is only valid in the limit.

Two one-sided e-processes run side by side, "A > B" and "B > A", each at α/2, so the chance of
any wrong claim (either direction, at any look) is at most α; a claim for the wrong direction
when the models are equal or reversed is the only error this test can make. Stopping for
futility (see :meth:`PairedTest.projected_log_wealth`) only ever ends with no claim, so it
cannot raise that rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["BETS", "PairedTest"]

BETS = 0.9 * 0.5 ** np.arange(10)
"""The grid of bets the wealth is averaged over."""


def _mixture_log(log_wealth: np.ndarray) -> np.ndarray:
    """log of the mean over bets of exp(log_wealth) (bets on the last axis), without overflow."""
    top = log_wealth.max(axis=-1, keepdims=True)
    mixed = top[..., 0] + np.log(np.exp(log_wealth - top).mean(axis=-1))
    return np.asarray(mixed)


@dataclass
class PairedTest:
    """Sequential test of E[score_A − score_B] > 0 (or < 0) at level ``alpha``; feed it the
    paired differences in the draw order with :meth:`observe`."""

    alpha: float = 0.05
    n: int = 0
    total: float = 0.0
    """Sum of the differences seen."""
    squares: float = 0.0
    """Sum of their squares (the futility projection's second moment)."""
    _log_up: np.ndarray = field(default_factory=lambda: np.zeros(len(BETS)))
    _log_down: np.ndarray = field(default_factory=lambda: np.zeros(len(BETS)))
    best_up: float = 0.0
    """Largest log-wealth "A > B" ever reached (Ville bounds the supremum, so it is kept)."""
    best_down: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha}")

    @property
    def threshold(self) -> float:
        """The log-wealth a side must reach to be claimed: log(2 / α)."""
        return math.log(2 / self.alpha)

    def observe(self, diffs: Sequence[float]) -> None:
        """Take the next paired differences (each in [−1, 1]), in order."""
        if not diffs:
            return
        d = np.asarray(diffs, dtype=float)
        if np.any(np.abs(d) > 1):
            raise ValueError("paired differences must lie in [-1, 1]")
        # Cumulative log-wealth after every item, so a crossing inside the batch counts too.
        up = self._log_up + np.cumsum(np.log1p(np.outer(d, BETS)), axis=0)
        down = self._log_down + np.cumsum(np.log1p(-np.outer(d, BETS)), axis=0)
        self.best_up = max(self.best_up, float(_mixture_log(up).max()))
        self.best_down = max(self.best_down, float(_mixture_log(down).max()))
        self._log_up, self._log_down = up[-1], down[-1]
        self.n += len(d)
        self.total += float(d.sum())
        self.squares += float((d * d).sum())

    @property
    def mean(self) -> float:
        """Mean difference so far (A's accuracy minus B's on the shared items)."""
        return self.total / self.n if self.n else 0.0

    @property
    def verdict(self) -> int:
        """+1: A is better (claimed at level α), −1: B is better, 0: no claim yet."""
        if self.best_up >= self.threshold:
            return 1
        if self.best_down >= self.threshold:
            return -1
        return 0

    @property
    def p_value(self) -> float:
        """Anytime-valid two-sided p-value: 2 / (largest wealth either side ever reached),
        at most 1; a claim is made exactly when it is at most α."""
        return min(1.0, 2.0 * math.exp(-max(self.best_up, self.best_down)))

    def projected_log_wealth(self, more: int) -> float:
        """Optimistic log-wealth after ``more`` further items: the better side's wealth now plus
        the growth rate of the best bet, μ²/(2·E[D²]), with μ the observed mean difference
        raised by two standard errors. Below the threshold, even an effect that large would
        not be claimed within the items left: the pair cannot be separated within budget."""
        if self.n == 0:
            return math.inf
        second = max(self.squares / self.n, 1e-12)
        optimistic = abs(self.mean) + 2 * math.sqrt(second / self.n)
        rate = optimistic * optimistic / (2 * second)
        wealth = self._log_up if self.mean >= 0 else self._log_down
        return float(_mixture_log(wealth)) + more * rate
