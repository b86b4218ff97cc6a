"""METEOR (Banerjee & Lavie 2005) as nltk computes it, with WordNet read offline."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nltk.translate.meteor_score import single_meteor_score

from lvlmbench.judging.metrics._base import Metric, tokens
from lvlmbench.judging.metrics._wordnet import load_wordnet
from lvlmbench.judging.metrics.simple import _same_length

__all__ = ["Meteor"]


class Meteor(Metric):
    """METEOR (0-1): unigram alignment by exact form, Porter stem, then WordNet synonym; F-mean
    weighted towards recall with a fragmentation penalty (nltk's defaults: alpha 0.9, beta 3,
    gamma 0.5). WordNet 3.0 comes from Debian's files (:mod:`._wordnet`); loading it takes about
    two seconds once per process. Raises :class:`MetricUnavailable` when WordNet is missing."""

    name = "meteor"

    def __init__(self, wordnet_dir: Path | None = None) -> None:
        self._wordnet = load_wordnet(wordnet_dir)

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        _same_length(candidates, references)
        out = []
        for cand, ref in zip(candidates, references, strict=True):
            hyp, gold = tokens(cand), tokens(ref)
            value = single_meteor_score(gold, hyp, wordnet=self._wordnet) if hyp and gold else 0.0
            out.append(round(float(value), 6))
        return out
