"""Ratings speed and accuracy: Bradley–Terry with bootstrap intervals vs online Elo.

Simulates matches among models of known strength whose expected score is ``σ(θ_i − θ_j)`` with
a tie worth half a win (ties are likelier between close models, scaled to about ``--ties`` of all
matches), so Bradley–Terry with half-win ties is the right model and its intervals should cover
the truth about 95% of the time. It then times Bradley–Terry with bootstrap intervals and a
single pass of online Elo on the same matches, and reports how well each recovers the true
strengths (Pearson correlation and Kendall's tau-b). The target from the issue is BT with 1,000
bootstrap rounds on 100,000 matches among 50 models in under 10 s; the script prints the figures
and the ratio to that target but asserts nothing.
Run: ``.venv/bin/python bench/bench_ratings.py [--models 50] [--matches 100000] [--rounds 1000]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from figures import emit

from lvlmbench.ratings import bradley_terry_bootstrap, elo_ratings, kendall_tau
from lvlmbench.ratings.simulate import draw_matches

TARGET_S = 10.0


def simulate(
    models: int, matches: int, ties: float, seed: int
) -> tuple[dict[str, float], list[tuple[str, str, float]]]:
    """True strengths (Elo scale, mean 1000) and random-pair matches drawn from them."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.8, models)  # about ±300 Elo between the extremes
    names = [f"model-{i:02d}" for i in range(models)]
    a = rng.integers(0, models, matches)
    b = (a + rng.integers(1, models, matches)) % models
    p = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
    played = draw_matches(rng, names, a, b, p, ties)
    elo_theta = 1000.0 + 400.0 / math.log(10) * (theta - theta.mean())
    return dict(zip(names, elo_theta.tolist(), strict=True)), played


def accuracy(fitted: dict[str, float], truth: dict[str, float]) -> tuple[float, float]:
    """Pearson correlation and Kendall tau-b between fitted and true ratings."""
    names = sorted(truth)
    pearson = float(np.corrcoef([fitted[n] for n in names], [truth[n] for n in names])[0, 1])
    return pearson, kendall_tau(fitted, truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds")
    parser.add_argument("--ties", type=float, default=0.1, help="about this share are ties")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    truth, matches = simulate(args.models, args.matches, args.ties, args.seed)

    started = time.perf_counter()
    boot = bradley_terry_bootstrap(matches, rounds=args.rounds, seed=args.seed)
    bt_s = time.perf_counter() - started
    started = time.perf_counter()
    elo = elo_ratings(matches)
    elo_s = time.perf_counter() - started

    covered = sum(boot.intervals[n].low <= truth[n] <= boot.intervals[n].high for n in truth)
    width = float(np.mean([i.high - i.low for i in boot.intervals.values()]))
    bt_r, bt_tau = accuracy(boot.ratings, truth)
    elo_r, elo_tau = accuracy(elo, truth)
    tied = sum(o == 0.5 for _, _, o in matches) / len(matches)
    print(
        f"ratings benchmark: {args.models} models, {args.matches:,} matches, "
        f"{tied:.1%} ties, {args.rounds} bootstrap rounds, target BT+bootstrap < "
        f"{TARGET_S:.0f} s"
    )
    print(f"{'method':<22} {'time s':>8} {'pearson r':>10} {'kendall tau':>12}")
    print(f"{'BT + bootstrap':<22} {bt_s:>8.2f} {bt_r:>10.4f} {bt_tau:>12.4f}")
    print(f"{'online Elo (1 pass)':<22} {elo_s:>8.2f} {elo_r:>10.4f} {elo_tau:>12.4f}")
    print(f"BT+bootstrap / Elo time ratio: {bt_s / elo_s:.1f}x")
    print(f"BT+bootstrap time / target: {bt_s / TARGET_S:.2f}")
    print(
        f"BT {boot.confidence:.0%} intervals: mean width {width:.1f} Elo, "
        f"cover the true rating for {covered}/{len(truth)} models"
    )
    scale = f"{args.rounds:,} rounds, {args.matches:,} matches, {args.models} models"
    emit(
        "ratings",
        f"Bradley-Terry + bootstrap ({scale})",
        bt_s,
        "s",
        f"< {TARGET_S:.0f}",
        bt_s < TARGET_S,
        f"pearson r {bt_r:.4f}, kendall tau {bt_tau:.4f}, {covered}/{len(truth)} intervals cover",
    )
    emit(
        "ratings",
        f"online Elo, one pass ({args.matches:,} matches)",
        elo_s,
        "s",
        "—",
        None,
        f"pearson r {elo_r:.4f}, kendall tau {elo_tau:.4f}",
    )


if __name__ == "__main__":
    main()
