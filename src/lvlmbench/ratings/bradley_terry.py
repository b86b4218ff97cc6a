"""Bradley–Terry ratings on the Elo scale, with seeded bootstrap confidence intervals.

Online Elo (:mod:`lvlmbench.ratings.elo`) depends on match order and has no error bars. The
Bradley–Terry model ``P(i beats j) = 1 / (1 + exp(θ_j − θ_i))`` fitted by maximum likelihood is
order-free, and its bootstrap gives intervals; it is what Chatbot Arena reports as "Elo" for the
same reasons. Ties count half a win for each side.

Speed comes from two observations. First, the likelihood only depends on how many times each
(pair, outcome) occurred, so matches are collapsed to unique counts before fitting: 100,000
matches among 50 players become at most 3,675 counts. Second, resampling matches with
replacement is the same as drawing those counts from a multinomial, so a bootstrap round costs a
multinomial draw plus a fit on a 50×50 problem, and all rounds are fitted together as one batch of
Newton iterations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lvlmbench.ratings.intervals import Interval
from lvlmbench.ratings.matches import encode_matches

__all__ = ["BootstrapRatings", "bradley_terry", "bradley_terry_bootstrap"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

_SCORES = np.array([0.0, 0.5, 1.0])
"""Score of the lower-indexed player for outcome code 0, 1, 2 (loss, tie, win)."""
_CHUNK_CELLS = 625_000
"""Bootstrap rounds are fitted in batches of about this many (round, i, j) cells (250 rounds at
50 players), which bounds memory to a few tens of MB whatever the number of players."""


@dataclass(frozen=True)
class BootstrapRatings:
    """Bradley–Terry ratings with percentile bootstrap intervals.

    ``ratings`` is the fit on all matches; ``intervals`` are the ``confidence`` percentile
    intervals and ``std_errors`` the standard deviations over ``rounds`` resamples. With an
    anchor, every resample is anchored the same way, so the anchor's interval has zero width and
    the others measure uncertainty *relative to the anchor*.
    """

    ratings: dict[str, float]
    intervals: dict[str, Interval]
    std_errors: dict[str, float]
    rounds: int
    confidence: float


@dataclass(frozen=True)
class _Counts:
    """Matches collapsed to unique (pair, outcome) categories; pair ``(i, j)`` has ``i < j``."""

    players: list[str]
    pairs_i: IntArray  # per unique pair
    pairs_j: IntArray
    category_pair: IntArray  # per category: its pair's position in pairs_i/pairs_j
    category_score: FloatArray  # per category: score of the pair's first player (0, 0.5, 1)
    category_count: npt.NDArray[np.int64] | FloatArray  # per category: matches (or weight)


def bradley_terry(
    matches: Iterable[tuple[str, str, float]],
    *,
    l2: float = 0.0,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    base: float = 10.0,
    scale: float = 400.0,
) -> dict[str, float]:
    """Maximum-likelihood Bradley–Terry rating of every player, on the Elo scale.

    ``matches`` are ``(a, b, outcome)`` with outcome 1 (a wins), 0 (b wins) or 0.5 (tie, half a
    win each). Ratings are ``scale / ln(base) * θ`` shifted so that ``anchor`` is at
    ``anchor_rating``, or, with no anchor, so that the mean rating is ``anchor_rating``. A
    rating gap of ``scale`` then means odds of ``base`` to 1, as in Elo.

    ``l2`` adds the penalty ``l2 / 2 * Σ θ²`` (θ in natural-log units) to the negative
    log-likelihood. Without it the MLE exists only when every player has beaten, and lost to,
    the rest through some chain of results (the win graph is strongly connected); otherwise a
    ``ValueError`` says so and suggests ``l2 > 0``, rather than returning huge ratings.
    """
    counts = _collapse(matches)
    _check_anchor(counts.players, anchor)
    _check_scale(l2, base, scale)
    wins, games = _tables(counts, counts.category_count[None, :].astype(np.float64))
    if l2 == 0.0:
        _require_connected(counts.players, wins)
    theta = _fit(wins, games, l2, np.zeros((1, len(counts.players))))
    ratings = _to_elo(theta, counts.players, anchor, anchor_rating, base, scale)[0]
    return dict(zip(counts.players, ratings.tolist(), strict=True))


def bradley_terry_bootstrap(
    matches: Iterable[tuple[str, str, float]],
    *,
    rounds: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    l2: float = 0.0,
    anchor: str | None = None,
    anchor_rating: float = 1000.0,
    base: float = 10.0,
    scale: float = 400.0,
    weights: Sequence[float] | None = None,
) -> BootstrapRatings:
    """Bradley–Terry ratings (as :func:`bradley_terry`) with seeded bootstrap intervals.

    Each round resamples the matches with replacement (drawn as a multinomial over the unique
    (pair, outcome) counts, which is equivalent and much faster) and refits. The same ``seed``
    gives the same intervals. With ``l2 == 0`` a resample whose win graph is not strongly
    connected has no finite MLE; that raises ``ValueError`` (use ``l2 > 0`` for sparse data)
    instead of silently dropping rounds, which would bias the intervals.

    ``weights`` (one per match, in (0, 1]): a match counts that much in the fit, and a round
    draws as many matches as the weights sum to. One of K epochs' verdicts on an item-pair
    weighs 1/K: the item-pair counts once, and the interval's n is the item-pairs, not
    item-pairs × epochs (K verdicts on one item are not K independent matches).
    """
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    counts = _collapse(matches, weights)
    _check_anchor(counts.players, anchor)
    _check_scale(l2, base, scale)
    observed = counts.category_count.astype(np.float64)
    wins, games = _tables(counts, observed[None, :])
    if l2 == 0.0:
        _require_connected(counts.players, wins)
    point = _fit(wins, games, l2, np.zeros((1, len(counts.players))))

    samples = _resampled_fits(counts, observed, point, rounds, seed, l2)
    boot = _to_elo(np.concatenate(samples), counts.players, anchor, anchor_rating, base, scale)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(boot, [tail, 1.0 - tail], axis=0)
    spread = boot.std(axis=0, ddof=1) if rounds > 1 else np.zeros(len(counts.players))
    ratings = _to_elo(point, counts.players, anchor, anchor_rating, base, scale)[0]
    return BootstrapRatings(
        ratings=dict(zip(counts.players, ratings.tolist(), strict=True)),
        intervals={
            p: Interval(float(lo), float(hi))
            for p, lo, hi in zip(counts.players, low, high, strict=True)
        },
        std_errors=dict(zip(counts.players, spread.tolist(), strict=True)),
        rounds=rounds,
        confidence=confidence,
    )


def _resampled_fits(
    counts: _Counts, observed: FloatArray, point: FloatArray, rounds: int, seed: int, l2: float
) -> list[FloatArray]:
    """The fits of ``rounds`` seeded resamples, drawn in chunks (each a multinomial over the
    unique (pair, outcome) counts); raises where a resample has no MLE (``l2 == 0``)."""
    rng = np.random.default_rng(seed)
    mass = float(observed.sum())  # the matches, or the weight they carry
    total = max(1, round(mass))
    probabilities = observed / mass
    samples: list[FloatArray] = []
    failed = 0
    chunk = max(1, _CHUNK_CELLS // len(counts.players) ** 2)
    for start in range(0, rounds, chunk):
        size = min(chunk, rounds - start)
        drawn = rng.multinomial(total, probabilities, size=size).astype(np.float64)
        wins_b, games_b = _tables(counts, drawn)
        if l2 == 0.0:
            failed += int((~_strongly_connected(wins_b)).sum())
            if failed:
                continue
        samples.append(_fit(wins_b, games_b, l2, np.repeat(point, size, axis=0)))
    if failed:
        raise ValueError(
            f"{failed} bootstrap resamples leave some player unbeaten or winless, so their "
            "Bradley-Terry MLE does not exist; pass l2 > 0 (e.g. 1.0) for data this sparse"
        )
    return samples


def _collapse(
    matches: Iterable[tuple[str, str, float]], weights: Sequence[float] | None = None
) -> _Counts:
    """Unique (pair, outcome) counts (or summed ``weights``), pairs ordered so the lower
    player index comes first."""
    encoded = encode_matches(matches)
    n = len(encoded.players)
    swap = encoded.a > encoded.b
    first = np.where(swap, encoded.b, encoded.a)
    second = np.where(swap, encoded.a, encoded.b)
    score = np.where(swap, 1.0 - encoded.outcome, encoded.outcome)
    code = np.rint(score * 2).astype(np.intp)  # 0 loss, 1 tie, 2 win for ``first``
    keys, inverse, category_count = np.unique(
        (first * n + second) * 3 + code, return_inverse=True, return_counts=True
    )
    pair_keys = keys // 3
    unique_pairs, category_pair = np.unique(pair_keys, return_inverse=True)
    return _Counts(
        players=encoded.players,
        pairs_i=(unique_pairs // n).astype(np.intp),
        pairs_j=(unique_pairs % n).astype(np.intp),
        category_pair=category_pair.astype(np.intp),
        category_score=_SCORES[keys % 3],
        category_count=category_count.astype(np.int64)
        if weights is None
        else np.bincount(inverse, _checked_weights(weights, len(inverse)), minlength=keys.size),
    )


def _checked_weights(weights: Sequence[float], n: int) -> FloatArray:
    values = np.asarray(weights, dtype=np.float64)
    if values.shape != (n,) or not np.all((values > 0.0) & (values <= 1.0)):
        raise ValueError(f"expected {n} match weights within (0, 1], got {len(weights)}")
    return values


def _tables(counts: _Counts, drawn: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Win and game matrices ``(rounds, n, n)`` from per-category counts ``(rounds, C)``.

    ``wins[r, i, j]`` is i's score against j (ties half) and ``games[r, i, j]`` the number of
    games between them. Each (pair, outcome) category appears once, so for a fixed outcome the
    scatter into pairs has no duplicate indices and plain fancy assignment is exact.
    """
    rounds, n = drawn.shape[0], len(counts.players)
    pair_wins = np.zeros((rounds, counts.pairs_i.size))
    pair_games = np.zeros((rounds, counts.pairs_i.size))
    for score in _SCORES:
        chosen = counts.category_score == score
        pairs = counts.category_pair[chosen]
        pair_games[:, pairs] += drawn[:, chosen]
        pair_wins[:, pairs] += score * drawn[:, chosen]
    wins = np.zeros((rounds, n, n))
    games = np.zeros((rounds, n, n))
    wins[:, counts.pairs_i, counts.pairs_j] = pair_wins
    wins[:, counts.pairs_j, counts.pairs_i] = pair_games - pair_wins
    games[:, counts.pairs_i, counts.pairs_j] = pair_games
    games[:, counts.pairs_j, counts.pairs_i] = pair_games
    return wins, games


def _objective(theta: FloatArray, wins: FloatArray, l2: float) -> FloatArray:
    """Penalised log-likelihood per round: Σ wins_ij · log σ(θ_i − θ_j) − l2/2 · Σ θ²."""
    diff = theta[:, :, None] - theta[:, None, :]
    loglik = -(wins * np.logaddexp(0.0, -diff)).sum(axis=(1, 2))
    result: FloatArray = loglik - 0.5 * l2 * (theta * theta).sum(axis=1)
    return result


def _fit(
    wins: FloatArray, games: FloatArray, l2: float, start: FloatArray, max_iter: int = 100
) -> FloatArray:
    """Maximise the penalised log-likelihood for every round at once by damped Newton steps.

    The Hessian is minus a weighted graph Laplacian (plus ``l2``), singular along the all-ones
    direction because only rating differences matter. Adding ``11ᵀ/n`` removes that null space
    without changing steps orthogonal to it, and θ is kept centred (the optimum is centred both
    with and without the penalty). Steps are halved where they would lower the objective, so the
    iteration is monotone even from a poor start.
    """
    rounds, n = start.shape
    theta: FloatArray = start - start.mean(axis=1, keepdims=True)
    ones = np.full((n, n), 1.0 / n)
    eye = np.eye(n)
    current = _objective(theta, wins, l2)
    for _ in range(max_iter):
        diff = theta[:, :, None] - theta[:, None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        gradient = (wins - games * p).sum(axis=2) - l2 * theta
        weight = games * p * (1.0 - p)
        curvature = -weight + eye * (weight.sum(axis=2)[:, :, None] + l2) + ones
        step = np.linalg.solve(curvature, gradient[:, :, None])[:, :, 0]
        step -= step.mean(axis=1, keepdims=True)
        length = np.ones(rounds)
        for _halving in range(40):
            trial: FloatArray = theta + length[:, None] * step
            value = _objective(trial, wins, l2)
            worse = value < current - 1e-12 * np.abs(current)
            if not worse.any():
                break
            length = np.where(worse, length / 2.0, length)
        theta, current = trial, value
        if np.abs(length[:, None] * step).max() < 1e-10:
            break
    return theta


def _strongly_connected(wins: FloatArray) -> npt.NDArray[np.bool_]:
    """Per round: can every player reach, and be reached from, player 0 along wins?"""
    beat = (wins > 0).astype(np.float64)
    result = np.ones(wins.shape[0], dtype=bool)
    for graph in (beat, beat.transpose(0, 2, 1)):
        seen = np.zeros(wins.shape[:2])
        seen[:, 0] = 1.0
        while True:
            grown = np.minimum(seen + np.einsum("rij,rj->ri", graph, seen), 1.0)
            if np.array_equal(grown, seen):
                break
            seen = grown
        result &= seen.min(axis=1) > 0
    return result


def _require_connected(players: list[str], wins: FloatArray) -> None:
    """Raise ``ValueError`` naming the problem when the unpenalised MLE does not exist."""
    if len(players) < 2 or bool(_strongly_connected(wins)[0]):
        return
    score_for = wins[0].sum(axis=1)
    score_against = wins[0].sum(axis=0)
    unbeaten = [p for p, s in zip(players, score_against, strict=True) if s == 0]
    winless = [p for p, s in zip(players, score_for, strict=True) if s == 0]
    detail = []
    if unbeaten:
        detail.append(f"never lost: {', '.join(unbeaten)}")
    if winless:
        detail.append(f"never won: {', '.join(winless)}")
    if not detail:
        detail.append("some group of players never lost to (or never beat) the rest")
    raise ValueError(
        "Bradley-Terry MLE does not exist because the win graph is not strongly connected "
        f"({'; '.join(detail)}); pass l2 > 0 to regularise"
    )


def _check_anchor(players: list[str], anchor: str | None) -> None:
    if anchor is not None and anchor not in players:
        raise ValueError(f"unknown anchor {anchor!r}: it plays in none of the matches")


def _check_scale(l2: float, base: float, scale: float) -> None:
    if not l2 >= 0.0 or not math.isfinite(l2):
        raise ValueError(f"l2 must be a finite number >= 0, got {l2}")
    if not base > 1.0 or not scale > 0.0:
        raise ValueError(f"need base > 1 and scale > 0; got base={base}, scale={scale}")


def _to_elo(
    theta: FloatArray,
    players: list[str],
    anchor: str | None,
    anchor_rating: float,
    base: float,
    scale: float,
) -> FloatArray:
    """Natural-log strengths ``(rounds, n)`` to anchored Elo-scale ratings."""
    ratings: FloatArray = theta * (scale / math.log(base))
    if anchor is None:
        offset = ratings.mean(axis=1, keepdims=True)
    else:
        offset = ratings[:, [players.index(anchor)]]
    result: FloatArray = ratings - offset + anchor_rating
    return result
