import math

import numpy as np
import pytest

from lvlmbench.ratings import bradley_terry, bradley_terry_bootstrap, elo_ratings

ELO = 400 / math.log(10)  # Elo points per natural-log unit of strength


def simulate(strengths, matches, seed, tie_share=0.0):
    """Battles between random pairs with P(i beats j) = σ(θ_i − θ_j); some random ties."""
    rng = np.random.default_rng(seed)
    n = len(strengths)
    a = rng.integers(0, n, matches)
    b = (a + rng.integers(1, n, matches)) % n
    p = 1 / (1 + np.exp(-(np.asarray(strengths)[a] - np.asarray(strengths)[b])))
    outcome = (rng.random(matches) < p).astype(float)
    outcome[rng.random(matches) < tie_share] = 0.5
    return [
        (f"m{i}", f"m{j}", o)
        for i, j, o in zip(a.tolist(), b.tolist(), outcome.tolist(), strict=True)
    ]


def centred_elo(strengths):
    theta = np.asarray(strengths, dtype=float)
    return {f"m{i}": 1000 + ELO * (t - theta.mean()) for i, t in enumerate(theta)}


def ranks(values):
    return np.argsort(np.argsort(values))


def test_recovers_known_strengths():
    strengths = np.linspace(-1.2, 1.2, 10)  # about ±250 Elo
    fitted = bradley_terry(simulate(strengths, 20_000, seed=1))
    truth = centred_elo(strengths)
    names = sorted(truth)
    got = np.array([fitted[p] for p in names])
    want = np.array([truth[p] for p in names])
    spearman = np.corrcoef(ranks(got), ranks(want))[0, 1]
    assert spearman > 0.95
    # Standard error is about 6 Elo per player here; 25 is a wide but meaningful margin.
    assert np.abs(got - want).max() < 25
    assert got.mean() == pytest.approx(1000)


def test_agrees_with_choix_within_1e6():
    choix = pytest.importorskip("choix")
    strengths = [0.8, 0.3, 0.0, -0.4, -0.9, 0.1]
    matches = simulate(strengths, 600, seed=2, tie_share=0.15)
    players = sorted({p for a, b, _ in matches for p in (a, b)})
    index = {p: i for i, p in enumerate(players)}
    # choix has no ties: doubling every match turns a tie into one win each way and keeps the
    # likelihood proportional to ours (ties half a win), so the MLE is the same; with the
    # data doubled, choix's alpha·Σθ² penalty equals our l2/2·Σθ² when alpha == l2.
    data = []
    for a, b, outcome in matches:
        if outcome == 1:
            data += [(index[a], index[b])] * 2
        elif outcome == 0:
            data += [(index[b], index[a])] * 2
        else:
            data += [(index[a], index[b]), (index[b], index[a])]
    for l2 in (0.0, 5.0):
        if l2 == 0.0:
            theirs = choix.ilsr_pairwise(len(players), data, alpha=0.0, tol=1e-12, max_iter=1000)
        else:
            theirs = choix.opt_pairwise(len(players), data, alpha=l2, tol=1e-12)
        theirs = theirs - theirs.mean() if l2 == 0.0 else theirs
        ours = bradley_terry(matches, l2=l2)
        mine = np.array([(ours[p] - 1000) / ELO for p in players])
        assert mine == pytest.approx(theirs, abs=1e-6)


def test_ties_count_half_a_win_each():
    decisive = [("a", "b", 1), ("a", "b", 0), ("a", "c", 1), ("c", "b", 1), ("b", "c", 1)] * 3
    tied = [("a", "b", 0.5), ("a", "b", 0.5), ("a", "c", 1), ("c", "b", 1), ("b", "c", 1)] * 3
    assert bradley_terry(tied) == pytest.approx(bradley_terry(decisive), abs=1e-9)


def test_independent_of_match_order():
    matches = simulate([0.5, 0.0, -0.5, 0.2], 400, seed=3, tie_share=0.1)
    assert bradley_terry(matches[::-1]) == pytest.approx(bradley_terry(matches), abs=1e-9)


def test_anchor_sits_exactly_at_its_rating_and_keeps_gaps():
    matches = simulate([0.5, 0.0, -0.5, 0.2], 400, seed=4)
    free = bradley_terry(matches)
    anchored = bradley_terry(matches, anchor="m2", anchor_rating=1200.0)
    assert anchored["m2"] == 1200.0
    for p in free:
        assert anchored[p] - anchored["m0"] == pytest.approx(free[p] - free["m0"], abs=1e-9)
    boot = bradley_terry_bootstrap(matches, rounds=50, anchor="m2", anchor_rating=1200.0)
    assert boot.ratings["m2"] == 1200.0
    assert boot.intervals["m2"].low == boot.intervals["m2"].high == pytest.approx(1200.0)


def test_l2_shrinks_towards_the_mean():
    matches = simulate([1.0, 0.0, -1.0], 300, seed=5)
    free, shrunk = bradley_terry(matches), bradley_terry(matches, l2=50.0)
    assert np.ptp(list(shrunk.values())) < np.ptp(list(free.values()))


def test_base_and_scale_set_the_units():
    matches = simulate([1.0, 0.0, -1.0], 300, seed=6)
    elo = bradley_terry(matches)
    natural = bradley_terry(matches, base=math.e, scale=1.0, anchor_rating=0.0)
    for p in elo:
        assert (elo[p] - 1000) / ELO == pytest.approx(natural[p], abs=1e-9)


def test_bt_and_online_elo_order_players_alike():
    strengths = np.linspace(-1, 1, 8)
    matches = simulate(strengths, 8_000, seed=7)
    bt, elo = bradley_terry(matches), elo_ratings(matches, shuffles=3)
    names = sorted(bt)
    assert np.corrcoef([bt[p] for p in names], [elo[p] for p in names])[0, 1] > 0.97


def test_bootstrap_is_seeded_and_brackets_the_fit():
    matches = simulate([0.6, 0.1, -0.2, -0.5], 1_000, seed=8, tie_share=0.1)
    one = bradley_terry_bootstrap(matches, rounds=200, seed=11)
    assert one == bradley_terry_bootstrap(matches, rounds=200, seed=11)
    assert one != bradley_terry_bootstrap(matches, rounds=200, seed=12)
    assert one.ratings == pytest.approx(bradley_terry(matches), abs=1e-6)
    for p, rating in one.ratings.items():
        assert one.intervals[p].low < rating < one.intervals[p].high
        assert 5 < one.std_errors[p] < 60


def test_bootstrap_intervals_cover_the_truth_at_about_the_nominal_rate():
    strengths = np.array([0.9, 0.4, 0.0, -0.3, -1.0])
    truth = centred_elo(strengths)
    covered = total = 0
    for sim in range(100):  # 500 intervals; the percentile bootstrap runs ~93% at this size
        result = bradley_terry_bootstrap(simulate(strengths, 600, seed=100 + sim), rounds=200)
        for p, interval in result.intervals.items():
            covered += interval.low <= truth[p] <= interval.high
            total += 1
    assert 0.85 <= covered / total <= 0.99, covered / total


def test_perfect_record_needs_regularisation():
    matches = [("a", "b", 1), ("b", "c", 1), ("c", "b", 1), ("a", "c", 1)]
    with pytest.raises(ValueError, match="never lost: a"):
        bradley_terry(matches)
    regularised = bradley_terry(matches, l2=1.0)
    assert regularised["a"] > regularised["b"]
    with pytest.raises(ValueError, match="strongly connected"):
        bradley_terry([("a", "b", 1), ("b", "a", 1), ("c", "d", 1), ("d", "c", 1)])


def test_sparse_bootstrap_resamples_without_mle_raise():
    matches = [("a", "b", 1), ("b", "a", 1), ("b", "c", 1), ("c", "b", 1)]
    with pytest.raises(ValueError, match="bootstrap resamples"):
        bradley_terry_bootstrap(matches, rounds=100)
    assert len(bradley_terry_bootstrap(matches, rounds=100, l2=1.0).intervals) == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"anchor": "nobody"}, "unknown anchor 'nobody'"),
        ({"l2": -1.0}, "l2 must be"),
        ({"base": 1.0}, "base > 1"),
    ],
)
def test_bad_options_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry([("a", "b", 1), ("b", "a", 1)], **kwargs)


@pytest.mark.parametrize(
    ("matches", "message"),
    [([], "empty"), ([("a", "b", 2)], "outcome must be 0, 0.5 or 1"), ([("a", "a", 1)], "itself")],
)
def test_bad_matches_raise(matches, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry(matches)
    with pytest.raises(ValueError, match=message):
        bradley_terry_bootstrap(matches)


def test_bad_bootstrap_options_raise():
    matches = [("a", "b", 1), ("b", "a", 1)]
    with pytest.raises(ValueError, match="rounds"):
        bradley_terry_bootstrap(matches, rounds=0)
    with pytest.raises(ValueError, match="confidence"):
        bradley_terry_bootstrap(matches, confidence=1.0)


def test_swapping_sides_and_flipping_outcomes_changes_nothing():
    matches = simulate([0.4, -0.1, -0.3], 300, seed=9, tie_share=0.2)
    mirrored = [(b, a, 1 - o) for a, b, o in matches]
    assert bradley_terry(mirrored) == pytest.approx(bradley_terry(matches), abs=1e-9)
