"""A FastChat judgment file stands alone: MT-bench's ``human_judgments.json`` and
``gpt4_pair_judgments.json`` imported with no dataset give items per question and turn, the
models' answers, every vote (turn 2 included, an expert's repeat vote still that expert's) and
GPT-4's pair judge as a model judge, so ``lvlmbench agreement`` gives FastChat's figures.

Hand-worked from ``vote_files.mt_bench_two_turns`` (sorted players; "a": the first sorted
player wins). FastChat's ``compute_agreement.py --judges gpt4-pair human`` counts the experts'
votes ("human" is ``expert_*``) against GPT-4's one verdict per pair and turn:

- turn 1, 81 alpaca/gpt-4: experts b, b, tie vs GPT-4 b -> 2 of 3, 2 of 2 without ties;
  82 gpt-4/vicuna: expert b vs GPT-4 a -> 0 of 1, 0 of 1 (the author's vote is not counted);
  turn 1: 2 of 4 with ties, 2 of 3 without;
- turn 2, 81: experts a, b vs GPT-4 a -> 1 of 2, 1 of 2; 82: expert tie vs GPT-4 tie -> 1 of 1
  with ties, none without; turn 2: 2 of 3, 1 of 2;
- both turns: 4 of 7 with ties, 3 of 5 without (``agreement`` gives both, and each turn).
``--judges human human`` (every two expert votes on a pair): turn 1 81 {b, b, tie} 1 of 3 (1 of
1 without ties); turn 2 81 {a, b} 0 of 1 (0 of 1) -> 1 of 4, 1 of 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vote_files import (
    MT_BENCH_TURNS,
    mt_bench_two_turns,
    mt_bench_two_turns_gpt4,
    write_fastchat,
)

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.datasets import DatasetError, import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.judging import VoteAgreement
from lvlmbench.store import (
    Store,
    get_benchmark,
    iter_items,
    iter_judgments,
    iter_responses,
    put_judgments,
)

runner = CliRunner()
BENCH = "mt"


def _files(tmp_path: Path) -> tuple[Path, Path]:
    human = write_fastchat(tmp_path, "json", mt_bench_two_turns())
    gpt4 = tmp_path / "gpt4_pair_judgments.json"
    gpt4.write_text(json.dumps(mt_bench_two_turns_gpt4()), encoding="utf-8")
    return human, gpt4


def test_a_judgment_file_alone_builds_items_per_turn(tmp_path: Path, store: Store) -> None:
    human, gpt4 = _files(tmp_path)
    summary = import_dataset(store, human, "fastchat-votes", BENCH)
    assert (summary.rows, summary.votes, summary.skipped) == (8, 8, {})
    assert summary.items_added == 4 and summary.responses_added == 8
    assert summary.annotators == ["author_0", "expert_0", "expert_1"]  # not "expert_0-2"
    stored = get_benchmark(store, BENCH)
    assert stored is not None and stored.kind == "fastchat-votes"
    items = {item.id: item for item in iter_items(store, BENCH)}
    second = items[item_id(BENCH, "81-turn2")]
    assert second.question == MT_BENCH_TURNS[81][1]
    assert second.meta["earlier_turns"] == [MT_BENCH_TURNS[81][0]]
    assert (second.meta["question_id"], second.meta["turn"]) == ("81", 2)
    assert items[item_id(BENCH, "82")].question == MT_BENCH_TURNS[82][0]
    texts = {(r.item_id, r.model): r.text for r in iter_responses(store)}
    assert texts[(second.id, "alpaca-13b")] == "alpaca-13b's second answer to 81."
    assert texts[(item_id(BENCH, "81"), "alpaca-13b")] == "alpaca-13b's answer to 81."
    # expert_0's two turn-1 votes on 81 are both kept, both expert_0's
    first = item_id(BENCH, "81")
    by_expert_0 = sorted(
        (j.repeat, j.verdict)
        for j in iter_judgments(store, protocol="human", judge="human:expert_0")
        if j.item_id == first
    )
    assert by_expert_0 == [(0, "a"), (1, "tie")]
    again = import_dataset(store, human, "fastchat-votes", BENCH)
    assert (again.items_added, again.votes_added, again.responses_added) == (0, 0, 0)

    judged = import_dataset(store, gpt4, "fastchat-votes", BENCH)
    assert (judged.votes, judged.annotators, judged.items_added) == (4, ["gpt-4"], 0)
    rows = list(iter_judgments(store, protocol="pairwise", judge="gpt-4"))
    assert sorted(r.order for r in rows) == ["both"] * 4


def _figures(votes: VoteAgreement) -> tuple[int, int, int, int]:
    return (
        votes.agree_with_ties,
        votes.total_with_ties,
        votes.agree_without_ties,
        votes.total_without_ties,
    )


@pytest.mark.parametrize(
    ("judge", "turn_1", "turn_2"),
    [("gpt-4", (2, 4, 2, 3), (2, 3, 1, 2)), ("human", (1, 3, 1, 1), (0, 1, 0, 1))],
)
def test_agreement_on_the_files_alone_is_fastchats(
    tmp_path: Path, judge: str, turn_1: tuple[int, ...], turn_2: tuple[int, ...]
) -> None:
    db = str(tmp_path / "s.db")
    for path in _files(tmp_path):
        api.import_file(path, store=db, name=BENCH)
    found = api.agreement(BENCH, judge, store=db)
    assert [(turn, _figures(v)) for turn, v in found.votes.by_turn] == [(1, turn_1), (2, turn_2)]
    assert _figures(found.votes) == tuple(a + b for a, b in zip(turn_1, turn_2, strict=True))
    assert found.annotators.group == "expert"


def test_agreement_and_rate_commands_on_the_files_alone(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    said_on_import = []
    for path in _files(tmp_path):
        done = runner.invoke(app, ["import", str(path), "--name", BENCH, "--store", db])
        assert done.exit_code == 0, done.output
        said_on_import.append(" ".join(done.output.split()))
    assert "mt: 4 items built from the file's conversations" in said_on_import[0]
    assert "8 human votes from 8 rows (8 new) by 3 annotators" in said_on_import[0]
    assert "4 verdicts from 4 rows (4 new) by 1 judge (gpt-4)" in said_on_import[1]
    said = runner.invoke(app, ["agreement", BENCH, "-j", "gpt-4", "--store", db])
    assert said.exit_code == 0, said.output
    printed = " ".join(said.output.split())
    assert "judge vs each vote (FastChat): 57.1% of 7 with ties, 60.0% of 5 without ties" in printed
    assert "turn 1: 50.0% of 4 with ties, 66.7% of 3 without ties" in printed
    assert "turn 2: 66.7% of 3 with ties, 50.0% of 2 without ties" in printed
    rated = runner.invoke(app, ["rate", BENCH, "-j", "gpt-4", "--json", "--store", db])
    assert rated.exit_code == 0, rated.output
    body = json.loads(rated.output)
    assert (body["pairs"], body["unscored_pairs"], body["combined_by_judge"]) == (4, 0, 4)
    table = runner.invoke(app, ["rate", BENCH, "-j", "gpt-4", "--store", db])
    shown = " ".join(table.output.split())
    assert "4 of 4 pairs hold one verdict the judge gave over both orders itself" in shown
    assert "two orders combined" not in shown  # no rule of ours was applied


def test_a_file_without_conversations_still_needs_its_dataset(tmp_path: Path, store: Store) -> None:
    records = [
        {k: v for k, v in r.items() if not k.startswith("conversation")}
        for r in mt_bench_two_turns()
    ]
    path = write_fastchat(tmp_path, "jsonl", records)
    with pytest.raises(DatasetError, match=r"conversation_a.*--name") as raised:
        import_dataset(store, path, "fastchat-votes", BENCH)
    assert raised.value.row == 1
    assert get_benchmark(store, BENCH) is None


def test_a_bad_last_record_stores_nothing(tmp_path: Path, store: Store) -> None:
    records = [*mt_bench_two_turns(), {**mt_bench_two_turns()[0], "winner": "model_c"}]
    path = write_fastchat(tmp_path, "json", records)
    with pytest.raises(DatasetError, match="model_c") as raised:
        import_dataset(store, path, "fastchat-votes", BENCH)
    assert (raised.value.row, raised.value.column) == (9, "winner")
    assert get_benchmark(store, BENCH) is None and not list(iter_judgments(store))


def test_a_store_holding_a_repeat_under_its_old_name_gets_it_once(
    tmp_path: Path, store: Store
) -> None:
    """Imports before this version stored expert_0's second vote on a pair as another
    annotator, ``expert_0-2``; re-importing the file into such a store adds no vote twice."""
    human, _ = _files(tmp_path)
    import_dataset(store, human, "fastchat-votes", BENCH)
    repeat = next(j for j in iter_judgments(store, protocol="human") if j.repeat)
    old = repeat.model_copy(update={"judge": "human:expert_0-2", "repeat": 0})
    fresh = tmp_path / "old"
    fresh.mkdir()
    legacy = Store.open(str(fresh / "old.db"))
    try:
        first = write_fastchat(fresh, "json", mt_bench_two_turns()[:1])
        import_dataset(legacy, first, "fastchat-votes", BENCH)
        put_judgments(legacy, [old])
        again = import_dataset(legacy, human, "fastchat-votes", BENCH)
        judges = sorted(j.judge for j in iter_judgments(legacy, protocol="human"))
    finally:
        legacy.close()
    assert again.votes == 8 and len(judges) == 8
    assert judges.count("human:expert_0-2") == 1 and judges.count("human:expert_0") == 2
