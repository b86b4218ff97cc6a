"""Judge-human agreement on MT-bench's human judgments counts one annotator group, as FastChat's
``compute_agreement.py`` does (its "human" is the ``expert_*`` votes), and says which.

The fixture (``vote_files.mt_bench_human``) is the ``human`` split's layout, turn 1 in sorted
players (a: the first name alphabetically wins), worked by hand:

    81 alpaca-13b / gpt-4        expert_0 b, expert_12 b, author_3 a, expert_0 tie
    82 claude-v1 / vicuna-13b    author_1 a, author_3 a, expert_5 tie
    83 gpt-3.5-turbo / gpt-4     expert_5 a, expert_12 a, author_2 b
    81 alpaca-13b / vicuna-13b   author_2 b (alone: no pair of votes)

People with each other, every two votes on a pair (ties: a tie matches a tie):
- experts: 81 {b,b,tie} 1 of 3 (1 of 1 without ties), 83 {a,a} 1 of 1 -> 2 of 4, 2 of 2;
- all: 81 {b,b,a,tie} 1 of 6 (1 of 3), 82 {a,a,tie} 1 of 3 (1 of 1), 83 {a,a,b} 1 of 3
  (1 of 3) -> 3 of 12, 3 of 7;
- authors: 82 {a,a} 1 of 1 -> 1 of 1, 1 of 1.
The judge (GPT-4's pair verdicts: 81 b, 82 a, 83 tie) with each vote:
- experts: 81 2 of 3 (2 of 2), 82 0 of 1, 83 0 of 2 (judge tie: none) -> 2 of 6, 2 of 2;
- all: 81 2 of 4 (2 of 3), 82 2 of 3 (2 of 2), 83 0 of 3 -> 4 of 10, 4 of 5.
FastChat's ``compute_agreement.py`` on the same two files prints, for turn 1, 2/4 and 2/2
(``--judges human human``) and 2/6 and 2/2 (``--judges gpt4-pair human``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vote_files import MT_BENCH_JUDGE, mt_bench_human, mt_bench_questions, write_fastchat

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.datasets import import_dataset
from lvlmbench.judging import (
    annotator_agreement,
    annotator_group,
    human_agreement,
    vote_agreement,
)
from lvlmbench.report import collect
from lvlmbench.report.render import render_benchmark
from lvlmbench.store import Store, iter_items, put_judgments
from lvlmbench.types import Judgment

runner = CliRunner()
BENCH = "mt-bench"
PAIRS = {
    81: ("alpaca-13b", "gpt-4"),
    82: ("claude-v1", "vicuna-13b"),
    83: ("gpt-3.5-turbo", "gpt-4"),
}


def _judge_rows(store: Store) -> list[Judgment]:
    """A model judge's two orders per voted pair: GPT-4's pair verdicts (83 split: a tie)."""
    ids = {int(item.meta["question_id"]): item.id for item in iter_items(store, BENCH)}
    rows = []
    for qid, (a, b) in PAIRS.items():
        said = MT_BENCH_JUDGE[qid]
        for order, (first, second) in (("ab", (a, b)), ("ba", (b, a))):
            # A tie: each order prefers the answer shown first, so the two orders split.
            verdict = "a" if said in ("tie", first) else "b"
            rows.append(
                Judgment(
                    item_id=ids[qid],
                    judge="x/judge",
                    protocol="pairwise",
                    model_a=first,
                    model_b=second,
                    verdict=verdict,
                    order=order,
                )
            )
    return rows


@pytest.fixture
def db(tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "mt.db"
    store = Store.open(str(path))
    import_dataset(store, mt_bench_questions(tmp_path), "jsonl", BENCH)
    summary = import_dataset(
        store, write_fastchat(tmp_path, "json", mt_bench_human()), "fastchat-votes", BENCH
    )
    assert summary.votes == 11 and summary.skipped == {
        "votes on a later turn the benchmark has no item for (import the file alone)": 1
    }
    put_judgments(store, _judge_rows(store))
    store.close()
    yield str(path)


def _figures(votes: object) -> tuple[int, int, int, int]:
    return (
        votes.agree_with_ties,  # type: ignore[attr-defined]
        votes.total_with_ties,  # type: ignore[attr-defined]
        votes.agree_without_ties,  # type: ignore[attr-defined]
        votes.total_without_ties,  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize(
    ("annotators", "people", "judge"),
    [
        (None, (2, 4, 2, 2), (2, 6, 2, 2)),  # FastChat's figures
        ("expert", (2, 4, 2, 2), (2, 6, 2, 2)),
        ("all", (3, 12, 3, 7), (4, 10, 4, 5)),
        ("author", (1, 1, 1, 1), (2, 4, 2, 3)),
    ],
)
def test_agreement_counts_one_annotator_group(
    db: str,
    annotators: str | None,
    people: tuple[int, ...],
    judge: tuple[int, ...],
) -> None:
    store = Store.open(db)
    try:
        among = annotator_agreement(store, BENCH, annotators=annotators)
        against = vote_agreement(
            store, BENCH, "x/judge", protocol="pairwise", annotators=annotators
        )
        majority = human_agreement(
            store, BENCH, "x/judge", protocol="pairwise", annotators=annotators
        )
    finally:
        store.close()
    assert _figures(among) == people
    assert _figures(against) == judge
    assert among.annotators is not None and against.annotators is not None
    assert among.annotators.group == against.annotators.group == (annotators or "expert")
    assert majority.annotators == among.annotators
    # Pairs with a majority of forced-choice votes: experts 81 and 83; all of them 81-83.
    assert majority.pairs == {None: 2, "expert": 2, "all": 3, "author": 3}[annotators]


def test_agreement_command_says_whose_votes_and_refuses_an_unknown_group(db: str) -> None:
    base = ["agreement", BENCH, "--store", db]
    shown = runner.invoke(app, [*base, "-j", "human"])
    assert shown.exit_code == 0, shown.output
    words = " ".join(shown.output.split())
    assert "50.0% of 4 with ties, 100.0% of 2 without ties" in words
    assert "annotators expert (the default: FastChat's): 6 votes; left out: author 5" in words
    pooled = json.loads(
        runner.invoke(app, [*base, "-j", "human", "--annotators", "all", "--json"]).stdout
    )
    assert pooled["annotators"] == {"group": "all", "default": False, "votes": 11, "left_out": {}}
    assert (pooled["with_ties"], pooled["vote_pairs_with_ties"]) == (3 / 12, 12)
    judged = json.loads(runner.invoke(app, [*base, "-j", "x/judge", "--json"]).stdout)
    assert judged["annotators"]["group"] == "expert" and judged["annotators"]["default"]
    assert judged["vote_agreement"]["votes_with_ties"] == 6
    assert judged["vote_agreement"]["with_ties"] == 2 / 6
    table = runner.invoke(app, [*base, "-j", "x/judge", "--annotators", "author"])
    assert "annotators author: 5 votes; left out: expert 6" in " ".join(table.output.split())
    bad = runner.invoke(app, [*base, "-j", "human", "--annotators", "crowd"])
    assert bad.exit_code == 2
    assert "no votes by annotator group 'crowd'" in bad.output
    assert "author (5 votes), expert (6 votes)" in " ".join(bad.output.split())


def test_api_agreement_takes_the_group(db: str) -> None:
    found = api.agreement(BENCH, "human", store=db)
    assert found.annotators.group == "expert" and found.annotators.default
    assert _figures(found.votes) == (2, 4, 2, 2) and found.majority is None
    pooled = api.agreement(BENCH, "x/judge", store=db, annotators="all")
    assert pooled.protocol == "pairwise" and _figures(pooled.votes) == (4, 10, 4, 5)
    assert pooled.majority is not None and pooled.majority.pairs == 3
    with pytest.raises(ValueError, match="annotator group 'crowd'"):
        api.agreement(BENCH, "human", store=db, annotators="crowd")


def test_annotator_groups_are_the_names_without_their_numbers() -> None:
    assert annotator_group("human:expert_12") == "expert"
    assert annotator_group("human:expert_12-2") == "expert"  # the same expert's second vote
    assert annotator_group("human:author_3") == "author"
    assert annotator_group("human:crowd-3") == "crowd"
    assert annotator_group("human:alice") == "alice"
    assert annotator_group("human:7") == "7"


def test_the_report_says_whose_votes_the_judges_agreement_counts(db: str) -> None:
    store = Store.open(db)
    try:
        bench = collect(store, [BENCH])["benchmarks"][0]
    finally:
        store.close()
    [entry] = bench["human"]
    assert entry["agreement_annotators"]["group"] == "expert"
    [judge] = entry["agreement"]
    assert judge["judge"] == "x/judge" and judge["pairs"] == 2  # the experts' majorities
    html = render_benchmark(bench)
    said = "annotators expert (the default: FastChat&#x27;s): 6 votes; left out: author 5."
    assert f'<span data-annotators="expert">{said}</span>' in html
