"""A tiny AutoBench-V store whose every interval is worked out by hand: 12 items in 6 fine
aspects (one easy and one hard item each), answered once by two imported players.

Items of one fine aspect share their source (the aspect's prompt), so they form one cluster
(:func:`lvlmbench.stats.cluster_key`). Right answers per fine aspect (easy, hard):

    fine aspect   f1    f2    f3    f4    f5    f6    easy  hard  all
    alpha-7b      1 1   1 1   1 0   1 0   1 0   0 0   5/6   2/6   7/12
    beta-7b       1 1   1 0   1 0   1 0   0 0   0 0   4/6   1/6   5/12

Overall, clustered by fine aspect (CR1, Student t with G − 1 = 5 df, t = 2.570582):
  alpha: p = 7/12 = 0.583333; each cluster's sum minus 2p: 0.8333, 0.8333, −0.1667 ×3, −1.1667
         Σ² = 2·0.694444 + 3·0.027778 + 1.361111 = 2.833333
         var = 6/5 · 2.833333 / 12² = 0.0236111, se = 0.153659, half = t·se = 0.394993
         → 0.188340 – 0.978327  (Wilson over 12 independent items, main's: 0.319507 – 0.806743)
  beta:  p = 5/12 = 0.416667; sums minus 2p: 1.1667, 0.1667 ×3, −0.8333 ×2: Σ² = 2.833333,
         the same se → 0.021673 – 0.811660  (main's Wilson: 0.193257 – 0.680493)
Per level each fine aspect holds one item, so every cluster is a single item and the scores are
0/1: Wilson over the 6 items (z = 1.959964):
  5/6: 0.436497 – 0.969947   2/6: 0.096771 – 0.700007
  4/6: 0.299993 – 0.903229   1/6: 0.030053 – 0.563503
Rank intervals: alpha scores at least beta's in every fine aspect, so it ranks 1 in every
resample (a tie ranks both 1st); beta ties it in a resample drawing only f1, f3, f4, f6
(chance (4/6)^6 = 8.8 % > 2.5 %), else ranks 2: alpha 1, beta 1–2, tied.
"""

from __future__ import annotations

from pathlib import Path

from lvlmbench.store import Store, put_benchmark, put_items, put_responses
from lvlmbench.types import BenchmarkItem, Response

__all__ = ["ALPHA", "BENCH", "BETA", "RIGHT", "write_clustered"]

BENCH = "aspects"
ALPHA, BETA = "alpha-7b", "beta-7b"
RIGHT = {
    ALPHA: ((1, 1), (1, 1), (1, 0), (1, 0), (1, 0), (0, 0)),
    BETA: ((1, 1), (1, 0), (1, 0), (1, 0), (0, 0), (0, 0)),
}
"""Per model, per fine aspect f1..f6: (easy right, hard right)."""
_LEVELS = ("easy", "hard")


def _item(aspect: int, level: int) -> BenchmarkItem:
    fine = f"f{aspect + 1}"
    return BenchmarkItem(
        id=f"{fine}-{_LEVELS[level]}",
        benchmark=BENCH,
        question=f"Which colour is the {fine} square ({_LEVELS[level]})?",
        kind="mc",
        options={"A": "red", "B": "green", "C": "blue", "D": "grey"},
        answer="A",
        meta={
            "capability": "colour",
            "general_aspect": "hue",
            "fine_aspect": fine,
            "difficulty": _LEVELS[level],
            "unit": f"hue|{fine}|{_LEVELS[level]}|0",
        },
    )


def write_clustered(path: Path) -> Path:
    """The store at ``path`` (SQLite), holding BENCH with both players' answers."""
    store = Store.open(str(path))
    try:
        put_benchmark(store, BENCH, "autobench", {})
        put_items(store, [_item(a, level) for a in range(6) for level in range(2)])
        put_responses(
            store,
            [
                Response(
                    item_id=f"f{a + 1}-{_LEVELS[level]}",
                    model=model,
                    text="A" if right[a][level] else "B",
                    extracted="A" if right[a][level] else "B",
                )
                for model, right in RIGHT.items()
                for a in range(6)
                for level in range(2)
            ],
        )
    finally:
        store.close()
    return path
