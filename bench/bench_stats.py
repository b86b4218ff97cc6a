"""The statistics layer proven by simulation: coverage and error rates before and after.

Simulated benchmarks with a known truth, 30 clusters of 10 items and an intra-cluster
correlation of 0.5 (lvlmbench.stats.simulate). "Before" is what lvlmbench printed until now: a
Wilson interval over items as if each were independent, and (for a comparison) two models'
figures side by side, read here as an unpaired two-proportion z-test over items. "After" is
lvlmbench.stats: the clustered t interval, the paired cluster bootstrap, Holm, rank intervals
and PPI++. Targets are the issue's: coverage 93–97 %, false positives 4–6 %, family-wise error
≤ 5 %, PPI coverage ≥ 93 % and narrower than human-only; PPI on clustered items (40 fine
aspects × 50, intra-cluster correlation 0.5, 100 labels), before with the item-level interval
and after with the cluster-robust one.
Run: ``.venv/bin/python bench/bench_stats.py [--datasets 2000]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from figures import emit

from lvlmbench.stats import (
    adjust_p_values,
    clustered_mean,
    mean_interval,
    paired_difference,
    ppi_mean,
    rank_intervals,
)
from lvlmbench.stats.simulate import (
    SimulatedBenchmark,
    simulate_benchmark,
    simulate_clustered_judged,
    simulate_judged,
)

BENCH = "stats"


def _pairs(bench: SimulatedBenchmark, m: int, n: int) -> tuple[dict[str, float], ...]:
    ids = [str(i) for i in range(bench.scores.shape[1])]
    a = dict(zip(ids, bench.scores[m].tolist(), strict=True))
    b = dict(zip(ids, bench.scores[n].tolist(), strict=True))
    return a, b, dict(zip(ids, bench.clusters.tolist(), strict=True))


def _unpaired_z(a: np.ndarray, b: np.ndarray) -> float:
    pooled = (a.sum() + b.sum()) / (a.size + b.size)
    se = math.sqrt(pooled * (1 - pooled) * (1 / a.size + 1 / b.size)) or 1.0
    return math.erfc(abs(a.mean() - b.mean()) / se / math.sqrt(2))


def coverage(rng: np.random.Generator, datasets: int) -> tuple[float, float]:
    wilson = clustered = 0
    for _ in range(datasets):
        bench = simulate_benchmark(rng)
        truth, scores = bench.truth[0], bench.scores[0]
        before = mean_interval(scores)
        after = clustered_mean(scores, bench.clusters.tolist(), cluster="cluster")
        wilson += before.low <= truth <= before.high
        clustered += after.low <= truth <= after.high
    return wilson / datasets, clustered / datasets


def paired_rates(
    rng: np.random.Generator, datasets: int, difference: float
) -> tuple[float, float, float]:
    before = after = analytic = 0
    for seed in range(datasets):
        bench = simulate_benchmark(rng, differences=(difference, 0.0))
        a, b, clusters = _pairs(bench, 0, 1)
        before += _unpaired_z(bench.scores[0], bench.scores[1]) < 0.05
        after += paired_difference(a, b, clusters, resamples=1000, seed=seed).p_value < 0.05
        analytic += paired_difference(a, b, clusters, test="t").p_value < 0.05
    return before / datasets, after / datasets, analytic / datasets


def family_wise(rng: np.random.Generator, datasets: int) -> tuple[float, float]:
    raw = holm = 0
    for seed in range(datasets):
        bench = simulate_benchmark(rng, differences=(0.0,) * 11)
        p = []
        for m in range(1, 11):
            a, b, clusters = _pairs(bench, m, 0)
            p.append(paired_difference(a, b, clusters, resamples=1000, seed=seed).p_value)
        raw += min(p) < 0.05
        holm += min(adjust_p_values(p, "holm")) < 0.05
    return raw / datasets, holm / datasets


def rank_coverage(rng: np.random.Generator, datasets: int) -> float:
    shifts = (0.0, 0.03, 0.06, 0.12, 0.2)
    truth_rank = {f"m{i}": len(shifts) - i for i in range(len(shifts))}
    covered = 0
    for seed in range(datasets):
        bench = simulate_benchmark(rng, accuracy=0.5, differences=shifts)
        names = list(truth_rank)
        got = rank_intervals(names, bench.scores, bench.clusters.tolist(), seed=seed)
        covered += sum(r.low <= truth_rank[r.model] <= r.high for r in got)
    return covered / (datasets * len(shifts))


def ppi(rng: np.random.Generator, datasets: int) -> tuple[float, float, float, float]:
    covered = human_covered = 0
    ppi_width = human_width = 0.0
    for _ in range(datasets):
        got = ppi_mean(*simulate_judged(rng, items=2000, labels=100))
        covered += got.corrected.low <= 0.6 <= got.corrected.high
        human_covered += got.human_only.low <= 0.6 <= got.human_only.high
        ppi_width += got.corrected.high - got.corrected.low
        human_width += got.human_only.high - got.human_only.low
    return (
        covered / datasets,
        human_covered / datasets,
        ppi_width / datasets,
        human_width / datasets,
    )


def clustered_ppi(rng: np.random.Generator, datasets: int) -> tuple[float, float]:
    """Coverage of PPI++ on clustered items (40 x 50, ICC 0.5, 100 labels): the item-level
    interval, then the cluster-robust one."""
    item_level = clustered = 0
    for _ in range(datasets):
        s = simulate_clustered_judged(rng)
        args = (s.human, s.judge_labelled, s.judge_unlabelled)
        naive = ppi_mean(*args).corrected
        robust = ppi_mean(*args, clusters=(s.clusters_labelled, s.clusters_unlabelled)).corrected
        item_level += naive.low <= 0.6 <= naive.high
        clustered += robust.low <= 0.6 <= robust.high
    return item_level / datasets, clustered / datasets


def _show(figure: str, value: float, target: str, ok: bool | None, note: str = "") -> None:
    print(f"  {figure:<52} {value:7.3f}   target {target}{'  ' + note if note else ''}")
    emit(BENCH, figure, value, "share", target, ok, note)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2027)
    args = parser.parse_args()
    n, rng, started = args.datasets, np.random.default_rng(args.seed), time.perf_counter()
    print(f"{n} simulated benchmarks: 30 clusters x 10 items, intra-cluster correlation 0.5")
    wilson, clustered = coverage(rng, n)
    _show("coverage of 95% intervals, before (Wilson/items)", wilson, "93-97%", None)
    _show(
        "coverage of 95% intervals, after (clustered t)",
        clustered,
        "93-97%",
        0.93 <= clustered <= 0.97,
    )
    before, after, analytic = paired_rates(rng, n, 0.0)
    _show("false positives at a=0.05, before (unpaired z)", before, "4-6%", None)
    _show(
        "false positives at a=0.05, after (paired bootstrap)", after, "4-6%", 0.04 <= after <= 0.06
    )
    _show(
        "false positives at a=0.05, after (clustered t)", analytic, "4-6%", 0.04 <= analytic <= 0.06
    )
    before, after, analytic = paired_rates(rng, n, 0.03)
    _show("power at a true 3-point difference, before", before, "-", None)
    _show("power at a true 3-point difference, after (bootstrap)", after, "-", None)
    _show("power at a true 3-point difference, after (clustered t)", analytic, "-", None)
    raw, holm = family_wise(rng, n)
    _show("family-wise error, 10 equal models, unadjusted", raw, "<=5%", None)
    _show("family-wise error, 10 equal models, Holm", holm, "<=5%", holm <= 0.05)
    ranks = rank_coverage(rng, n)
    _show("rank-interval coverage of the true rank", ranks, ">=95%", ranks >= 0.95)
    ppi_cov, human_cov, ppi_w, human_w = ppi(rng, n)
    _show("PPI++ coverage (100 human, 2,000 judge labels)", ppi_cov, ">=93%", ppi_cov >= 0.93)
    _show("human-only coverage (100 labels)", human_cov, "93-97%", None)
    _show("PPI++ width / human-only width", ppi_w / human_w, "<1", ppi_w < human_w)
    item_level, robust = clustered_ppi(rng, n)
    _show("PPI++ coverage, 40 clusters x 50, before (items)", item_level, ">=93%", None)
    _show("PPI++ coverage, 40 clusters x 50, after (clustered)", robust, ">=93%", robust >= 0.93)
    print(f"  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
