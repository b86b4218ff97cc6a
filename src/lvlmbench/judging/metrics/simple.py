"""Metrics that need nothing: the random floor and the length-bias probe (VisIT-Bench §4)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from lvlmbench.judging.metrics._base import Metric

__all__ = ["Length", "RandomMetric"]


class Length(Metric):
    """The number of non-whitespace tokens of the candidate; the reference is ignored.

    As a judge it says "the longer answer wins": how far a ranking can be explained by
    verbosity alone."""

    name = "length"

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        _same_length(candidates, references)
        return [float(len(c.split())) for c in candidates]


class RandomMetric(Metric):
    """A uniform draw in [0, 1) per (candidate, reference) pair, seeded by ``seed``.

    The draw hashes the seed and both texts, so it is reproducible and does not depend on the
    order or the batch the pair is scored in; any judge should beat it."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        _same_length(candidates, references)
        out = []
        for candidate, reference in zip(candidates, references, strict=True):
            key = f"{self.seed}\0{candidate}\0{reference}".encode()
            draw = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2**64
            out.append(round(draw, 6))
        return out


def _same_length(candidates: Sequence[str], references: Sequence[str]) -> None:
    if len(candidates) != len(references):
        raise ValueError(
            f"{len(candidates)} candidates but {len(references)} references: they must pair up"
        )
