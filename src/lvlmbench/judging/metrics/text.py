"""N-gram metrics: BLEU-4 (sacrebleu), ROUGE-L (rouge-score) and CIDEr-D (pycocoevalcap).

Texts are lower-cased and split into word tokens (:func:`tokens`) for BLEU and CIDEr, so
punctuation and case never decide a score; ROUGE-L uses rouge-score's own tokenizer (the same
rule) with its Porter stemmer.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from pycocoevalcap.cider.cider_scorer import CiderScorer
from rouge_score import rouge_scorer
from sacrebleu.metrics.bleu import BLEU

from lvlmbench.judging.metrics._base import Metric, tokens
from lvlmbench.judging.metrics.simple import _same_length

__all__ = ["Bleu4", "Cider", "RougeL"]


class Bleu4(Metric):
    """Sentence BLEU-4 as sacrebleu computes it (0-100): geometric mean of 1-4-gram precisions
    times the brevity penalty, ``exp`` smoothing for n-gram orders with no match, no further
    tokenisation (the text is pre-tokenised by :func:`tokens`)."""

    name = "bleu4"

    def __init__(self) -> None:
        self._bleu = BLEU(tokenize="none", effective_order=True)

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        _same_length(candidates, references)
        out = []
        for candidate, reference in zip(candidates, references, strict=True):
            hyp, ref = " ".join(tokens(candidate)), " ".join(tokens(reference))
            value = self._bleu.sentence_score(hyp, [ref]).score if hyp and ref else 0.0
            out.append(round(value, 6))
        return out


class RougeL(Metric):
    """ROUGE-L F-measure (0-1): longest common subsequence of words, Porter-stemmed."""

    name = "rougeL"

    def __init__(self, stem: bool = True) -> None:
        self._scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stem)

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        _same_length(candidates, references)
        return [
            round(self._scorer.score(ref, cand)["rougeL"].fmeasure, 6)
            for cand, ref in zip(candidates, references, strict=True)
        ]


class _CorpusIdfCider(CiderScorer):  # type: ignore[misc]
    """pycocoevalcap's CIDEr-D scorer with document frequencies fixed from a whole corpus.

    The stock scorer recomputes the IDF from the pairs it is asked to score
    (``ref_len = log(number of pairs)``), so a score would change with the batch. Here both the
    document frequencies and ``ref_len`` come from :meth:`Cider.fit`; the assignment inside
    ``compute_cider`` is ignored by the property below.
    """

    def __init__(self, document_frequency: dict[tuple[str, ...], float], documents: int) -> None:
        self._fixed_ref_len = math.log(float(max(documents, 1)))
        super().__init__(n=4, sigma=6.0)
        self.document_frequency = defaultdict(float, document_frequency)

    @property
    def ref_len(self) -> float:
        return self._fixed_ref_len

    @ref_len.setter
    def ref_len(self, _value: object) -> None:
        pass  # fixed by fit()


class Cider(Metric):
    """CIDEr-D (0-10, pycocoevalcap's implementation: TF-IDF n-gram cosine for n = 1-4 with
    clipping and a Gaussian length penalty, times 10). The IDF is computed once over every
    reference passed to :meth:`fit` (one document per reference), so a response's score does
    not depend on which other responses are scored with it."""

    name = "cider"

    def __init__(self) -> None:
        self._df: dict[tuple[str, ...], float] | None = None
        self._documents = 0

    def fit(self, references: Sequence[str]) -> None:
        counter = CiderScorer(n=4, sigma=6.0)
        unique = sorted({" ".join(tokens(r)) for r in references})
        for ref in unique:
            counter.cook_append(None, [ref])
        counter.compute_doc_freq()
        self._df = dict(counter.document_frequency)
        self._documents = len(unique)

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[float]:
        _same_length(candidates, references)
        if not candidates:
            return []
        if self._df is None:  # not fitted: the scored references are the corpus
            self.fit(references)
        assert self._df is not None
        scorer = _CorpusIdfCider(self._df, self._documents)
        for cand, ref in zip(candidates, references, strict=True):
            scorer.cook_append(" ".join(tokens(cand)), [" ".join(tokens(ref))])
        return [round(float(s), 6) for s in scorer.compute_cider()]
