"""`rate BENCH -j human` and `agreement` on votes imported from real vote files."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vote_files import (
    ARENA_MODELS,
    WIDE_VOTES,
    arena_battles,
    battles,
    fastchat_records,
    jsonl_dataset,
    visit_dataset,
    visit_vote_matches,
    visit_votes,
    write_fastchat,
)

from lvlmbench.cli import app
from lvlmbench.datasets import import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.judging import (
    annotator_agreement,
    human_agreement,
    human_report,
    vote_agreement,
)
from lvlmbench.ratings import elo_ratings
from lvlmbench.store import Store, put_judgments
from lvlmbench.types import Judgment

runner = CliRunner()


def _open(path: Path) -> Iterator[Store]:
    store = Store.open(str(path))
    yield store
    store.close()


@pytest.fixture
def visit_store(tmp_path: Path) -> Iterator[Store]:
    """The VisIT dataset and its human-preference file, imported."""
    for store in _open(tmp_path / "visit.db"):
        import_dataset(store, visit_dataset(tmp_path), "visit", "visit")
        import_dataset(store, visit_votes(tmp_path), "visit-votes", "visit")
        yield store


def test_human_ratings_equal_the_same_votes_in_our_wide_format(
    tmp_path: Path, visit_store: Store
) -> None:
    wide_dir = tmp_path / "wide"
    wide_dir.mkdir()
    votes = wide_dir / "votes.csv"
    votes.write_text(WIDE_VOTES)
    for wide in _open(wide_dir / "wide.db"):
        import_dataset(wide, visit_dataset(wide_dir), "visit", "visit")
        import_dataset(wide, votes, "votes", "visit")
        from_wide = human_report(wide, "visit").as_dict()
    from_visit = human_report(visit_store, "visit").as_dict()
    in_order = [r["online_elo"].pop("in_order") for r in (from_visit, from_wide)]
    # Exactly, but for online Elo in the order fought (the two files hold the votes in two
    # orders): Bradley-Terry and its interval, win rates, online Elo's mean over shuffles.
    assert from_visit == from_wide
    assert in_order[0] != in_order[1]
    assert in_order[0] == pytest.approx(elo_ratings(visit_vote_matches()), abs=1e-9)
    assert from_visit["online_elo"]["order"] == "the order fought"
    assert from_visit["pairs"] == 5 and from_visit["statuses"] == {"ok": 25}
    rates = from_visit["win_rate_vs_reference"]
    # llava: 2 of 5 votes against the reference on the cat, 0 of 5 on the sign
    assert rates["llava-13b"]["wins"] == 2 and rates["llava-13b"]["matches"] == 10
    assert rates["instructblip"]["rate"] == pytest.approx(2 / 5)
    for elo in (in_order[0], from_visit["online_elo"]["shuffled_mean"]):
        assert elo["reference"] > elo["llava-13b"] > elo["instructblip"]
    bt = from_visit["bradley_terry"]
    assert all(bt[p]["low"] <= bt[p]["rating"] <= bt[p]["high"] for p in bt)
    assert set(from_visit["category_win_rates"]) == {"poem", "chinese", "chart"}


def test_rate_and_agreement_from_the_cli(tmp_path: Path, visit_store: Store) -> None:
    dump = tmp_path / "battle_info.json"
    dump.write_text(json.dumps(battles()))
    db = ["--store", str(tmp_path / "visit.db")]
    imported = runner.invoke(app, ["import", str(dump), "-f", "battles", "--name", "visit", *db])
    assert imported.exit_code == 0, imported.output
    rated = runner.invoke(app, ["rate", "visit", "-j", "human", "--json", *db])
    assert rated.exit_code == 0, rated.output
    assert json.loads(rated.stdout) == human_report(visit_store, "visit").as_dict()
    one = runner.invoke(app, ["rate", "visit", "-j", "human:crowd-1", "--json", *db])
    assert json.loads(one.stdout)["statuses"] == {"ok": 5}  # one vote on each of 5 pairs
    table = runner.invoke(app, ["rate", "visit", "-j", "human", *db])
    assert "reference" in table.output and "human judged by human" in table.output
    nobody = runner.invoke(app, ["rate", "visit", "-j", "human:alice", *db])
    assert nobody.exit_code == 2 and "human:crowd-1" in nobody.output
    judge = runner.invoke(app, ["rate", "visit", "-j", "gpt-4-0314", "--json", *db])
    assert json.loads(judge.stdout)["pairs"] == 4  # the battles rate as a model judge
    agreed = runner.invoke(app, ["agreement", "visit", "-j", "gpt-4-0314", "--json", *db])
    assert agreed.exit_code == 0, agreed.output
    data = json.loads(agreed.stdout)
    # judge (both orders, combined by VisIT-Bench's majority rule) vs the 5 crowd votes: cat
    # blip-llava llava 4/5, cat llava-ref ref 3/5, chart llava-blip a win plus a tie = llava
    # 3/5; the sign pair's unreadable order leaves it unscored. No judge tie remains.
    assert data["pairs"] == 4
    assert data["vote_agreement"] == {
        "with_ties": 10 / 15,
        "votes_with_ties": 15,
        "without_ties": 10 / 15,
        "votes_without_ties": 15,
        "by_turn": [],  # single-turn items
    }
    levels = {row["level"]: row for row in data["levels"]}
    assert levels["4/5"]["pairs"] == 1 and levels["4/5"]["ties_excluded_rate"] == 1.0
    assert levels["3/5"]["pairs"] == 2 and levels["3/5"]["judge_ties"] == 0
    assert levels["5/5"]["pairs"] == 1 and levels["5/5"]["unscored"] == 1  # the sign
    shown = runner.invoke(app, ["agreement", "visit", "-j", "gpt-4-0314", *db])
    assert "66.7% of 15 with ties, 66.7% of 15 without ties" in shown.output
    people = runner.invoke(app, ["agreement", "visit", "-j", "human", "--json", *db])
    # every two of the 5 votes on a pair: 3/2 splits agree on 4 of 10, 4/1 on 6, 5/0 on 10
    assert json.loads(people.stdout)["with_ties"] == (4 + 6 + 10 + 4 + 4) / 50


def _judge_rows(bowl: str, sign: str) -> list[Judgment]:
    """A model judge's two orders: gpt-4 beats vicuna on the bowl both times; the sign splits."""

    def row(item: str, a: str, b: str, verdict: str, order: str) -> Judgment:
        return Judgment(
            item_id=item,
            judge="x/judge",
            protocol="pairwise",
            model_a=a,
            model_b=b,
            verdict=verdict,
            order=order,
        )

    return [
        row(bowl, "gpt-4", "vicuna-13b", "a", "ab"),
        row(bowl, "vicuna-13b", "gpt-4", "b", "ba"),
        row(sign, "claude-v1", "gpt-4", "a", "ab"),
        row(sign, "gpt-4", "claude-v1", "a", "ba"),
    ]


@pytest.mark.parametrize("kind", ["json", "csv"])
def test_agreement_on_fastchat_votes(tmp_path: Path, kind: str) -> None:
    for store in _open(tmp_path / "fc.db"):
        import_dataset(store, jsonl_dataset(tmp_path), "jsonl", "llava")
        path = write_fastchat(tmp_path, kind, fastchat_records())
        import_dataset(store, path, "fastchat-votes", "llava")
        put_judgments(store, _judge_rows(item_id("llava", "101"), item_id("llava", "102")))
        pooled = vote_agreement(store, "llava", "x/judge", protocol="pairwise", annotators="all")
        # bowl: judge gpt-4 vs votes gpt-4, gpt-4 (author_2), tie; sign: judge tie vs gpt-4,
        # claude
        assert (pooled.agree_with_ties, pooled.total_with_ties) == (2, 5)
        assert (pooled.agree_without_ties, pooled.total_without_ties) == (2, 2)
        votes = vote_agreement(store, "llava", "x/judge", protocol="pairwise")
        # By default the experts only, as FastChat: the bowl's author_2 vote is left out.
        assert votes.annotators is not None and votes.annotators.group == "expert"
        assert (votes.agree_with_ties, votes.total_with_ties) == (1, 4)
        assert (votes.agree_without_ties, votes.total_without_ties) == (1, 1)
        people = annotator_agreement(store, "llava", annotators="all")
        # bowl: a, a, tie -> 1 of 3 vote pairs agree (1 of 1 without ties); sign: b vs a
        assert (people.agree_with_ties, people.total_with_ties) == (1, 4)
        assert (people.agree_without_ties, people.total_without_ties) == (1, 2)
        experts = annotator_agreement(store, "llava")
        # bowl: a, tie -> 0 of 1; sign: b vs a -> 0 of 1 (0 of 1 without ties)
        assert (experts.agree_with_ties, experts.total_with_ties) == (0, 2)
        assert (experts.agree_without_ties, experts.total_without_ties) == (0, 1)
        majority = human_agreement(store, "llava", "x/judge", protocol="pairwise")
        assert majority.pairs == 2 and majority.human_ties_dropped == 1
        rated = human_report(store, "llava")
        assert rated.pairs == 2 and sum(rated.statuses.values()) == 5
        assert rated.online_elo is not None
        assert rated.online_elo.in_order["gpt-4"] > rated.online_elo.in_order["vicuna-13b"]


def _chatbot_arena_online_elo(records: list[dict[str, object]]) -> dict[str, float]:
    """Chatbot Arena's online Elo as FastChat's ``compute_elo`` defines it (K 4, base 10,
    scale 400, every model from 1000, battles in file order; a winner that is neither
    model_a nor model_b is a tie), written out here from that definition."""
    rating: dict[str, float] = {}
    alpha = math.log(10) / 400
    for battle in records:
        a, b = str(battle["model_a"]), str(battle["model_b"])
        score = {"model_a": 1.0, "model_b": 0.0}.get(str(battle["winner"]), 0.5)
        ra, rb = rating.setdefault(a, 1000.0), rating.setdefault(b, 1000.0)
        expected = 1 / (1 + math.exp(alpha * (rb - ra)))
        rating[a], rating[b] = ra + 4 * (score - expected), rb - 4 * (score - expected)
    return rating


def test_online_elo_in_the_order_fought_equals_chatbot_arenas_on_its_battles_file(
    tmp_path: Path,
) -> None:
    """Arena battles imported in file order: `rate -j human` replays them in that order and
    gets Chatbot Arena's online Elo; the mean over shuffled orders is another number, and
    each is printed under its own label."""
    records = arena_battles()
    for store in _open(tmp_path / "arena.db"):
        import_dataset(store, jsonl_dataset(tmp_path), "jsonl", "arena")
        # Two files (the second by other voters, so that no vote replaces one of the first's):
        # the second's battles come after the first's in the order fought.
        later = [{**r, "judge": f"{r['judge']}_later"} for r in records[25:]]
        first, second = tmp_path / "one", tmp_path / "two"
        first.mkdir(), second.mkdir()
        one = write_fastchat(first, "json", records[:25])
        import_dataset(store, one, "fastchat-votes", "arena")
        import_dataset(store, write_fastchat(second, "jsonl", later), "fastchat-votes", "arena")
    db = ["--store", str(tmp_path / "arena.db")]
    rated = runner.invoke(app, ["rate", "arena", "-j", "human", "--json", *db])
    assert rated.exit_code == 0, rated.output
    elo = json.loads(rated.stdout)["online_elo"]
    arena = _chatbot_arena_online_elo(records)
    assert set(elo["in_order"]) == set(arena) == set(ARENA_MODELS)
    for model, value in arena.items():
        assert elo["in_order"][model] == pytest.approx(value, abs=1e-9)
    assert elo["in_order_label"] == "online Elo, in the order fought"
    assert elo["shuffled_label"] == "online Elo, mean of 100 shuffled orders"
    # The figure shown as "online Elo" before (0.9 Elo off here) is another number.
    assert all(abs(elo["shuffled_mean"][m] - arena[m]) > 1e-3 for m in arena)
    table = runner.invoke(app, ["rate", "arena", "-j", "human", *db])
    words = " ".join(table.output.split())
    assert "online Elo, in the order fought: the matches replayed once" in words
    assert "online Elo, mean of 100 shuffled orders (seed 0)" in words
