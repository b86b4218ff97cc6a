"""Budgeted evaluation: items used against a full run at equal decision accuracy.

Simulates two examinees of known accuracy (B at ``--base``, A that many points better) on a
benchmark of ``--items`` items, ``--runs`` times per gap, and compares three ways to answer
"is A better than B" at α = 0.05:

- budgeted: ``evaluate --until compare:A,B`` — the anytime-valid paired test of
  :mod:`lvlmbench.budget` in doubling rounds from ``--first`` items, stopping when it claims a
  direction or cannot separate the pair within the items left;
- full run: every item asked, then one paired z-test (a single look, so its α holds);
- fixed n at equal accuracy: the fewest items (on a grid of 25) whose single paired z-test is
  right at least as often as the budgeted run — the size an oracle who knew the gap in advance
  would have picked, the fairest yardstick a sequential test can be held against (shown only
  where the budgeted run is right at least half the time).

"right" is a claim of the true direction, "wrong" a claim of the other one (the error the
stated α bounds); the rest ended without a claim. A second table ranks four models spaced
``--rank-gap`` points apart with ``--until rank``. A cluster table puts the per-item rule (every
item its own draw, items interleaved as a per-item stratified order does) beside the
cluster-aware one (whole clusters of ``--cluster-size`` drawn, one paired value per cluster) on
an independent benchmark (ICC 0) and a clustered one (``--icc``, 0.5): false claims between
two equal models (the rate α must bound) and items used, and right claims at a real gap. A
third runs AutoBench-V generation itself in rounds (``generate --until``, procedural examiner
and renderer, baseline examinees, see :mod:`budget_generation`) against building the full plan:
items generated and examiner + text-to-image calls saved at equal decision accuracy. Prints
tables and figures, asserts nothing.
Run: ``.venv/bin/python bench/bench_budget.py [--runs 200] [--items 4000] [--gaps 1 3 5 10]
[--gen-runs 3]``.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import numpy as np
from budget_generation import generation_runs
from figures import emit

from lvlmbench.budget import (
    CompareRule,
    RankRule,
    clustered_scores,
    simulate_run,
    simulated_scores,
)

ALPHA = 0.05
Z = 1.959964  # two-sided 5% for the single-look z-test


def fixed_n_right(diffs: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Share of runs (rows of ``diffs``, D = A − B per item) whose single paired z-test on the
    first n items claims A better (right) and B better (wrong), for each n in ``sizes``."""
    total = np.cumsum(diffs, axis=1)[:, sizes - 1]
    squares = np.cumsum(diffs * diffs, axis=1)[:, sizes - 1]
    mean = total / sizes
    var = np.maximum(squares / sizes - mean * mean, 1e-12) * sizes / np.maximum(sizes - 1, 1)
    z = mean / np.sqrt(var / sizes)
    return (z > Z).mean(axis=0), (z < -Z).mean(axis=0)


def compare_gap(gap: float, args: argparse.Namespace) -> dict[str, float]:
    """One gap's figures over ``args.runs`` simulated runs."""
    accuracies = {"A": args.base + gap / 100, "B": args.base}
    right = wrong = 0
    used: list[int] = []
    diffs = np.zeros((args.runs, args.items))
    for run in range(args.runs):
        scores = simulated_scores(accuracies, args.items, seed=run * 7919 + int(gap * 100))
        diffs[run] = [s["A"] - s["B"] for s in scores]  # type: ignore[operator]
        outcome = simulate_run(scores, CompareRule("A", "B", ALPHA), first=args.first)
        used.append(outcome.items_used)
        if outcome.decision.answered:
            right += outcome.decision.order[0] == "A"
            wrong += outcome.decision.order[0] == "B"
    sizes = np.arange(25, args.items + 1, 25)
    fixed_right, _ = fixed_n_right(diffs, sizes)
    full_right, full_wrong = fixed_n_right(diffs, np.array([args.items]))
    seq_right = right / args.runs
    reaching = np.nonzero(fixed_right >= seq_right)[0]
    # Below one right decision in two, "equal accuracy" would match the z-test's chance claims.
    equal_n = float(sizes[reaching[0]]) if len(reaching) and seq_right >= 0.5 else math.nan
    return {
        "gap": gap,
        "right": seq_right,
        "wrong": wrong / args.runs,
        "used": float(np.mean(used)),
        "full_right": float(full_right[0]),
        "full_wrong": float(full_wrong[0]),
        "equal_n": equal_n,
    }


def rank_runs(args: argparse.Namespace) -> dict[str, float]:
    """Four models ``--rank-gap`` points apart ranked with the rank rule."""
    step = args.rank_gap / 100
    accuracies = {f"m{i}": args.base + step * (3 - i) for i in range(4)}
    truth = tuple(accuracies)
    right = wrong = 0
    used = []
    for run in range(args.runs):
        scores = simulated_scores(accuracies, args.items, seed=10_000 + run)
        outcome = simulate_run(scores, RankRule(list(accuracies), ALPHA), first=args.first)
        used.append(outcome.items_used)
        if outcome.decision.answered:
            right += outcome.decision.order == truth
            wrong += outcome.decision.order != truth
    return {"right": right / args.runs, "wrong": wrong / args.runs, "used": float(np.mean(used))}


def cluster_rules(gap: float, icc: float, args: argparse.Namespace) -> dict[str, float]:
    """Per-item and cluster-aware rules on the same simulated clustered benchmarks: the share of
    runs claiming A better / B better, and the mean items used, for each rule."""
    size = args.cluster_size
    count = args.items // size
    accuracies = {"A": args.base + gap / 100, "B": args.base}
    found = dict.fromkeys(("item_a", "item_b", "item_used", "cl_a", "cl_b", "cl_used"), 0.0)
    for run in range(args.runs):
        seed = 50_000 + run * 31 + int(gap * 100) + int(icc * 1000)
        rows = clustered_scores(accuracies, count, size, seed, icc=icc)
        items = [row for cluster in rows for row in cluster]
        interleaved = items[:]
        random.Random(seed).shuffle(interleaved)
        per_item = simulate_run(interleaved, CompareRule("A", "B", ALPHA), first=args.first)
        whole = simulate_run(
            items,
            CompareRule("A", "B", ALPHA, unit="cluster", largest=size),
            first=args.first,
            clusters=[size] * count,
        )
        for name, outcome in (("item", per_item), ("cl", whole)):
            claimed = outcome.decision.order[0] if outcome.decision.answered else None
            found[f"{name}_a"] += claimed == "A"
            found[f"{name}_b"] += claimed == "B"
            found[f"{name}_used"] += outcome.items_used
    return {key: value / args.runs for key, value in found.items()}


def cluster_table(args: argparse.Namespace, margin: float) -> None:
    """False claims and items used, per-item against cluster-aware, on independent and
    clustered benchmarks."""
    print(
        f"\nper-item vs cluster-aware stopping rule, α = {ALPHA}: {args.runs} runs, "
        f"{args.items} items in clusters of {args.cluster_size}, B at {100 * args.base:.0f}%"
    )
    header = (
        f"{'benchmark':>16} {'gap':>4} | {'per-item: claims':>16} {'wrong':>6} {'items':>6} | "
        f"{'cluster-aware: claims':>21} {'wrong':>6} {'items':>6}"
    )
    print(header)
    print("-" * len(header))
    for icc in (0.0, args.icc):
        name = "independent" if icc == 0 else f"clustered, ICC {icc:g}"
        for gap in (0.0, args.cluster_gap):
            r = cluster_rules(gap, icc, args)
            # With no gap every claim is wrong; with A ahead a claim for B is.
            item_wrong = r["item_a"] + r["item_b"] if gap == 0 else r["item_b"]
            cl_wrong = r["cl_a"] + r["cl_b"] if gap == 0 else r["cl_b"]
            print(
                f"{name:>16} {gap:>3g}p | {r['item_a'] + r['item_b']:>16.1%} {item_wrong:>6.1%} "
                f"{r['item_used']:>6.0f} | {r['cl_a'] + r['cl_b']:>21.1%} {cl_wrong:>6.1%} "
                f"{r['cl_used']:>6.0f}"
            )
            if gap == 0:
                note = f"per-item rule {item_wrong:.1%} on the same runs"
                emit(
                    "budget",
                    f"false claims, equal models, {name}, cluster-aware",
                    cl_wrong,
                    "share",
                    f"≤ α + {margin:.3f}",
                    cl_wrong <= ALPHA + margin,
                    note,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--items", type=int, default=4000, help="items in the full benchmark")
    parser.add_argument("--base", type=float, default=0.6, help="accuracy of the weaker model")
    parser.add_argument("--gaps", type=float, nargs="*", default=[1, 3, 5, 10], help="points")
    parser.add_argument("--first", type=int, default=50, help="items in the first round")
    parser.add_argument("--rank-gap", type=float, default=5.0, help="points between ranks")
    parser.add_argument("--cluster-size", type=int, default=10, help="items per cluster")
    parser.add_argument("--icc", type=float, default=0.5, help="intra-cluster correlation")
    parser.add_argument("--cluster-gap", type=float, default=10.0, help="points, cluster table")
    parser.add_argument("--gen-runs", type=int, default=3, help="generation seeds (0: skip)")
    parser.add_argument("--gen-per-aspect", type=int, default=4, help="generation plan's ω")
    parser.add_argument("--gen-first", type=int, default=20, help="generation's first round")
    args = parser.parse_args()
    started = time.perf_counter()
    margin = 3 * math.sqrt(ALPHA * (1 - ALPHA) / args.runs)
    print(
        f"is A better than B, α = {ALPHA}: {args.runs} simulated runs per gap, B at "
        f"{100 * args.base:.0f}%, full run = {args.items} items"
    )
    header = (
        f"{'gap':>5} | {'budgeted right':>14} {'wrong':>6} {'items':>7} {'of full':>7} | "
        f"{'full right':>10} {'wrong':>6} | {'fixed n, equal acc.':>19} {'budgeted/fixed':>14}"
    )
    print(header)
    print("-" * len(header))
    for gap in args.gaps:
        r = compare_gap(gap, args)
        ratio = r["used"] / r["equal_n"] if r["equal_n"] == r["equal_n"] else math.nan
        equal = f"{r['equal_n']:.0f}" if r["equal_n"] == r["equal_n"] else "—"
        print(
            f"{gap:>4g}p | {r['right']:>14.1%} {r['wrong']:>6.1%} {r['used']:>7.0f} "
            f"{r['used'] / args.items:>7.1%} | {r['full_right']:>10.1%} {r['full_wrong']:>6.1%} | "
            f"{equal:>19} {ratio:>14.2f}"
        )
        note = (
            f"right {r['right']:.1%} (full run {r['full_right']:.1%}); fixed n at equal "
            f"accuracy {equal}"
        )
        emit(
            "budget",
            f"items used, gap {gap:g} pts",
            r["used"] / args.items,
            "of full run",
            "< 1",
            r["used"] < args.items,
            note,
        )
        emit(
            "budget",
            f"wrong decisions, gap {gap:g} pts",
            r["wrong"],
            "share",
            f"≤ α + {margin:.3f}",
            r["wrong"] <= ALPHA + margin,
        )
    r = rank_runs(args)
    print(
        f"\nrank 4 models {args.rank_gap:g} points apart: right {r['right']:.1%}, wrong "
        f"{r['wrong']:.1%}, items {r['used']:.0f} of {args.items} ({r['used'] / args.items:.1%})"
    )
    emit(
        "budget",
        f"rank 4 models {args.rank_gap:g} pts apart, items used",
        r["used"] / args.items,
        "of full run",
        "< 1",
        r["used"] < args.items,
        f"right {r['right']:.1%}, wrong {r['wrong']:.1%}",
    )
    emit("budget", "rank, wrong rankings", r["wrong"], "share", "≤ α", r["wrong"] <= ALPHA + margin)
    cluster_table(args, margin)
    if args.gen_runs:
        generation_table(args)
    print(f"({time.perf_counter() - started:.1f} s)")


def generation_table(args: argparse.Namespace) -> None:
    """Budgeted generation against the full plan, on real procedural runs."""
    planned = 4 * 6 * 3 * args.gen_per_aspect
    print(
        f"\ngeneration in rounds (generate --until compare, first round {args.gen_first} units) "
        f"against the full plan ({planned} units), {args.gen_runs} seeds, procedural examiner"
    )
    header = (
        f"{'pair':>17} | {'right':>6} {'full':>6} | {'items':>6} {'full':>6} | "
        f"{'exam.+img calls':>15} {'full':>6} {'saved':>6} | {'full-plan estimate off by':>25}"
    )
    print(header)
    print("-" * len(header))
    for name, r in generation_runs(args.gen_runs, args.gen_per_aspect, args.gen_first).items():
        saved = 1 - r["calls"] / r["full_calls"]
        print(
            f"{name:>17} | {r['right']:>6.0%} {r['full_right']:>6.0%} | {r['items']:>6.0f} "
            f"{r['full_items']:>6.0f} | {r['calls']:>15.0f} {r['full_calls']:>6.0f} "
            f"{saved:>6.0%} | {r['estimate_error']:>25.1%}"
        )
        emit(
            "budget",
            f"generation {name}, examiner + image calls saved",
            saved,
            "of the full plan",
            "> 0 at equal accuracy",
            saved > 0 and r["right"] >= r["full_right"],
            f"right {r['right']:.0%} (full plan {r['full_right']:.0%}); items {r['items']:.0f} "
            f"of {r['full_items']:.0f}",
        )


if __name__ == "__main__":
    main()
