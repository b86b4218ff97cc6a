"""Stuffed and careless votes are flagged, and excluding an annotator recomputes every human
figure without their votes (which stay stored and count again once included). Hand-made vote
sets, hand-worked numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.judging import (
    HUMAN,
    annotator_agreement,
    annotator_report,
    human_report,
    vote_summary,
)
from lvlmbench.judging.human_checks import HUMAN_CHECK, check_judgment, check_summaries
from lvlmbench.store import (
    Store,
    WebVote,
    iter_judgments,
    judgment_id,
    put_items,
    put_judgments,
    put_web_vote,
    set_excluded,
)
from lvlmbench.types import BenchmarkItem, Judgment

BENCH = "votes"
runner = CliRunner()


def _store(tmp_path: Path, items: int) -> Store:
    store = Store.open(str(tmp_path / "store.db"))
    put_items(
        store,
        [
            BenchmarkItem(id=f"i{i:02d}", benchmark=BENCH, kind="open", question=f"q{i}")
            for i in range(items)
        ],
    )
    return store


def _vote(item: int, who: str, winner: str | None, a: str = "m/x", b: str = "m/y") -> Judgment:
    """``who``'s vote on item ``item`` (A = ``a``, B = ``b``): ``winner`` a model or None (tie)."""
    verdict = "tie" if winner is None else "a" if winner == a else "b"
    return Judgment(
        item_id=f"i{item:02d}",
        judge=f"human:{who}",
        protocol=HUMAN,
        model_a=a,
        model_b=b,
        verdict=verdict,
    )


def _crowd() -> list[Judgment]:
    """ann, bob and cy agree (x wins items 0-8, y wins 9-11); dan says the opposite every
    time; eve always picks A (x); fay always says tie."""
    votes = []
    for item in range(12):
        honest = "m/x" if item < 9 else "m/y"
        votes += [_vote(item, who, honest) for who in ("ann", "bob", "cy")]
        votes.append(_vote(item, "dan", "m/y" if honest == "m/x" else "m/x"))
        votes.append(_vote(item, "eve", "m/x"))
        if item < 10:
            votes.append(_vote(item, "fay", None))
    return votes


def test_flags_on_a_hand_made_crowd(tmp_path: Path) -> None:
    """Items 0-8: x has ann, bob, cy, eve (4), y has dan (1); items 9-11: y has ann, bob, cy
    (3), x has dan and eve (2). Against the majority of the others: ann, bob and cy agree on
    0-8 and meet a 2:2 split on 9-11 (9 of 9); dan disagrees on all 12; eve agrees on 0-8 and
    not on 9-11 (9 of 12). The rest for dan: 9+9+9+9 of 9+9+9+12 = 36 of 39 (92%), and 0 of 12
    is more than 25 points below; the rest for eve is 27 of 39 (69%), 75% is not."""
    store = _store(tmp_path, 12)
    put_judgments(store, _crowd())
    rows = {row.annotator: row for row in annotator_report(store, BENCH).rows}
    assert (rows["ann"].agreed, rows["ann"].compared) == (9, 9)
    assert (rows["dan"].agreed, rows["dan"].compared) == (0, 12)
    assert (rows["eve"].agreed, rows["eve"].compared) == (9, 12)
    assert rows["dan"].flags == (
        "disagrees: 0 of 12 with the others' majority (the rest: 36 of 39, 92%)",
    )
    assert rows["eve"].flags == ("one side: A in 12 of 12 decisive votes",)
    assert (rows["eve"].stored.first, rows["eve"].stored.second) == (12, 0)
    assert rows["fay"].flags == ("all ties: 10 of 10 votes",)
    assert (rows["fay"].votes, rows["fay"].ties, rows["fay"].compared) == (10, 10, 0)
    for honest in ("ann", "bob", "cy"):
        assert rows[honest].flags == ()
        assert (rows[honest].stored.first, rows[honest].stored.second) == (9, 3)


def test_excluded_annotators_leave_the_majorities(tmp_path: Path) -> None:
    """Without dan, items 9-11 are y 3 : x 1 (eve), so ann, bob and cy agree 12 of 12 and eve
    9 of 12; the rest for eve is 36 of 36, and 75% is exactly 25 points below: not *more*.
    dan, excluded, is still measured against everyone counted: 0 of 12, the rest 45 of 48."""
    store = _store(tmp_path, 12)
    put_judgments(store, _crowd())
    set_excluded(store, "dan", True, "contrarian")
    rows = {row.annotator: row for row in annotator_report(store, BENCH).rows}
    assert rows["dan"].excluded and not rows["ann"].excluded
    assert (rows["ann"].agreed, rows["ann"].compared) == (12, 12)
    assert rows["eve"].flags == ("one side: A in 12 of 12 decisive votes",)
    assert rows["dan"].flags == (
        "disagrees: 0 of 12 with the others' majority (the rest: 45 of 48, 94%)",
    )


def test_web_votes_flag_the_side_shown_and_the_speed(tmp_path: Path) -> None:
    """gus always clicks Answer 1, one second after the ballot: which model that was varies
    (the stored A/B are sorted players), so only the web record shows the side."""
    store = _store(tmp_path, 10)
    for item in range(10):
        first_shown = "m/x" if item % 2 else "m/y"
        vote = _vote(item, "gus", first_shown)
        put_judgments(store, [vote])
        shown = "ab" if first_shown == "m/x" else "ba"
        put_web_vote(store, WebVote(judgment_id(vote), "gus", shown, "left", 100.0, 101.0, "c1"))
    (row,) = annotator_report(store).rows
    assert (row.shown.first, row.shown.second) == (10, 0)
    assert (row.stored.first, row.stored.second) == (0, 0)
    assert row.median_s == 1.0 and row.clients == 1
    assert row.flags == (
        "one side: Answer 1 in 10 of 10 decisive votes",
        "fast: median 1.0 s from ballot to vote",
    )


def test_nine_votes_raise_no_flag(tmp_path: Path) -> None:
    store = _store(tmp_path, 9)
    put_judgments(store, [_vote(item, "new", "m/x") for item in range(9)])
    (row,) = annotator_report(store).rows
    assert row.flags == () and row.stored.first == 9


def _stuffed(tmp_path: Path, wins: int = 3, losses: int = 1, stuffed: int = 8) -> Store:
    """ann: m/x beats the reference on the first ``wins`` items and loses the next
    ``losses``; mallory: the reference wins the first ``stuffed`` items."""
    store = _store(tmp_path, max(wins + losses, stuffed))
    votes = [
        _vote(i, "ann", "m/x" if i < wins else "reference", b="reference")
        for i in range(wins + losses)
    ]
    votes += [_vote(i, "mallory", "reference", b="reference") for i in range(stuffed)]
    put_judgments(store, votes)
    return store


def _bt_gap(wins: int, losses: int) -> float:
    """Two players' Bradley-Terry gap on the Elo scale: 400 log10(wins / losses)."""
    return 400 * math.log10(wins / losses)


def test_exclusion_recomputes_the_ratings(tmp_path: Path) -> None:
    """ann: m/x 30 wins, 10 losses against the reference; mallory: 90 losses. Pooled, m/x wins
    30 of 130: win rate 3/13 and Bradley-Terry (two players, mean 1000) m/x = 1000 + gap/2 with
    gap = 400 log10(30/100) = -209.15. Without mallory, 30 of 40: 0.75 and gap 400 log10(3) =
    +190.85, so 1095.42. Included again: back. (Enough votes that no bootstrap round loses
    every loss, so the fit is the plain maximum likelihood, no regularisation.)"""
    store = _stuffed(tmp_path, wins=30, losses=10, stuffed=90)

    def figures() -> tuple[float, float, int]:
        report = human_report(store, BENCH, rounds=20)
        assert report.bradley_terry is not None and report.bt_note is None
        return (
            report.win_rates["m/x"].rate,
            report.bradley_terry.ratings["m/x"],
            vote_summary(store, BENCH).votes,
        )

    rate, rating, votes = figures()
    assert rate == pytest.approx(3 / 13) and votes == 130
    assert rating == pytest.approx(1000 + _bt_gap(30, 100) / 2, abs=0.01)  # 895.42
    set_excluded(store, "mallory", True, "stuffing")
    rate, rating, votes = figures()
    assert rate == 0.75 and votes == 40
    assert rating == pytest.approx(1000 + _bt_gap(3, 1) / 2, abs=0.01)  # 1095.42
    summary = vote_summary(store, BENCH)
    assert (summary.excluded, summary.excluded_votes) == (["mallory"], 90)
    assert len(list(iter_judgments(store, protocol=HUMAN))) == 130  # stored all along
    set_excluded(store, "mallory", False)
    assert figures()[0] == pytest.approx(3 / 13)


def test_exclusion_recomputes_human_agreement_and_checks(tmp_path: Path) -> None:
    """Items 0-3 have one vote of ann and one of mallory each: they agree on item 3 only, so
    human-vs-human agreement is 1 of 4 pooled and has no pair left without mallory. Checks:
    ann says yes, mallory no: 1 yes of 2, then 1 of 1."""
    store = _stuffed(tmp_path)
    put_judgments(
        store,
        [
            check_judgment("i00", "ann", "key-is-right", "yes"),
            check_judgment("i00", "mallory", "key-is-right", "no"),
        ],
    )
    pooled = annotator_agreement(store, BENCH)
    assert (pooled.agree_with_ties, pooled.total_with_ties) == (1, 4)
    assert (check_summaries(store, BENCH)[0].yes, check_summaries(store, BENCH)[0].no) == (1, 1)
    set_excluded(store, "mallory", True)
    assert annotator_agreement(store, BENCH).total_with_ties == 0
    (check,) = check_summaries(store, BENCH)
    assert (check.yes, check.no) == (1, 0)
    assert len(list(iter_judgments(store, protocol=HUMAN_CHECK))) == 2


def test_cli_excludes_lists_and_includes(tmp_path: Path) -> None:
    store = _stuffed(tmp_path)
    url = store.url

    def rated() -> dict[str, object]:
        result = runner.invoke(app, ["rate", BENCH, "-j", "human", "--json", "--store", url])
        assert result.exit_code == 0, result.output
        data: dict[str, object] = json.loads(result.output)
        return data

    before = rated()
    excluded = runner.invoke(
        app, ["annotators", "exclude", "mallory", "--reason", "stuffing", "--store", url]
    )
    assert excluded.exit_code == 0, excluded.output
    after = rated()
    assert before["win_rate_vs_reference"]["m/x"]["rate"] == 0.25  # type: ignore[index]
    assert after["win_rate_vs_reference"]["m/x"]["rate"] == 0.75  # type: ignore[index]
    listed = runner.invoke(app, ["annotators", "list", BENCH, "--json", "--store", url])
    assert listed.exit_code == 0, listed.output
    rows = {row["annotator"]: row for row in json.loads(listed.output)}
    assert rows["mallory"]["excluded"] and rows["mallory"]["votes"] == 8
    assert not rows["ann"]["excluded"] and rows["ann"]["votes"] == 4
    alone = runner.invoke(app, ["rate", BENCH, "-j", "human:mallory", "--json", "--store", url])
    assert alone.exit_code == 0 and "excluded" in alone.output
    typo = runner.invoke(app, ["annotators", "exclude", "malory", "--store", url])
    assert typo.exit_code == 2 and "did you mean 'mallory'" in typo.output
    included = runner.invoke(app, ["annotators", "include", "mallory", "--store", url])
    assert included.exit_code == 0
    assert rated()["win_rate_vs_reference"]["m/x"]["rate"] == 0.25  # type: ignore[index]


def test_a_read_only_store_from_before_these_tables_still_rates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store made before invites and exclusions existed, opened read-only (it cannot gain
    the tables): its votes rate as before, with nobody excluded."""
    store = _stuffed(tmp_path)
    with store.engine.begin() as conn:
        for table in ("annotators", "exclusions", "web_votes"):
            conn.exec_driver_sql(f"DROP TABLE {table}")
    store.close()
    monkeypatch.setattr("lvlmbench.store._opening.writable", lambda path: False)
    url = store.url
    reader = Store.open(url)
    assert reader.read_only
    assert human_report(reader, BENCH, rounds=5).win_rates["m/x"].rate == 0.25
    assert vote_summary(reader, BENCH).votes == 12
    reader.close()
    listed = runner.invoke(app, ["annotators", "list", "--json", "--store", url])
    assert listed.exit_code == 0, listed.output
    assert {row["annotator"] for row in json.loads(listed.output)} == {"ann", "mallory"}
