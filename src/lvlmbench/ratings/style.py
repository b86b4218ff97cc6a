"""Style-controlled Bradley–Terry: ratings that do not reward length and formatting.

Judges, model and human alike, favour longer and more formatted answers. Chatbot Arena's
"style control" separates that from quality by adding style covariates to the Bradley–Terry
logistic regression; this module does the same, written for our matches and scale.

**Features** of one answer (:func:`style_features`): ``tokens``, whitespace-separated tokens of
the whole text (the count the ``length`` baseline and the judge diagnostics use); ``headers``,
lines opening with one to six ``#`` and a space; ``list_items``, lines opening (after any
indentation) with ``-``, ``*``, ``+`` or a number and ``.``/``)``, then a space; ``bold``,
``**…**`` and ``__…__`` spans on one line. The three markdown counts skip fenced code blocks,
where such characters are code, not formatting.

**Per-match covariates** (:func:`style_differences`) are normalised differences
``(a − b) / (a + b)`` (0 when both are 0), so they lie in [−1, 1] and a 200- vs 100-token pair
counts like 2,000 vs 1,000. Each is divided by its root-mean-square over the matches, so a
coefficient is the change in log-odds for one typical difference and features compare. Unlike
Arena we do not subtract the mean: the difference changes sign when the two answers swap
places, and a mean term would act as a bonus for whichever player happens to be listed first.

**Fit**: ``logit P(a beats b) = θ_a − θ_b + Σ β_f d_f``, by maximum likelihood, ties half a win
each and ``l2`` penalising θ exactly as :func:`~lvlmbench.ratings.bradley_terry` does (and β
alike, so that a style difference that separates wins from losses in sparse data stays
finite). The controlled ratings are θ on the same Elo scale and anchor convention, so with no
style variation they equal the raw Bradley–Terry ratings. A feature with no variation (say no
answer uses headers) is left out and listed in ``constant_features``. A feature that only one
model ever shows, always, is indistinguishable from that model's strength; the fit stays
finite (a tiny ridge) but its split between the two means nothing.

**Bootstrap** (:class:`StyleRatings`): Poisson bootstrap, each round weighting every match by
an independent Poisson(1) count (a byte-table discretisation, see ``_style_fit``), which for
many matches is the resample-with-replacement bootstrap without fixing the total. Each round
is *not* refitted from scratch: it starts at the full-data fit and takes chord-Newton steps
(its own gradient, the full-data Hessian scaled by its weight) until the largest step in the
batch is below 1e-4 log-odds or four steps are taken; ``max_last_step`` reports the largest
final step. One step is the linearised bootstrap; ``bench/bench_style.py`` measures the
agreement of the default with exact per-round refits on the same weights.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from lvlmbench.ratings._style_fit import Design, bootstrap_chord, bootstrap_exact, fit
from lvlmbench.ratings.bradley_terry import (
    _check_anchor,
    _check_scale,
    _require_connected,
    _to_elo,
)
from lvlmbench.ratings.intervals import Interval
from lvlmbench.ratings.matches import encode_matches

__all__ = [
    "STYLE_FEATURES",
    "StyleCounts",
    "StyleRatings",
    "style_bradley_terry",
    "style_differences",
    "style_features",
]

STYLE_FEATURES = ("tokens", "headers", "list_items", "bold")
"""The style covariates, in the column order of :class:`StyleCounts`."""

_FENCE = re.compile(r"^ {0,3}(```|~~~).*?(^ {0,3}\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
_HEADER = re.compile(r"^ {0,3}#{1,6}[ \t]+\S", re.MULTILINE)
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S", re.MULTILINE)
_BOLD = re.compile(r"\*\*(?=\S)[^*\n]+?\*\*|__(?=\S)[^_\n]+?__")


class StyleCounts(NamedTuple):
    """Style counts of one answer text (see the module docstring for how each is counted)."""

    tokens: int
    headers: int
    list_items: int
    bold: int


def style_features(text: str) -> StyleCounts:
    """Token count and markdown counts (headers, list items, bold spans) of ``text``."""
    prose = _FENCE.sub("", text)
    return StyleCounts(
        tokens=len(text.split()),
        headers=len(_HEADER.findall(prose)),
        list_items=len(_LIST_ITEM.findall(prose)),
        bold=len(_BOLD.findall(prose)),
    )


def style_differences(
    features_a: npt.ArrayLike, features_b: npt.ArrayLike
) -> npt.NDArray[np.float64]:
    """Normalised differences ``(a − b) / (a + b)`` per match and feature, 0 where both are 0.

    Arrays of shape ``(matches, features)`` of non-negative counts; ``ValueError`` when the
    shapes differ or a count is negative or not finite.
    """
    a = np.asarray(features_a, dtype=np.float64)
    b = np.asarray(features_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(
            f"style features must be two (matches, features) arrays; got {a.shape} and {b.shape}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()) or (a < 0).any() or (b < 0).any():
        raise ValueError("style features must be finite counts >= 0")
    total = a + b
    return np.divide(a - b, total, out=np.zeros_like(total), where=total > 0)


@dataclass(frozen=True)
class StyleRatings:
    """Style-controlled Bradley–Terry ratings and style coefficients, with bootstrap intervals.

    ``ratings`` are on the raw Bradley–Terry Elo scale (same anchor convention).
    ``coefficients`` are log-odds per one root-mean-square normalised difference, whose size
    per feature is ``feature_scales`` (so ``coefficient / scale`` is per unit of ``(a−b)/(a+b)``);
    positive means the judge favours more of that feature. ``max_last_step`` is the largest
    final chord step over the bootstrap rounds, in log-odds (0 for exact refits).
    """

    ratings: dict[str, float]
    intervals: dict[str, Interval]
    std_errors: dict[str, float]
    coefficients: dict[str, float]
    coefficient_intervals: dict[str, Interval]
    feature_scales: dict[str, float]
    constant_features: tuple[str, ...]
    matches: int
    rounds: int
    confidence: float
    max_last_step: float


def style_bradley_terry(
    matches: Iterable[tuple[str, str, float]],
    features_a: npt.ArrayLike,
    features_b: npt.ArrayLike,
    *,
    feature_names: tuple[str, ...] = STYLE_FEATURES,
    rounds: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    l2: float = 0.0,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    base: float = 10.0,
    scale: float = 400.0,
    exact_refit: bool = False,
    max_steps: int = 4,
) -> StyleRatings:
    """Bradley–Terry with style covariates and seeded bootstrap intervals.

    ``matches`` are ``(a, b, outcome)`` as for :func:`~lvlmbench.ratings.bradley_terry`;
    ``features_a``/``features_b`` are the answers' style counts, one row per match (e.g.
    :func:`style_features` of each side's text), columns named by ``feature_names``. The other
    arguments mean what they mean for the raw fit. ``max_steps`` caps the chord steps per
    bootstrap round (1 is the linearised bootstrap); ``exact_refit`` refits every round to
    convergence instead (slow; for checking the approximation).
    ``ValueError`` for bad input, and (with ``l2 == 0``) when the win graph is not strongly
    connected, as the raw fit.
    """
    _check_rounds(rounds, max_steps, confidence)
    _check_scale(l2, base, scale)
    design, scales, constant = _design(matches, features_a, features_b, feature_names)
    _check_anchor(design.players, anchor)
    if l2 == 0.0:
        _require_connected(design.players, _wins(design))
    point = fit(design, design.count, l2)
    if exact_refit:
        boot, last = bootstrap_exact(design, point, rounds, seed, l2), 0.0
    else:
        boot, last = bootstrap_chord(design, point, rounds, seed, l2, max_steps=max_steps)
    n, used = len(design.players), [f for f in feature_names if f not in constant]
    elo = _to_elo(boot[:, :n], design.players, anchor, anchor_rating, base, scale)
    rated = _to_elo(point[None, :n], design.players, anchor, anchor_rating, base, scale)[0]
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(boot, [tail, 1.0 - tail], axis=0)
    intervals, std_errors = _player_intervals(design.players, elo, tail, rounds)
    return StyleRatings(
        ratings=dict(zip(design.players, rated.tolist(), strict=True)),
        intervals=intervals,
        std_errors=std_errors,
        coefficients={f: float(point[n + i]) for i, f in enumerate(used)},
        coefficient_intervals={
            f: Interval(float(low[n + i]), float(high[n + i])) for i, f in enumerate(used)
        },
        feature_scales=scales,
        constant_features=constant,
        matches=int(design.count.sum()),
        rounds=rounds,
        confidence=confidence,
        max_last_step=last,
    )


def _check_rounds(rounds: int, max_steps: int, confidence: float) -> None:
    if rounds < 1 or max_steps < 1:
        raise ValueError(f"rounds and max_steps must be >= 1, got {rounds} and {max_steps}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")


def _player_intervals(
    players: Sequence[str], elo: npt.NDArray[np.float64], tail: float, rounds: int
) -> tuple[dict[str, Interval], dict[str, float]]:
    """Each player's interval (the ``tail`` quantiles of its bootstrap ratings) and spread
    (zero from a single round)."""
    low, high = np.quantile(elo, [tail, 1.0 - tail], axis=0)
    spread = elo.std(axis=0, ddof=1) if rounds > 1 else np.zeros(len(players))
    intervals = {
        p: Interval(float(lo), float(hi)) for p, lo, hi in zip(players, low, high, strict=True)
    }
    return intervals, dict(zip(players, spread.tolist(), strict=True))


def _design(
    matches: Iterable[tuple[str, str, float]],
    features_a: npt.ArrayLike,
    features_b: npt.ArrayLike,
    names: tuple[str, ...],
) -> tuple[Design, dict[str, float], tuple[str, ...]]:
    """Encoded, oriented (first player has the lower index), standardised, aggregated rows."""
    encoded = encode_matches(matches)
    diff = style_differences(features_a, features_b)
    if diff.shape != (encoded.a.size, len(names)):
        raise ValueError(
            f"style features must have one row per match ({encoded.a.size}) and one column per "
            f"feature name ({len(names)}); got {diff.shape}"
        )
    swap = encoded.a > encoded.b
    first = np.where(swap, encoded.b, encoded.a)
    second = np.where(swap, encoded.a, encoded.b)
    score = np.where(swap, 1.0 - encoded.outcome, encoded.outcome)
    diff = np.where(swap[:, None], -diff, diff)
    rms = np.sqrt((diff * diff).mean(axis=0))
    varying = rms > 0
    scales = {f: float(s) for f, s, v in zip(names, rms, varying, strict=True) if v}
    constant = tuple(f for f, v in zip(names, varying, strict=True) if not v)
    style = diff[:, varying] / rms[varying]
    rows = np.column_stack([first, second, score, style])
    unique, count = np.unique(rows, axis=0, return_counts=True)
    design = Design(
        players=encoded.players,
        first=unique[:, 0].astype(np.intp),
        second=unique[:, 1].astype(np.intp),
        score=unique[:, 2].copy(),
        style=np.ascontiguousarray(unique[:, 3:]),
        count=count.astype(np.float64),
    )
    return design, scales, constant


def _wins(design: Design) -> npt.NDArray[np.float64]:
    """``(1, n, n)`` table of i's score against j, for the connectivity check."""
    n = len(design.players)
    wins = np.zeros((1, n, n))
    np.add.at(wins[0], (design.first, design.second), design.count * design.score)
    np.add.at(wins[0], (design.second, design.first), design.count * (1.0 - design.score))
    return wins
