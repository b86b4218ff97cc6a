"""The compare use case on stores worked by hand: paired differences on the items both models
answered, McNemar's counts where items stand alone and score 0/1, the paired clustered t where
they share a fine aspect or scores are not 0/1 (the cluster bootstrap for statistics that are
not means), epochs averaged within an item, Holm/BH across the whole table, power plans."""

from __future__ import annotations

from pathlib import Path

import pytest
from compare_store import write_choice_store, write_pairwise_store, write_score_store

from lvlmbench.stats import items_needed, paired_difference
from lvlmbench.store import Store
from lvlmbench.workflows import InvalidOptions
from lvlmbench.workflows.compare import CompareOptions, CompareResult, compare

# 20 items: 0-9 easy, 10-19 hard. A gets all right; B misses easy 4-9 and hard 19.
A = [1] * 20
B = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0] + [1] * 9 + [0]
# C: item 0 twice (right, then wrong: 0.5), 1-9 right, 10-18 wrong, 19 never answered.
C = [[1, 0]] + [1] * 9 + [0] * 9 + [None]
T_975_19 = 2.093024054408263  # Student t quantile, 19 df


def _run(path: Path, **options: object) -> CompareResult:
    store = Store.open(str(path))
    try:
        return compare(store, "quiz", CompareOptions(**options))  # type: ignore[arg-type]
    finally:
        store.close()


def test_unclustered_binary_items_get_mcnemar_and_a_holm_adjusted_table(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B})
    result = _run(db, models=("a", "b"), by=("difficulty",))
    assert (result.metric, result.cluster, result.adjustment) == ("accuracy", "item", "holm")
    overall, easy, hard = result.rows
    assert [r.group for r in result.rows] == [("all",), ("easy",), ("hard",)]
    # Overall: A right on 20, B on 13: 0.35. Discordant pairs 7 (A only) and 0 (B only):
    # exact McNemar p = 2 · 0.5^7 = 0.015625.
    assert overall.paired is not None and overall.discordant == (7, 0)
    assert overall.paired.test == "mcnemar-exact"
    assert overall.paired.p_value == pytest.approx(0.015625)
    assert (overall.mean_a, overall.mean_b) == (1.0, pytest.approx(0.65))
    # Interval: paired t on the per-item differences (seven 1s, thirteen 0s):
    # Σ(d − 0.35)² = 7·0.65² + 13·0.35² = 4.55; var = 20/19 · 4.55 / 20² → se 0.109424.
    est = overall.paired.difference
    assert est.estimate == pytest.approx(0.35)
    assert est.std_error == pytest.approx(0.1094243, rel=1e-6)
    assert (est.low, est.high) == (
        pytest.approx(0.35 - T_975_19 * 0.1094243, rel=1e-6),
        pytest.approx(0.35 + T_975_19 * 0.1094243, rel=1e-6),
    )
    assert (est.n_items, est.n_clusters) == (20, 20)
    # Easy: 6 discordant, all A's: p = 2/64; hard: 1 discordant: p = 1.
    assert easy.discordant == (6, 0) and easy.paired is not None
    assert easy.paired.p_value == pytest.approx(0.03125)
    assert hard.discordant == (1, 0) and hard.paired is not None
    assert hard.paired.p_value == 1.0
    # Holm over the three: 0.015625·3, max(0.03125·2, that), 1.
    assert [r.adjusted_p for r in result.rows] == [
        pytest.approx(0.046875),
        pytest.approx(0.0625),
        1.0,
    ]
    bh = _run(db, models=("a", "b"), by=("difficulty",), adjust="bh")
    # BH: 0.015625·3/1 and 0.03125·3/2 are both 0.046875; 1·3/3 = 1.
    assert bh.adjustment == "bh"
    assert [r.adjusted_p for r in bh.rows] == [
        pytest.approx(0.046875),
        pytest.approx(0.046875),
        1.0,
    ]


def test_epochs_average_within_an_item_and_one_sided_items_are_excluded(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B, "c": C})
    result = _run(db, models=("a", "c"), baseline="b")
    assert [(r.model_a, r.model_b) for r in result.rows] == [("a", "b"), ("c", "b")]
    c_vs_b = result.rows[1]
    # Items 0-18 are common (C never answered 19: it is B's only, excluded and counted).
    # C: 0.5 + 9 right + 9 wrong = 9.5 over 19; B on 0-18: 4 + 9 = 13 right.
    assert (c_vs_b.only_a, c_vs_b.only_b) == (0, 1)
    assert c_vs_b.mean_a == pytest.approx(9.5 / 19) and c_vs_b.mean_b == pytest.approx(13 / 19)
    assert c_vs_b.paired is not None
    assert c_vs_b.paired.difference.estimate == pytest.approx(-3.5 / 19)
    assert c_vs_b.paired.difference.n_items == 19
    # A 0.5 is not binary: no McNemar, the paired t over items.
    assert c_vs_b.paired.test == "paired-clustered-t" and c_vs_b.discordant is None


def test_items_of_one_fine_aspect_are_one_cluster(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B}, cluster_size=4)
    (row,) = _run(db, models=("a", "b")).rows
    assert row.paired is not None
    est = row.paired.difference
    assert (est.cluster, est.n_items, est.n_clusters) == ("fine aspect", 20, 5)
    assert row.paired.test == "paired-clustered-t" and row.discordant is None
    # The same as the library on the same pairs, each item in its fine aspect (4 per aspect).
    ids = [f"quiz-{i:02d}" for i in range(20)]
    clusters = {item: f"fine aspect:colour|hue|fine-{i // 4}" for i, item in enumerate(ids)}
    expected = paired_difference(
        dict(zip(ids, map(float, A), strict=True)),
        dict(zip(ids, map(float, B), strict=True)),
        clusters,  # type: ignore[arg-type]
        cluster="fine aspect",
        test="t",
    )
    assert row.paired == expected
    assert row.adjusted_p == row.paired.p_value  # one test: nothing to adjust


def test_power_plan_from_the_observed_differences(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B})
    (row,) = _run(db, models=("a", "b"), difference=0.1).rows
    assert row.plan is not None
    # n · clustered variance = 20 · 0.1094243² = 0.239474; (1.959964 + 0.841621)² · 0.239474
    # / 0.1² = 187.97 → 188 items; 20 scored, 168 more.
    assert row.plan.item_variance == pytest.approx(0.2394737, rel=1e-6)
    assert (row.plan.items_needed, row.plan.items_now, row.plan.more_needed) == (188, 20, 168)
    assert row.plan == items_needed([1.0] * 7 + [0.0] * 13, difference=0.1)


def test_judge_scores_are_compared_on_the_items_both_were_scored(tmp_path: Path) -> None:
    db = write_score_store(
        tmp_path / "s.db",
        {"m1": [(8, 6), (7, 7), (6, 5), (9, 9)], "m2": [(5, 5), (6, 6), None, (9, 7)]},
    )
    store = Store.open(str(db))
    result = compare(store, "ts", CompareOptions(models=("m1", "m2")))
    store.close()
    (row,) = result.rows
    assert (result.metric, result.judge, result.cluster) == ("score", "j/judge", "item")
    # m1 per item: 7, 7, 5.5, 9; m2: 5, 6, -, 8. Item 2 is m1's only.
    # On items 0, 1, 3: m1 23/3, m2 19/3, difference 4/3.
    assert (row.only_a, row.only_b) == (1, 0)
    assert row.mean_a == pytest.approx(23 / 3) and row.mean_b == pytest.approx(19 / 3)
    assert row.paired is not None and row.paired.difference.estimate == pytest.approx(4 / 3)
    assert row.paired.test == "paired-clustered-t"


# Against the reference: m1 wins 0, 1, 4, loses 2, ties 3; m2 wins 1 and 5, loses 0, 2, 3.
PAIRS = {"m1": [1, 1, 0, 0.5, 1, None], "m2": [0, 1, 0, 0, None, 1]}


def test_win_rates_against_the_reference_are_paired_by_item(tmp_path: Path) -> None:
    db = write_pairwise_store(tmp_path / "s.db", PAIRS)
    store = Store.open(str(db))
    result = compare(store, "vb", CompareOptions(models=("m1", "m2"), metric="win-rate"))
    store.close()
    (row,) = result.rows
    # Items 0-3 both met the reference: m1 1, 1, 0, 0.5 (0.625); m2 0, 1, 0, 0 (0.25).
    assert (result.metric, result.judge) == ("win-rate", "j/judge")
    assert row.mean_a == pytest.approx(0.625) and row.mean_b == pytest.approx(0.25)
    assert row.paired is not None and row.paired.difference.estimate == pytest.approx(0.375)
    assert (row.only_a, row.only_b) == (1, 1)  # m1's item 4, m2's item 5


def test_bradley_terry_differences_match_the_rate_command(tmp_path: Path) -> None:
    from lvlmbench import api

    db = write_pairwise_store(tmp_path / "s.db", PAIRS)
    store = Store.open(str(db))
    options = CompareOptions(models=("m1", "m2"), metric="bradley-terry", resamples=200)
    (row,) = compare(store, "vb", options).rows
    ratings = api.rate("vb", store=store).bradley_terry
    store.close()
    assert ratings is not None
    assert row.mean_a == pytest.approx(ratings.ratings["m1"])
    assert row.mean_b == pytest.approx(ratings.ratings["m2"])
    assert row.paired is not None
    est = row.paired.difference
    assert est.estimate == pytest.approx(ratings.ratings["m1"] - ratings.ratings["m2"])
    assert est.method == "paired-cluster-bootstrap" and est.n_clusters == 6  # items
    assert est.low < est.estimate < est.high


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"models": ("a",)}, "at least two different models"),
        ({"models": ("a", "a")}, "at least two different models"),
        ({"models": ("a", "nobody")}, "'nobody' has no scored accuracy on 'quiz'"),
        ({"models": ("a", "b"), "adjust": "bonferroni"}, "--adjust 'bonferroni'"),
        ({"models": ("a", "b"), "by": ("colour",)}, "unknown facet 'colour'"),
        ({"models": ("a", "b"), "difference": 0.0}, "--difference must be positive"),
        ({"models": ("a", "b"), "metric": "elo"}, "--metric 'elo'"),
    ],
)
def test_bad_options_are_refused(tmp_path: Path, options: dict[str, object], message: str) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B})
    with pytest.raises(InvalidOptions, match=message):
        _run(db, **options)


def test_a_model_whose_calls_all_failed_is_refused_not_shown_as_zero(tmp_path: Path) -> None:
    from lvlmbench.store import put_responses
    from lvlmbench.types import Response, Status

    db = write_choice_store(tmp_path / "s.db", {"a": A, "b": B})
    store = Store.open(str(db))
    put_responses(
        store,
        [
            Response(item_id=f"quiz-{i:02d}", model="down", text="", status=Status.ERROR)
            for i in range(20)
        ],
    )
    with pytest.raises(InvalidOptions, match="'down' has no scored accuracy"):
        compare(store, "quiz", CompareOptions(models=("a", "down")))
    store.close()


def test_two_models_with_no_item_in_common_are_refused(tmp_path: Path) -> None:
    db = write_choice_store(tmp_path / "s.db", {"a": [1, 1, None, None], "b": [None, None, 1, 0]})
    with pytest.raises(InvalidOptions, match=r"cannot compare a with b .*no item both answered"):
        _run(db, models=("a", "b"))
