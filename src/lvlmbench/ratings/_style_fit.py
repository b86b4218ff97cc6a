"""Numerics of the style-controlled Bradley–Terry fit (see :mod:`lvlmbench.ratings.style`).

The model is a logistic regression: for a row with first player ``a``, second ``b`` and
standardised style differences ``d``, ``logit P(a wins) = θ_a − θ_b + β·d``. Parameters are
``φ = [θ (n players), β (k features)]`` and a row's design vector is ``e_a − e_b`` followed by
``d``. Ties score half a win for each side (``y = 0.5``), as in :mod:`.bradley_terry`.

Rows are aggregated: identical (first, second, score, differences) rows become one row with a
count, so five crowd votes on the same pair cost one row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

__all__ = ["Design", "bootstrap_chord", "bootstrap_exact", "fit", "poisson_weights"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

_POISSON_TABLE = np.repeat(np.arange(6, dtype=np.uint8), [94, 94, 47, 16, 4, 1])
"""Poisson(1) discretised to 256 equally likely bytes: P(k) rounded to k/256 for k = 0..5
(mean 257/256, variance 1.004; the 6e-4 of mass at 6 and more is folded into 5). A byte draw
and a table lookup cost a tenth of ``Generator.poisson``."""
_CHUNK_CELLS = 4_000_000
"""Bootstrap rounds are processed in batches of about this many (round, row) cells (16 MB per
float32 matrix), which bounds memory whatever the number of matches."""


@dataclass(frozen=True)
class Design:
    """Aggregated rows of the regression (``first != second`` on every row)."""

    players: list[str]
    first: IntArray
    second: IntArray
    score: FloatArray  # 0, 0.5 or 1 for ``first``
    style: FloatArray  # (rows, k) standardised differences, first minus second
    count: FloatArray  # how many matches each row stands for

    @property
    def size(self) -> int:
        return len(self.players) + int(self.style.shape[1])

    def matrix(self) -> FloatArray:
        """The dense design matrix ``(rows, n + k)``."""
        rows, n = self.first.size, len(self.players)
        x = np.zeros((rows, self.size))
        x[np.arange(rows), self.first] = 1.0
        x[np.arange(rows), self.second] = -1.0
        x[:, n:] = self.style
        return x


def _penalty(design: Design, l2: float) -> FloatArray:
    """Diagonal of the ridge: ``l2`` on every parameter (θ as the raw fit penalises it, and β
    so that sparse data where a style difference separates wins from losses stays finite)."""
    return np.full(design.size, l2)


def _eta(design: Design, phi: FloatArray) -> FloatArray:
    """Linear predictor ``θ_first − θ_second + β·d`` per row (no dense design matrix)."""
    n = len(design.players)
    eta: FloatArray = phi[design.first] - phi[design.second] + design.style @ phi[n:]
    return eta


def _objective(design: Design, w: FloatArray, phi: FloatArray, ridge: FloatArray) -> float:
    eta, y = _eta(design, phi), design.score
    loglik = -(w * (y * np.logaddexp(0.0, -eta) + (1.0 - y) * np.logaddexp(0.0, eta))).sum()
    return float(loglik - 0.5 * (ridge * phi * phi).sum())


def _gradient(design: Design, wr: FloatArray, ridge: FloatArray, phi: FloatArray) -> FloatArray:
    """``Xᵀ(w·(y − p)) − ridge·φ`` from the weighted residuals ``wr``, by scatter-adds."""
    n = len(design.players)
    by_player = np.bincount(design.first, wr, n) - np.bincount(design.second, wr, n)
    gradient: FloatArray = np.concatenate([by_player, design.style.T @ wr]) - ridge * phi
    return gradient


def _hessian(design: Design, v: FloatArray, ridge: FloatArray) -> FloatArray:
    """Minus the Hessian ``Xᵀ diag(v) X + ridge`` built block by block (the player block is a
    weighted graph Laplacian), with ``11ᵀ/n`` on the θ block to fix the free overall shift
    (θ is kept centred; only differences enter the likelihood) and a relative jitter so that a
    style column collinear with the players' indicators gives a finite answer, not an error."""
    n, first, second, style = len(design.players), design.first, design.second, design.style
    pair = np.bincount(first * n + second, v, n * n).reshape(n, n)
    h = np.zeros((design.size, design.size))
    h[:n, :n] = np.diag(pair.sum(axis=1) + pair.sum(axis=0)) - pair - pair.T + 1.0 / n
    if style.shape[1]:
        vs = style * v[:, None]
        cross = np.stack(
            [np.bincount(first, c, n) - np.bincount(second, c, n) for c in vs.T], axis=1
        )
        h[:n, n:] = cross
        h[n:, :n] = cross.T
        h[n:, n:] = style.T @ vs
    h += np.diag(ridge)
    h += np.eye(design.size) * (1e-10 * max(1.0, float(np.trace(h))))
    return h


def fit(
    design: Design,
    weights: FloatArray,
    l2: float,
    start: FloatArray | None = None,
    max_iter: int = 100,
) -> FloatArray:
    """Penalised maximum likelihood ``φ`` for one weighting of the rows, by damped Newton
    steps (halved while they lower the objective, so the iteration is monotone)."""
    n = len(design.players)
    ridge = _penalty(design, l2)
    phi = np.zeros(design.size) if start is None else start.copy()
    current = _objective(design, weights, phi, ridge)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-_eta(design, phi)))
        gradient = _gradient(design, weights * (design.score - p), ridge, phi)
        step = np.linalg.solve(_hessian(design, weights * p * (1.0 - p), ridge), gradient)
        step[:n] -= step[:n].mean()
        length = 1.0
        for _halving in range(40):
            trial = phi + length * step
            value = _objective(design, weights, trial, ridge)
            if value >= current - 1e-12 * abs(current):
                break
            length /= 2.0
        phi, current = trial, value
        if np.abs(length * step).max() < 1e-10:
            break
    phi[:n] -= phi[:n].mean()
    return phi


def poisson_weights(
    rng: np.random.Generator, count: FloatArray, rounds: int
) -> npt.NDArray[np.float32]:
    """Poisson-bootstrap weights ``(rounds, rows)`` as float32: a row standing for ``c``
    matches gets Poisson(c) (exact draws), a single match the discretised Poisson(1)."""
    drawn = _POISSON_TABLE[rng.integers(0, 256, (rounds, count.size), dtype=np.uint8)]
    weights = drawn.astype(np.float32)
    multiple = np.flatnonzero(count > 1)
    if multiple.size:
        weights[:, multiple] = rng.poisson(count[multiple], (rounds, multiple.size))
    return weights


@dataclass(frozen=True)
class _Chord:
    """What every bootstrap batch shares: the float32 design, the per-row gradient at the
    full-data fit and the inverse full-data Hessian."""

    design: Design
    point: FloatArray
    ridge: FloatArray
    inverse: FloatArray
    x: npt.NDArray[np.float32]
    xt: npt.NDArray[np.float32]
    y: npt.NDArray[np.float32]
    scores: npt.NDArray[np.float32]
    max_steps: int
    tolerance: float

    def batch(self, rng: np.random.Generator, rounds: int) -> tuple[FloatArray, float]:
        """Estimates ``(rounds, n + k)`` for one batch and its estimated largest gap to the
        exact refits."""
        n, total = len(self.design.players), float(self.design.count.sum())
        weights = poisson_weights(rng, self.design.count, rounds)
        mass = weights.sum(axis=1).astype(np.float64)[:, None] / total
        mass[mass == 0] = 1.0  # a round that drew no match: its gradient is 0 (or the ridge's)
        phi = np.repeat(self.point[None, :], rounds, axis=0)
        gradient = (weights @ self.scores).astype(np.float64) - self.ridge * phi
        previous = remaining = 0.0
        for step_number in range(self.max_steps):
            step = gradient @ self.inverse / mass
            step[:, :n] -= step[:, :n].mean(axis=1, keepdims=True)
            phi += step
            size = float(np.abs(step).max())
            # The next step's size if it contracts as the last one did (no guess after one).
            remaining = size * (min(1.0, size / previous) if previous > 0 else 1.0)
            previous = size
            if remaining < self.tolerance or step_number == self.max_steps - 1:
                break
            gradient = self._gradient(weights, phi)
        return phi, remaining

    def _gradient(self, weights: npt.NDArray[np.float32], phi: FloatArray) -> FloatArray:
        """Every round's gradient at its own ``phi``, in place on one (rounds, rows) buffer."""
        buffer = phi.astype(np.float32) @ self.xt  # η
        np.negative(buffer, out=buffer)
        with np.errstate(over="ignore"):  # exp(large) = inf gives p = 0, which is right
            np.exp(buffer, out=buffer)
        buffer += 1.0
        np.reciprocal(buffer, out=buffer)  # p
        np.subtract(self.y, buffer, out=buffer)
        buffer *= weights
        gradient: FloatArray = (buffer @ self.x).astype(np.float64) - self.ridge * phi
        return gradient


def _batches(design: Design, rounds: int, seed: int) -> list[tuple[np.random.Generator, int]]:
    """The rounds split into batches, each with its own generator spawned from ``seed``, so
    the draws do not depend on how (or in how many threads) the batches run."""
    chunk = max(1, _CHUNK_CELLS // max(1, design.first.size))
    sizes = [min(chunk, rounds - begin) for begin in range(0, rounds, chunk)]
    streams = np.random.SeedSequence(seed).spawn(len(sizes))
    return [(np.random.default_rng(s), size) for s, size in zip(streams, sizes, strict=True)]


def bootstrap_chord(
    design: Design,
    point: FloatArray,
    rounds: int,
    seed: int,
    l2: float,
    max_steps: int = 4,
    tolerance: float = 1e-4,
) -> tuple[FloatArray, float]:
    """Bootstrap estimates ``(rounds, n + k)`` and the largest estimated gap (log-odds) between
    a round's estimate and its exact refit.

    Every round starts at the full-data fit and takes chord-Newton steps: the gradient is that
    of the round's own weighted likelihood, the curvature is the full-data Hessian scaled by
    the round's total weight. The first step alone is the linearised (one-step) bootstrap; each
    further step shrinks the distance to the exact refit by a factor of about ``1/√matches``.
    A batch stops once its next step, extrapolated from the last two, would be below
    ``tolerance`` for every round, or after ``max_steps``. Batches run one after another and
    the matrix products on one BLAS thread: on a busy two-core machine OpenBLAS's second thread
    spins waiting for the first and made the same work 10 times slower (1.7 s became 15-25 s
    at 50 models), and a second Python thread only added contention.
    """
    ridge = _penalty(design, l2)
    p = 1.0 / (1.0 + np.exp(-_eta(design, point)))
    x = design.matrix().astype(np.float32)
    chord = _Chord(
        design=design,
        point=point,
        ridge=ridge,
        inverse=np.linalg.inv(_hessian(design, design.count * p * (1.0 - p), ridge)).astype(
            np.float64
        ),
        x=x,
        xt=np.ascontiguousarray(x.T),
        y=design.score.astype(np.float32),
        scores=x * (design.score - p).astype(np.float32)[:, None],
        max_steps=max_steps,
        tolerance=tolerance,
    )
    with threadpool_limits(limits=1, user_api="blas"):
        done = [chord.batch(rng, size) for rng, size in _batches(design, rounds, seed)]
    return np.concatenate([phi for phi, _ in done]), max(gap for _, gap in done)


def bootstrap_exact(
    design: Design, point: FloatArray, rounds: int, seed: int, l2: float
) -> FloatArray:
    """The same resamples as :func:`bootstrap_chord` (same seed, same weights), each refitted
    to convergence with its own Hessian: the reference the chord steps are checked against."""
    samples = []
    for rng, size in _batches(design, rounds, seed):
        for row in poisson_weights(rng, design.count, size).astype(np.float64):
            samples.append(fit(design, row, l2, start=point))
    return np.array(samples)
