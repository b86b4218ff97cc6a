"""A store where a pairwise judge and people both favour longer, more formatted answers.

Three examinees answer 120 items: ``m/strong`` writes short plain answers, ``m/mid`` medium
ones, ``m/verbose`` (the weakest) long answers with headers, lists and bold. Every pair on
every item is judged in both orders by ``fake/lengthy`` and voted on once by
``human:crowd``; the winner is drawn with log-odds ``θ_a − θ_b + LENGTH_BIAS · (la−lb)/(la+lb)``
(the same draw for the judge and the vote). ``m/mid`` has no answer on ``MISSING`` items, so
its matches there have no text and must be left out of the style fit and counted.

The votes are stored as judgments, or, with ``vote_file``, written there in the wide votes
CSV format (``instance,A_model,B_model,crowd``) and brought in by the votes importer, as
``lvlmbench import votes.csv --name styled`` does.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from lvlmbench.datasets import import_dataset
from lvlmbench.store import Store, put_benchmark, put_items, put_judgments, put_responses
from lvlmbench.types import BenchmarkItem, Judgment, Response

BENCH = "styled"
JUDGE = "fake/lengthy"
ITEMS = 120
MISSING = 6
"""Items (the first ones) without an ``m/mid`` answer: 2 pairs each lose their text."""
STRENGTH = {"m/strong": 0.8, "m/mid": 0.0, "m/verbose": -0.8}
TOKENS = {"m/strong": (15, 150), "m/mid": (30, 250), "m/verbose": (100, 450)}
LENGTH_BIAS = 5.0


def _answer(model: str, tokens: int, rng: np.random.Generator) -> str:
    """Markdown varies within every model (a feature used by one model only, always, would be
    indistinguishable from that model's strength)."""
    words = " ".join(f"w{i}" for i in range(tokens))
    heading = "## Answer\n\n" if rng.random() < (0.7 if model == "m/verbose" else 0.1) else ""
    bullets = "\n".join(f"- point {i}" for i in range(int(rng.integers(0, 4))))
    bold = " ".join("**key**" for _ in range(int(rng.integers(0, 3))))
    return f"{heading}{words} {bold}\n\n{bullets}\n"


def _winner(la: int, lb: int, a: str, b: str, rng: np.random.Generator) -> str:
    logit = STRENGTH[a] - STRENGTH[b] + LENGTH_BIAS * (la - lb) / (la + lb)
    return a if rng.random() < 1.0 / (1.0 + math.exp(-logit)) else b


def _import_votes(store: Store, votes: list[Judgment], path: Path) -> None:
    rows = [f"{v.item_id},{v.model_a},{v.model_b},{str(v.verdict).upper()}" for v in votes]
    path.write_text("\n".join(["instance,A_model,B_model,crowd", *rows]) + "\n")
    import_dataset(store, path, "votes", BENCH)


def build_style_store(path: Path, *, votes: bool = True, vote_file: Path | None = None) -> Store:
    store = Store.open(str(path))
    rng = np.random.default_rng(7)
    put_benchmark(store, BENCH, "open", {})
    items = [
        BenchmarkItem(id=f"s{i:03d}", benchmark=BENCH, question=f"Describe picture {i}.")
        for i in range(ITEMS)
    ]
    put_items(store, items)
    responses, judgments = [], []
    for index, item in enumerate(items):
        lengths = {m: int(rng.integers(*TOKENS[m])) for m in STRENGTH}
        for model, tokens in lengths.items():
            text = _answer(model, tokens, rng)
            if not (model == "m/mid" and index < MISSING):
                responses.append(Response(item_id=item.id, model=model, text=text))
        for a, b in (("m/mid", "m/strong"), ("m/mid", "m/verbose"), ("m/strong", "m/verbose")):
            won = _winner(lengths[a], lengths[b], a, b, rng)
            for first, second, order in ((a, b, "ab"), (b, a, "ba")):
                verdict = "a" if won == first else "b"
                judgments.append(
                    Judgment(
                        item_id=item.id,
                        judge=JUDGE,
                        protocol="pairwise",
                        model_a=first,
                        model_b=second,
                        verdict=verdict,
                        order=order,
                    )
                )
            if not votes:
                continue
            judgments.append(
                Judgment(
                    item_id=item.id,
                    judge="human:crowd",
                    protocol="human",
                    model_a=a,
                    model_b=b,
                    verdict="a" if won == a else "b",
                )
            )
    put_responses(store, responses)
    if vote_file is not None:
        _import_votes(store, [j for j in judgments if j.protocol == "human"], vote_file)
        judgments = [j for j in judgments if j.protocol != "human"]
    put_judgments(store, judgments)
    return store
