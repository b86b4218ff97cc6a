"""Real vote files → the store: VisIT-Bench human preferences, FastChat human judgments and
VisIT-Bench leaderboard battles, each detected from its columns; bad files leave the store as
it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vote_files import (
    ANSWERS,
    REFERENCES,
    SIGN_ENCODED,
    WIDE_VOTES,
    battles,
    fastchat_records,
    jsonl_dataset,
    visit_dataset,
    visit_votes,
    write_fastchat,
)

from lvlmbench.cli import app
from lvlmbench.datasets import DatasetError, detect_format, detect_vote_format, import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.datasets.importers._vote_rows import player_name
from lvlmbench.store import Store, iter_judgments, iter_responses, put_responses
from lvlmbench.types import Judgment, Response, Status

runner = CliRunner()


def _visit(tmp_path: Path, store: Store) -> None:
    import_dataset(store, visit_dataset(tmp_path), "visit", "visit")


def _snapshot(store: Store) -> tuple[list[str], list[str]]:
    judgments = sorted(j.model_dump_json() for j in iter_judgments(store))
    responses = sorted(r.model_dump_json() for r in iter_responses(store))
    return judgments, responses


def test_formats_are_detected_from_their_columns(tmp_path: Path) -> None:
    wide = tmp_path / "wide.csv"
    wide.write_text(WIDE_VOTES)
    dump = tmp_path / "battles.json"
    dump.write_text(json.dumps(battles()))
    jsonl_dump = tmp_path / "battles.jsonl"
    jsonl_dump.write_text("\n".join(json.dumps(b) for b in battles()))
    records = fastchat_records()
    assert detect_vote_format(visit_votes(tmp_path)) == "visit-votes"
    assert detect_vote_format(wide) == "votes"
    assert detect_vote_format(dump) == "battles"
    assert detect_vote_format(jsonl_dump) == "battles"
    for kind in ("json", "jsonl", "csv"):
        assert detect_vote_format(write_fastchat(tmp_path, kind, records)) == "fastchat-votes"
    assert detect_vote_format(visit_dataset(tmp_path)) is None
    assert detect_vote_format(jsonl_dataset(tmp_path)) is None
    # `lvlmbench import FILE` without -f goes through detect_format: the vote rules come first,
    # so a preference CSV (it has image_url and instruction too) is never taken for a dataset.
    assert detect_format(visit_votes(tmp_path)) == "visit-votes"
    assert detect_format(wide) == "votes"
    assert detect_format(dump) == "battles" and detect_format(jsonl_dump) == "battles"
    for kind in ("json", "jsonl", "csv"):
        assert detect_format(write_fastchat(tmp_path, kind, records)) == "fastchat-votes"
    assert detect_format(visit_dataset(tmp_path)) == "visit"


def test_visit_preferences_become_crowd_votes(tmp_path: Path, store: Store) -> None:
    _visit(tmp_path, store)
    path = visit_votes(tmp_path)
    fmt = detect_vote_format(path)
    assert fmt is not None
    summary = import_dataset(store, path, fmt, "visit")
    assert (summary.rows, summary.votes, summary.votes_added) == (27, 25, 25)
    assert summary.unmatched == 1 and "dog_1.jpg" in summary.unmatched_keys[0]
    assert summary.skipped == {"rows with both or neither answer selected": 1}
    votes = list(iter_judgments(store, protocol="human"))
    assert len(votes) == 25 and all(v.status is Status.OK and v.order == "ab" for v in votes)
    sign = item_id("visit", "row-2")  # percent-encoded URL in the dataset, raw CJK in the votes
    on_sign = sorted((v.judge, v.model_a, v.verdict) for v in votes if v.item_id == sign)
    assert on_sign == [  # numbered per pair in file order, whichever side each model was on
        ("human:crowd-1", "llava-13b", "b"),
        ("human:crowd-2", "llava-13b", "b"),
        ("human:crowd-3", "llava-13b", "b"),
        ("human:crowd-4", "reference", "a"),
        ("human:crowd-5", "reference", "a"),
    ]
    # answers only the vote file holds are now responses; the reference's text is the item's
    texts = {(r.item_id, r.model): r.text for r in iter_responses(store)}
    assert texts[(item_id("visit", "row-1"), "llava-13b")] == ANSWERS[("cat", "llava-13b")]
    assert texts[(sign, "llava-13b")] == ANSWERS[("sign", "llava-13b")]
    assert len(texts) == 5 and summary.responses_added == 5
    assert all(model != "reference" for _, model in texts)
    again = import_dataset(store, path, "visit-votes", "visit")
    assert (again.votes, again.votes_added, again.responses_added) == (25, 0, 0)
    assert len(list(iter_judgments(store, protocol="human"))) == 25


def test_a_different_stored_answer_is_kept_and_reported(tmp_path: Path, store: Store) -> None:
    _visit(tmp_path, store)
    cat = item_id("visit", "row-1")
    put_responses(store, [Response(item_id=cat, model="llava-13b", text="My own run's answer.")])
    summary = import_dataset(store, visit_votes(tmp_path), "visit-votes", "visit")
    assert len(summary.response_conflicts) == 1
    assert "llava-13b" in summary.response_conflicts[0]
    stored = [r.text for r in iter_responses(store, model="llava-13b") if r.item_id == cat]
    assert stored == ["My own run's answer."]


@pytest.mark.parametrize("kind", ["json", "jsonl", "csv"])
def test_fastchat_judgments_in_every_container(tmp_path: Path, store: Store, kind: str) -> None:
    import_dataset(store, jsonl_dataset(tmp_path), "jsonl", "llava")
    path = write_fastchat(tmp_path, kind, fastchat_records())
    summary = import_dataset(store, path, "fastchat-votes", "llava")
    # 5 human votes and GPT-4's pair verdict; the dataset has no turn-2 item for the turn-2 vote
    assert (summary.rows, summary.votes, summary.unmatched) == (8, 6, 1)
    assert summary.skipped == {
        "votes on a later turn the benchmark has no item for (import the file alone)": 1
    }
    judged = [(j.judge, j.order, j.model_a, j.verdict) for j in iter_judgments(store)]
    assert ("gpt-4", "both", "claude-v1", "b") in judged
    votes = {
        (v.item_id, v.judge): (v.model_a, v.model_b, v.verdict)
        for v in iter_judgments(store, protocol="human")
    }
    bowl, sign = item_id("llava", "101"), item_id("llava", "102")
    assert votes == {
        (bowl, "human:expert_0"): ("gpt-4", "vicuna-13b", "a"),
        (bowl, "human:author_2"): ("gpt-4", "vicuna-13b", "a"),
        (bowl, "human:expert_7"): ("gpt-4", "vicuna-13b", "tie"),
        (sign, "human:expert_0"): ("claude-v1", "gpt-4", "b"),
        (sign, "human:expert_3"): ("claude-v1", "gpt-4", "a"),
    }
    texts = {(r.item_id, r.model): r.text for r in iter_responses(store)}
    assert texts == {
        (bowl, "gpt-4"): "Ramen, with an egg.",  # turn 1's answer, not turn 2's
        (bowl, "vicuna-13b"): "Soup.\n汤。",
        (sign, "claude-v1"): 'It says "STOP".',
        (sign, "gpt-4"): "Stop, 停.",
    }


def test_battles_become_two_order_verdicts(tmp_path: Path, store: Store) -> None:
    _visit(tmp_path, store)
    dump = tmp_path / "battle_info.json"
    dump.write_text(json.dumps(battles(), ensure_ascii=False))
    summary = import_dataset(store, dump, "battles", "visit")
    assert (summary.rows, summary.votes, summary.annotators) == (4, 8, ["gpt-4-0314"])
    rows = list(iter_judgments(store, protocol="pairwise", judge="gpt-4-0314"))
    cat = item_id("visit", "row-1")
    on_cat = [r for r in rows if r.item_id == cat]
    first = sorted((r.order, r.model_a, r.verdict) for r in without_reference(on_cat))
    # query 1 showed llava as A (the *_in_cot lists), query 2 swapped; llava won both
    assert first == [("ab", "instructblip", "b"), ("ba", "llava-13b", "a")]
    # human_verified_reference is the reference player; it won both orders
    vs_ref = sorted(
        (r.order, r.model_a, r.verdict) for r in on_cat if r not in without_reference(on_cat)
    )
    assert vs_ref == [("ab", "llava-13b", "b"), ("ba", "reference", "a")]
    sign = item_id("visit", "row-2")
    unreadable = [r for r in rows if r.item_id == sign and r.status is Status.UNPARSEABLE]
    assert len(unreadable) == 1 and unreadable[0].verdict is None
    assert "I cannot decide" in (unreadable[0].reason or "")
    assert all(r.rationale and r.rationale.startswith("Query") for r in rows)
    renamed = import_dataset(store, dump, "battles", "visit", judge="openai/gpt-4")
    assert renamed.annotators == ["openai/gpt-4"]
    texts = {(r.item_id, r.model): r.text for r in iter_responses(store)}
    assert texts[(sign, "llava-13b")] == ANSWERS[("sign", "llava-13b")]
    assert REFERENCES[SIGN_ENCODED] not in texts.values()


def without_reference(rows: list[Judgment]) -> list[Judgment]:
    """The rows of the battle without the reference."""
    return [r for r in rows if "reference" not in (r.model_a, r.model_b)]


def _bad_visit_row(cell: str) -> list[list[str]]:
    return [["https://x/cat_042.jpg", "Write.", "a", "b", "m1", "m2", cell, "FALSE"]]


@pytest.mark.parametrize(
    ("fmt", "write", "expected"),
    [
        (
            "visit-votes",
            lambda tmp: visit_votes(tmp, _bad_visit_row("maybe")),
            r"row 28 \(line \d+\), column 'model_selection.a': expected TRUE or FALSE, found "
            r"'maybe'",
        ),
        (
            "fastchat-votes",
            lambda tmp: write_fastchat(
                tmp, "jsonl", [*fastchat_records()[:2], {**fastchat_records()[0], "winner": "c"}]
            ),
            r"row 3, column 'winner': expected model_a, model_b or tie, found 'c'",
        ),
        (
            "fastchat-votes",
            lambda tmp: write_fastchat(
                tmp, "csv", [{**r, "turn": "second"} for r in fastchat_records()]
            ),
            r"row 1 \(line 2\), column 'turn': expected a turn number",
        ),
        (
            "battles",
            lambda tmp: _dump(tmp, [*battles(), {**battles()[0], "auto_evaluation_result": "A"}]),
            r"row 5 \(line \d+\), column 'auto_evaluation_result': expected a list of 2 values",
        ),
    ],
)
def test_bad_vote_files_name_row_and_column_and_change_nothing(
    tmp_path: Path, store: Store, fmt: str, write: object, expected: str
) -> None:
    _visit(tmp_path, store)
    import_dataset(store, jsonl_dataset(tmp_path), "jsonl", "llava")
    before = _snapshot(store)
    bench = "llava" if fmt == "fastchat-votes" else "visit"
    path = write(tmp_path)  # type: ignore[operator]
    with pytest.raises(DatasetError, match=expected):
        import_dataset(store, path, fmt, bench)
    assert _snapshot(store) == before
    result = runner.invoke(
        app, ["import", str(path), "-f", fmt, "--name", bench, "--store", str(tmp_path / "s.db")]
    )
    assert result.exit_code == 2, result.output
    assert str(path.name) in result.output and "row" in result.output
    assert _snapshot(store) == before


def _dump(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(records))
    return path


def test_vote_file_for_the_wrong_benchmark_is_refused(tmp_path: Path, store: Store) -> None:
    import_dataset(store, jsonl_dataset(tmp_path), "jsonl", "llava")
    with pytest.raises(DatasetError, match=r"none of the 27 rows matched an item of benchmark"):
        import_dataset(store, visit_votes(tmp_path), "visit-votes", "llava")
    with pytest.raises(DatasetError, match=r"no benchmark 'visit'"):
        import_dataset(store, visit_votes(tmp_path), "visit-votes", "visit")
    assert _snapshot(store) == ([], [])
    broken = tmp_path / "broken.json"
    broken.write_text('[{"question_id": 101,')
    with pytest.raises(DatasetError, match=r"broken\.json, row 1: not valid JSON"):
        import_dataset(store, broken, "fastchat-votes", "llava")


def test_cli_summary_names_what_was_not_stored(tmp_path: Path, store: Store) -> None:
    _visit(tmp_path, store)
    db = str(tmp_path / "s.db")
    path = visit_votes(tmp_path)
    result = runner.invoke(
        app, ["import", str(path), "-f", "visit-votes", "--name", "visit", "--store", db]
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "visit: 25 human votes from 27 rows (25 new) by 5 annotators (crowd-1," in text
    assert "5 answers stored as responses" in text
    assert "1 skipped: rows with both or neither answer selected" in text
    assert "1 row(s) matched no item of 'visit', not stored (first: row 26 (dog_1.jpg" in text


def test_fastchat_votes_without_a_judge_are_numbered_crowd_votes(
    tmp_path: Path, store: Store
) -> None:
    import_dataset(store, jsonl_dataset(tmp_path), "jsonl", "llava")
    records = [{k: v for k, v in r.items() if k != "judge"} for r in fastchat_records()[:3]]
    import_dataset(store, write_fastchat(tmp_path, "jsonl", records), "fastchat-votes", "llava")
    judges = sorted((v.judge, v.verdict) for v in iter_judgments(store, protocol="human"))
    assert judges == [("human:crowd-1", "a"), ("human:crowd-2", "a"), ("human:crowd-3", "tie")]


def test_a_repeated_image_and_instruction_is_told_apart_by_the_reference(
    tmp_path: Path, store: Store
) -> None:
    dataset = tmp_path / "repeats.csv"
    dataset.write_text(
        "instruction,image,reference_output\n"
        "Count the birds.,https://h/birds.jpg,Three birds.\n"
        "Count the birds.,https://h/birds.jpg,Four birds.\n"
    )
    import_dataset(store, dataset, "visit", "visit")
    votes = tmp_path / "prefs.csv"
    votes.write_text(
        "image_url,instruction,A,B,A_model,B_model,model_selection.A,model_selection.B\n"
        "https://h/birds.jpg,Count the birds.,Four birds.,4,human_verified_reference,m,TRUE,FALSE\n"
        "https://h/birds.jpg,Count the birds.,2,1,m,n,TRUE,FALSE\n"
    )
    summary = import_dataset(store, votes, "visit-votes", "visit")
    assert summary.ambiguous == 1  # the second row names no reference: joined to the first
    by_pair = {v.model_a: v.item_id for v in iter_judgments(store, protocol="human")}
    assert by_pair == {"reference": item_id("visit", "row-2"), "m": item_id("visit", "row-1")}


def test_reference_names_in_vote_files() -> None:
    for name in ("human_verified_reference", "Human-Verified Reference", "gpt4_reference"):
        assert player_name(name) == "reference"
    for name in ("reference:openai/gpt-4o", "llava-13b", "referencer"):
        assert player_name(name) == name


def test_battle_order_fields_in_another_shape_fall_back_to_a_b_then_b_a(
    tmp_path: Path, store: Store
) -> None:
    _visit(tmp_path, store)
    battle = {**battles()[0], "A_model_in_cot": "llava-13b", "B_model_in_cot": "instructblip"}
    import_dataset(store, _dump(tmp_path, [battle]), "battles", "visit")
    rows = sorted(
        (r.order, r.model_a, r.verdict)
        for r in iter_judgments(store, protocol="pairwise", judge="gpt-4-0314")
    )
    # query 1 shows A_model (instructblip) as A; llava won both queries by name
    assert rows == [("ab", "instructblip", "b"), ("ba", "llava-13b", "a")]
    mismatch = {**battles()[0], "A_model_in_cot": ["x", "y"], "B_model_in_cot": ["y", "x"]}
    with pytest.raises(DatasetError, match=r"row 1, column 'a_model_in_cot'"):
        import_dataset(store, _dump(tmp_path, [mismatch]), "battles", "visit")
