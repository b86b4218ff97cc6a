"""Simulated benchmarks with a known truth and clustered items, to prove the intervals.

Each cluster draws its own success probability from a Beta distribution with mean ``accuracy``
and intra-cluster correlation ``icc`` (Beta(μ·k, (1−μ)·k) with k = (1 − icc)/icc: two items of
a cluster then correlate by exactly ``icc``). Models compared on the same items share the
cluster's difficulty and an item's own difficulty, so their answers correlate as real models'
do; ``differences`` shift a model's probability on every item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lvlmbench.stats.estimate import FloatArray, IntArray

__all__ = [
    "ClusteredJudged",
    "SimulatedBenchmark",
    "simulate_benchmark",
    "simulate_clustered_judged",
    "simulate_judged",
]


@dataclass(frozen=True)
class SimulatedBenchmark:
    scores: FloatArray
    """models × items, 0 or 1."""
    clusters: IntArray
    """Each item's cluster."""
    truth: FloatArray
    """Each model's expected accuracy over the population of clusters (``accuracy`` plus its
    difference; exact while no shifted probability is clipped at 0 or 1)."""


def simulate_benchmark(
    rng: np.random.Generator,
    *,
    clusters: int = 30,
    per_cluster: int = 10,
    accuracy: float = 0.6,
    icc: float = 0.5,
    differences: tuple[float, ...] = (0.0,),
    shared_difficulty: float = 0.5,
) -> SimulatedBenchmark:
    """One benchmark: ``len(differences)`` models answering ``clusters × per_cluster`` items."""
    k = (1.0 - icc) / icc
    cluster_p = rng.beta(accuracy * k, (1.0 - accuracy) * k, size=clusters)
    item_p = np.repeat(cluster_p, per_cluster)
    # Each model's draw on an item is the item's own (shared) draw with probability
    # ``shared_difficulty``, else its own: the answers correlate, each stays Bernoulli(p).
    shared = rng.random(item_p.size)
    own = rng.random((len(differences), item_p.size))
    draw = np.where(rng.random(own.shape) < shared_difficulty, shared[None, :], own)
    shifted = np.clip(item_p[None, :] + np.asarray(differences)[:, None], 0.0, 1.0)
    scores = (draw < shifted).astype(np.float64)
    truth = accuracy + np.asarray(differences, dtype=np.float64)
    return SimulatedBenchmark(scores, np.repeat(np.arange(clusters), per_cluster), truth)


def simulate_judged(
    rng: np.random.Generator,
    *,
    items: int = 2000,
    labels: int = 100,
    rate: float = 0.6,
    agreement: float = 0.85,
    judge_bias: float = 0.4,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Human verdicts on ``labels`` items and a judge's on all: (human, judge on those,
    judge on the rest). The judge agrees with people ``agreement`` of the time and says yes
    ``judge_bias`` more than half the time otherwise, so its raw figure is biased."""
    human = (rng.random(items) < rate).astype(np.float64)
    agrees = rng.random(items) < agreement
    flip_to_yes = rng.random(items) < 0.5 + judge_bias
    judge = np.where(agrees, human, flip_to_yes.astype(np.float64))
    labelled = np.zeros(items, dtype=bool)
    labelled[rng.choice(items, labels, replace=False)] = True
    return human[labelled], judge[labelled], judge[~labelled]


@dataclass(frozen=True)
class ClusteredJudged:
    """People's verdicts on a few items and a judge's on all, items clustered."""

    human: FloatArray
    """On the labelled items."""
    judge_labelled: FloatArray
    judge_unlabelled: FloatArray
    clusters_labelled: list[int]
    clusters_unlabelled: list[int]


def simulate_clustered_judged(
    rng: np.random.Generator,
    *,
    clusters: int = 40,
    per_cluster: int = 50,
    labels: int = 100,
    rate: float = 0.6,
    icc: float = 0.5,
    agreement: float = 0.85,
    judge_bias: float = 0.4,
) -> ClusteredJudged:
    """As :func:`simulate_judged`, over ``clusters × per_cluster`` items whose human
    verdicts correlate by ``icc`` within a cluster (the truth is still ``rate``), and whose
    judge errors lean the same way within a cluster: a cluster's items are judged alike."""
    k = (1.0 - icc) / icc
    cluster_p = rng.beta(rate * k, (1.0 - rate) * k, size=clusters)
    yes_when_wrong = rng.beta((0.5 + judge_bias) * k, (0.5 - judge_bias) * k, size=clusters)
    codes = np.repeat(np.arange(clusters), per_cluster)
    human = (rng.random(codes.size) < cluster_p[codes]).astype(np.float64)
    agrees = rng.random(codes.size) < agreement
    wrong_says_yes = rng.random(codes.size) < yes_when_wrong[codes]
    judge = np.where(agrees, human, wrong_says_yes.astype(np.float64))
    labelled = np.zeros(codes.size, dtype=bool)
    labelled[rng.choice(codes.size, labels, replace=False)] = True
    return ClusteredJudged(
        human[labelled],
        judge[labelled],
        judge[~labelled],
        codes[labelled].tolist(),
        codes[~labelled].tolist(),
    )
