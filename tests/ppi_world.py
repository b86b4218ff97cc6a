"""A VisIT-Bench-like store where a judge compared one model with the reference on ten items
and people voted on four of them: the PPI figures' hand-worked case; and an AutoBench-V-like
one whose self-check people checked on four of ten items (below).

Players sort as ``m/a`` < ``reference``, so in a pair's terms ``m/a`` is the first. Per item
(judge: the two orders combined by VisIT-Bench's rule; people: each vote, ``m/a`` wins or not):

    item  judge   votes (crowd-1, crowd-2)   people's share
    v0    win     win, win                   1
    v1    loss    loss                       0
    v2    win     win, tie                   0.5
    v3    tie     win                        1
    v4-9  win, win, win, loss, loss, win     (no votes)

Judge on every item: 6 wins of 10 (a tie is not a win) = 0.6, what ``rate`` prints.
People only: y = 1, 0, 0.5, 1, mean 0.625. Judge on the voted items f = 1, 0, 1, 0 (0.5),
on the rest 4/6. PPI++: Cov(y, f) = 0.25/3 = 1/12, Var(f) = 1/3,
λ = (1/12) / ((1 + 4/6) · 1/3) = 0.15; θ̂ = 0.625 + 0.15 · (4/6 − 0.5) = 0.65.
Var = Var(y − λf)/4 + λ² · Var(f_u)/6 = 0.2116667/4 + 0.0225 · (4/15)/6 = 0.0539167,
se 0.2321996, half width t(0.975, 3) · se = 0.7389557: [−0.089, 1.389], clipped to [0, 1].
``m/b`` was judged on the same ten items (it wins v0-v4) and has no votes: no PPI figure.
"""

from __future__ import annotations

from pathlib import Path

from lvlmbench.judging.human_checks import check_judgment
from lvlmbench.store import Store, put_benchmark, put_items, put_judgments, put_responses
from lvlmbench.types import BenchmarkItem, Judgment, Response

BENCH = "visit-ppi"
JUDGE = "x/judge"
MODEL = "m/a"
OTHER = "m/b"
REFERENCE = "reference"
JUDGE_SAYS = ["win", "loss", "win", "tie", "win", "win", "win", "loss", "loss", "win"]
VOTES = {0: ["a", "a"], 1: ["b"], 2: ["a", "tie"], 3: ["a"]}
"""Item index -> each annotator's vote, in the terms of (m/a, reference)."""
CHECKED = "ab"
"""The AutoBench-V-like benchmark of :func:`build_checked_store`."""
PPI = 0.65
PPI_SE = 0.2321996
PPI_HALF = 0.7389557


def _orders(item_id: str, model: str, said: str) -> list[Judgment]:
    # ab shows the model first, ba the reference first; a tie: each order prefers the first.
    first = {"win": ("a", "b"), "loss": ("b", "a"), "tie": ("a", "a")}[said]
    return [
        Judgment(
            item_id=item_id,
            judge=JUDGE,
            protocol="pairwise",
            model_a=a,
            model_b=b,
            verdict=verdict,
            order=order,
        )
        for (a, b, order), verdict in zip(
            ((model, REFERENCE, "ab"), (REFERENCE, model, "ba")), first, strict=True
        )
    ]


def build_ppi_store(path: Path, *, votes: bool = True) -> Store:
    """The store above (``votes=False``: without the people's votes)."""
    store = Store.open(str(path))
    put_benchmark(store, BENCH, "open", {})
    items = [
        BenchmarkItem(id=f"v{i}", benchmark=BENCH, question=f"Describe {i}.", reference=f"ref {i}")
        for i in range(len(JUDGE_SAYS))
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=i.id, model=m, text=f"{m} on {i.id}")
            for i in items
            for m in (MODEL, OTHER)
        ],
    )
    rows = [row for i, said in enumerate(JUDGE_SAYS) for row in _orders(f"v{i}", MODEL, said)]
    rows += [row for i in range(10) for row in _orders(f"v{i}", OTHER, "win" if i < 5 else "loss")]
    if votes:
        rows += [
            Judgment(
                item_id=f"v{i}",
                judge=f"human:crowd-{k + 1}",
                protocol="human",
                model_a=MODEL,
                model_b=REFERENCE,
                verdict=verdict,
            )
            for i, said in VOTES.items()
            for k, verdict in enumerate(said)
        ]
    put_judgments(store, rows)
    return store


# AutoBench-V: ten accepted items in three fine aspects, the self-check's alignment stored
# with each (1 or 0.5), people's image checks on four. As tests/stats' clustered hand case
# (judge 1/0 there, 1/0.5 here: PPI is unchanged by an affine judge scale, λ doubles):
#   checked (aspect, yes?, alignment): (A,1,1) (A,0,0.5) (B,1,1) (C,1,0.5)
#   unchecked alignment:               A: 1,1   B: 1,0.5   C: 0.5,1
# θ̂ = 0.8, λ = 0.6, se = √(333/14400), t with 2 df: half width 0.6543006.
_ASPECTS = ["A", "A", "B", "C", "A", "A", "B", "B", "C", "C"]
_ALIGNMENT = [1.0, 0.5, 1.0, 0.5, 1.0, 1.0, 1.0, 0.5, 0.5, 1.0]
_CHECKS = {0: "yes", 1: "no", 2: "yes", 3: "yes"}


def build_checked_store(path: Path) -> Store:
    """The AutoBench-V-like store above: benchmark :data:`CHECKED`."""
    store = Store.open(str(path))
    put_benchmark(store, CHECKED, "open", {})
    items = [
        BenchmarkItem(
            id=f"ab{i}",
            benchmark=CHECKED,
            question="Which?",
            meta={
                "unit": f"u{i}",
                "capability": "spatial",
                "general_aspect": "layout",
                "fine_aspect": aspect,
                "alignment": alignment,
            },
        )
        for i, (aspect, alignment) in enumerate(zip(_ASPECTS, _ALIGNMENT, strict=True))
    ]
    put_items(store, items)
    image = "image-matches-description"
    checks = [check_judgment(f"ab{i}", "ann", image, said) for i, said in _CHECKS.items()]
    checks.append(check_judgment("ab5", "ann", image, "unsure"))  # decides nothing
    checks.append(check_judgment("ab6", "ann", "key-is-right", "no"))  # another check
    put_judgments(store, checks)
    return store
