"""The paper's position-bias experiment: re-keyed copies of a benchmark and the bias rates.

A copy moves every multiple-choice key to one letter (or spreads the keys evenly again); the
bias rate of a letter is (accuracy with every key there − accuracy with even keys) / accuracy
with even keys. Only multiple-choice items enter the rate: a true/false item is the same in
every copy, so counting it would pull every rate towards zero (30 of 144 items in one run turned
a +21.7 % bias into +13.5 %).

The interval of a rate is a paired percentile bootstrap over items: one resample draws items
with replacement and scores the same items in both copies, so the pairing (an item is as hard
in both copies) is kept. The rate is a ratio, for which a delta-method interval is poor when
the even accuracy is small; the bootstrap needs no such approximation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lvlmbench.autobench._finalize import key_stratum
from lvlmbench.autobench.balance import LETTERS, ChoiceDraft, Slot, lettered, spread
from lvlmbench.choice.accuracy import scored_answers
from lvlmbench.ids import check_benchmark_name, content_id
from lvlmbench.store import (
    REKEYED_KIND,
    RekeyedCopy,
    Store,
    get_benchmark,
    iter_items,
    put_benchmark,
    put_items,
)
from lvlmbench.types import BenchmarkItem

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BiasFigure",
    "Target",
    "bias_interval",
    "bias_rate",
    "position_bias_figures",
    "rekey_benchmark",
    "rekey_name",
]

Target = Literal["A", "B", "C", "D", "even"]
BOOTSTRAP_RESAMPLES = 2000
_BOOTSTRAP_SEED = 0
"""Fixed, so that the command, the report and the web app print the same interval."""


def rekey_name(benchmark: str, target: Target, seed: int = 0) -> str:
    """The re-keyed copy's name (the seed is part of it: another seed shuffles the
    distractors differently, so it is another copy); ValueError when no valid name."""
    return check_benchmark_name(f"{benchmark}@keys-{target}-s{seed}")


def _letters(
    benchmark: str, target: Target, seed: int, choice: list[BenchmarkItem]
) -> dict[str, str]:
    """Each multiple-choice item's new key letter: ``target``, or for "even" spread evenly
    within every level × fine aspect as a generated benchmark's keys are (so the even copy is
    not itself position-biased within a level)."""
    if target != "even":
        return {item.id: target for item in choice}
    slots = []
    for item in choice:
        level, stratum = key_stratum(item.meta)
        slots.append(Slot(item.id, level, f"{stratum}|{item.category}"))
    return spread(slots, LETTERS, ("rekey", benchmark, seed))


def rekey_benchmark(store: Store, benchmark: str, target: Target, seed: int = 0) -> str:
    """A copy of ``benchmark`` whose multiple-choice keys all sit at ``target`` (or are spread
    evenly again, within every level × fine aspect); true/false items are copied unchanged.
    Returns the copy's name."""
    if target != "even" and target not in LETTERS:
        raise ValueError(f"target must be 'even' or one of {LETTERS}, got {target!r}")
    name = rekey_name(benchmark, target, seed)
    if get_benchmark(store, name) is not None:
        return name
    source = list(iter_items(store, benchmark))
    choice = [item for item in source if item.kind == "mc" and item.answer in item.options]
    letters = _letters(benchmark, target, seed, choice)
    arranged = {}
    for item in choice:
        answer = item.answer or ""
        others = [text for letter, text in sorted(item.options.items()) if letter != answer]
        draft = ChoiceDraft(item.options[answer], others)
        arranged[item.id] = lettered(draft, letters[item.id], ("rekey", item.id, seed))
    copies: list[BenchmarkItem] = []
    for item in source:
        options, answer = arranged.get(item.id, (item.options, item.answer or ""))
        copies.append(
            item.model_copy(
                update={
                    "id": content_id("rekey", item.id, target, seed),
                    "benchmark": name,
                    "options": options,
                    "answer": answer,
                    "meta": {**item.meta, "rekeyed_from": item.id},
                }
            )
        )
    put_items(store, copies)
    put_benchmark(
        store, name, REKEYED_KIND, RekeyedCopy(source=benchmark, target=target, seed=seed)
    )
    return name


def bias_rate(condition: float, even: float) -> float:
    """(score_condition − score_even) / score_even, the paper's position-bias rate."""
    return (condition - even) / even if even else 0.0


@dataclass(frozen=True)
class BiasFigure:
    """One examinee's accuracy on the multiple-choice items with every key at one letter,
    against evenly spread keys, with the 95 % bootstrap interval of the bias rate."""

    model: str
    target: str
    accuracy: float
    even: float
    n: int
    """Multiple-choice items answered in both copies (the rate's denominator)."""
    low: float
    high: float
    seed: int = 0

    @property
    def rate(self) -> float:
        """The bias rate."""
        return bias_rate(self.accuracy, self.even)


def _scores(store: Store, copy: str, models: Sequence[str]) -> dict[str, dict[str, float]]:
    """{model: {source item id: its score (the mean over its scored answers)}} on the copy's
    keyed multiple-choice items, as every accuracy table scores them; failed calls say nothing
    about the model and are left out."""
    items = {
        item.id: item
        for item in iter_items(store, copy)
        if item.kind == "mc" and item.answer is not None
    }
    scored = scored_answers(store, copy, items=items.values()).item_scores(models)
    out: dict[str, dict[str, float]] = {m: {} for m in models}
    for (model, _variant), per_item in scored.items():
        for item_id, score in per_item.items():
            out[model][str(items[item_id].meta.get("rekeyed_from", item_id))] = score.mean
    return out


def bias_interval(
    condition: Sequence[float], even: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES
) -> tuple[float, float]:
    """95 % paired percentile-bootstrap interval of the bias rate over items (the two
    sequences score the same items in the same order). Resamples whose even accuracy is 0
    have no rate and are left out; (0, 0) when nothing can be resampled."""
    if not condition:
        return 0.0, 0.0
    rng = np.random.default_rng(_BOOTSTRAP_SEED)
    picks = rng.integers(0, len(condition), size=(resamples, len(condition)))
    cond = np.asarray(condition, dtype=float)[picks].mean(axis=1)
    base = np.asarray(even, dtype=float)[picks].mean(axis=1)
    defined = base > 0
    if not defined.any():
        return 0.0, 0.0
    rates = (cond[defined] - base[defined]) / base[defined]
    low, high = np.percentile(rates, [2.5, 97.5])
    return float(low), float(high)


def position_bias_figures(
    store: Store,
    benchmark: str,
    targets: Sequence[Target],
    models: Sequence[str],
    seed: int = 0,
) -> list[BiasFigure]:
    """Bias figures from evaluations already run on the re-keyed copies of one seed."""
    even = _scores(store, rekey_name(benchmark, "even", seed), models)
    figures = []
    for target in targets:
        if target == "even":
            continue
        scores = _scores(store, rekey_name(benchmark, target, seed), models)
        for model in models:
            shared = sorted(set(scores[model]) & set(even[model]))
            cond = [scores[model][i] for i in shared]
            base = [even[model][i] for i in shared]
            accuracy = sum(cond) / len(cond) if cond else 0.0
            level = sum(base) / len(base) if base else 0.0
            low, high = bias_interval(cond, base)
            figures.append(BiasFigure(model, target, accuracy, level, len(shared), low, high, seed))
    return figures
