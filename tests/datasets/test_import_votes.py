"""Human pairwise votes CSV → Judgment rows (protocol "human", judge "human:<annotator>")."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from lvlmbench.datasets import DatasetError, import_dataset
from lvlmbench.datasets.importers import item_id
from lvlmbench.store import Store, iter_judgments


def _bench(tmp_path: Path, store: Store, b64: Callable[[str], str]) -> None:
    lines = [
        {"id": "q1", "question": "Describe.", "image": b64("red")},
        {"id": "q2", "question": "Describe again.", "image": b64("blue")},
    ]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    import_dataset(store, path, "jsonl", "pairs")


def test_votes_become_human_judgments(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    _bench(tmp_path, store, b64)
    votes = tmp_path / "votes.csv"
    votes.write_text(
        "instance,A_model,B_model,Alice,bob,carol\n"
        "q1,m/x,m/y,A,b,Tie\n"
        f"{item_id('pairs', 'q2')},m/x,m/y,B,,draw\n"
        "0,m/y,m/z,a,a,b\n"  # a 0-based row index: the first item
    )
    summary = import_dataset(store, votes, "votes", "pairs")
    assert (summary.rows, summary.votes, summary.votes_added) == (3, 8, 8)
    assert summary.annotators == ["Alice", "bob", "carol"]
    judgments = list(iter_judgments(store, protocol="human"))
    assert len(judgments) == 8
    q1 = {
        j.judge: j.verdict
        for j in judgments
        if j.item_id == item_id("pairs", "q1") and j.model_b == "m/y"
    }
    assert q1 == {"human:Alice": "a", "human:bob": "b", "human:carol": "tie"}
    q2 = [j for j in judgments if j.item_id == item_id("pairs", "q2")]
    assert sorted((j.judge, j.verdict) for j in q2) == [
        ("human:Alice", "b"),
        ("human:carol", "tie"),
    ]
    third = [j for j in judgments if j.model_b == "m/z"]
    assert {j.item_id for j in third} == {item_id("pairs", "q1")} and len(third) == 3
    assert all(j.model_a in ("m/x", "m/y") and j.order == "ab" for j in judgments)
    again = import_dataset(store, votes, "votes", "pairs")
    assert (again.votes, again.votes_added) == (8, 0)
    assert len(list(iter_judgments(store, protocol="human"))) == 8


def test_votes_need_an_existing_benchmark_and_items(
    tmp_path: Path, store: Store, b64: Callable[[str], str]
) -> None:
    votes = tmp_path / "votes.csv"
    votes.write_text("instance,A_model,B_model,ann1\nq1,m/x,m/y,A\n")
    with pytest.raises(DatasetError, match="no benchmark 'pairs'"):
        import_dataset(store, votes, "votes", "pairs")
    _bench(tmp_path, store, b64)
    votes.write_text("instance,A_model,B_model,ann1\nq1,m/x,m/y,A\nq9,m/x,m/y,B\n")
    with pytest.raises(
        DatasetError, match=r"votes\.csv, row 2 \(line 3\), column 'instance': no item 'q9'"
    ):
        import_dataset(store, votes, "votes", "pairs")
    votes.write_text("instance,A_model,B_model,ann1\nq1,m/x,m/y,A\nq2,m/x,m/y,maybe\n")
    with pytest.raises(
        DatasetError, match=r"row 2 \(line 3\), column 'ann1': expected A, B or tie"
    ):
        import_dataset(store, votes, "votes", "pairs")
    votes.write_text("instance,A_model,ann1\nq1,m/x,A\n")
    with pytest.raises(DatasetError, match="missing required column 'b_model'"):
        import_dataset(store, votes, "votes", "pairs")
    votes.write_text("instance,A_model,B_model\nq1,m/x,m/y\n")
    with pytest.raises(DatasetError, match="one vote column per annotator"):
        import_dataset(store, votes, "votes", "pairs")
    assert list(iter_judgments(store, protocol="human")) == []  # nothing partially written
