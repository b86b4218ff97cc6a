"""Vote files in the real projects' layouts, written from scratch for the tests.

- ``visit_dataset``: a VisIT-Bench dataset CSV (no id column; image URLs, one percent-encoded
  with a CJK file name; an instruction with a line break);
- ``visit_votes``: its human-preference CSV as pandas writes it (an unnamed index column,
  minimal quoting), one row per crowd vote, five per pair, A/B sides mixed, TRUE/FALSE cells
  (and pandas' True/False), answers with quoted newlines, commas, quotes and CJK text, the
  reference as ``human_verified_reference``, the instruction's line break as a space, one row
  for an image the dataset lacks and one with neither answer selected;
- ``WIDE_VOTES``: the same votes typed into our wide votes format;
- ``fastchat_records``: FastChat human judgments (expert/author judges, turns, a GPT-4 pair
  judge written as a list, a ``tie (bothbad)``), for a JSONL dataset keyed by question id;
- ``battles``: VisIT-Bench leaderboard battles (with and without ``A_model_in_cot``);
- ``mt_bench_human`` / ``mt_bench_gpt4_pair``: the two splits of FastChat's
  ``mt_bench_human_judgments`` (``human_judgments.json``: expert and author judges, one expert
  voting twice on a pair, a ``tie (bothbad)``, model names in either order, turn-2 votes;
  ``gpt4_pair_judgments.json``: GPT-4's pair judge as a list), for ``mt_bench_questions``;
- ``arena_battles``: Chatbot Arena battles as FastChat's ``clean_battle_data.py`` writes them
  (``model_a``, ``model_b``, ``winner`` with ``tie (bothbad)``, ``judge``, ``turn``,
  ``anony``, ``language``, ``tstamp``, ``question_id``, conversations), in the order fought.
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any

HOST = "https://visit-instructions-tau.s3.amazonaws.com/"
CAT = HOST + "cat_042.jpg"
SIGN_ENCODED = HOST + "%E8%B7%AF%E6%A0%87_7.png"
SIGN_RAW = "http://visit-instructions-tau.s3.us-west-2.amazonaws.com/路标_7.png"
CHART = HOST + "chart_9.jpg?versionId=3"
REF = "human_verified_reference"

INSTRUCTIONS = {
    CAT: "Write a short poem\nabout the cat.",
    SIGN_ENCODED: "这个标志是什么意思？",
    CHART: "Which bar is tallest?",
}
REFERENCES = {
    CAT: "A cat on the sill,\nwatching rain.",
    SIGN_ENCODED: "这是一个禁止停车的标志。",
    CHART: "The blue bar, labelled 2021.",
}
ANSWERS = {
    ("cat", "llava-13b"): 'Soft paws, "quiet" eyes,\nthe cat dreams, of fish.',
    ("cat", "instructblip"): "a cat",
    ("sign", "llava-13b"): "禁止停车，\n请勿在此停车。",
    ("chart", "llava-13b"): "The tallest bar is blue, 2021.",
    ("chart", "instructblip"): "blue",
}


def visit_dataset(tmp_path: Path) -> Path:
    """The dataset CSV (three items, keys row-1..row-3)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "instruction_category",
            "instruction",
            "image",
            "image_url",
            "reference_output",
            "human_ratings_gpt4_correct",
        ]
    )
    for url, category in ((CAT, "poem"), (SIGN_ENCODED, "chinese"), (CHART, "chart")):
        writer.writerow([category, INSTRUCTIONS[url], url, url, REFERENCES[url], "TRUE"])
    path = tmp_path / "visit_bench_single_image.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


_VISIT_VOTES: list[tuple[str, str, str, str, str]] = [
    # (image url in the vote file, item, A_model, B_model, chosen side)
    (CAT, "cat", "llava-13b", REF, "B"),
    (CAT, "cat", REF, "llava-13b", "B"),
    (CAT, "cat", "llava-13b", REF, "B"),
    (CAT, "cat", REF, "llava-13b", "B"),
    (CAT, "cat", REF, "llava-13b", "A"),
    (CAT, "cat", "instructblip", "llava-13b", "B"),
    (CAT, "cat", "llava-13b", "instructblip", "A"),
    (CAT, "cat", "instructblip", "llava-13b", "A"),
    (CAT, "cat", "instructblip", "llava-13b", "B"),
    (CAT, "cat", "llava-13b", "instructblip", "A"),
    *[(SIGN_RAW, "sign", "llava-13b", REF, "B")] * 3,
    *[(SIGN_RAW, "sign", REF, "llava-13b", "A")] * 2,
    (CHART, "chart", "instructblip", REF, "A"),
    (CHART, "chart", REF, "instructblip", "A"),
    (CHART, "chart", "instructblip", REF, "A"),
    (CHART, "chart", "instructblip", REF, "B"),
    (CHART, "chart", REF, "instructblip", "A"),
    (CHART, "chart", "llava-13b", "instructblip", "A"),
    (CHART, "chart", "instructblip", "llava-13b", "B"),
    (CHART, "chart", "llava-13b", "instructblip", "B"),
    (CHART, "chart", "instructblip", "llava-13b", "B"),
    (CHART, "chart", "llava-13b", "instructblip", "B"),
]
"""25 votes. By pair: cat llava-vs-ref 3 ref / 2 llava; cat blip-vs-llava 4 llava / 1 blip;
sign llava-vs-ref 5 ref; chart blip-vs-ref 2 blip / 3 ref; chart llava-vs-blip 3 llava / 2 blip."""


def visit_vote_matches() -> list[tuple[str, str, float]]:
    """The 25 votes as rating matches (A's player, B's player, 1 when A was chosen), in the
    file's order."""
    players = {REF: "reference"}
    return [
        (players.get(a, a), players.get(b, b), 1.0 if chosen == "A" else 0.0)
        for _, _, a, b, chosen in _VISIT_VOTES
    ]


WIDE_VOTES = """instance,A_model,B_model,v1,v2,v3,v4,v5
row-3,instructblip,reference,B,B,A,A,B
row-2,llava-13b,reference,B,B,B,B,B
row-1,instructblip,llava-13b,A,B,B,B,B
row-3,llava-13b,instructblip,B,A,A,A,B
row-1,llava-13b,reference,A,A,B,B,B
"""
"""The same 25 votes in our wide format, in another order (pairs and votes within a pair), so
the votes reach the ratings in a different order than from the VisIT file."""

_KEYS = {"cat": CAT, "sign": SIGN_ENCODED, "chart": CHART}


def _text(item: str, model: str) -> str:
    return REFERENCES[_KEYS[item]] if model == REF else ANSWERS[(item, model)]


def visit_votes(tmp_path: Path, extra_rows: list[list[str]] | None = None) -> Path:
    """The human-preference CSV (pandas layout) with the 25 votes, one unmatched row, one row
    with no single choice, then ``extra_rows``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            *["", "image_url", "instruction", "A", "B", "A_model", "B_model"],
            *["model_selection.A", "model_selection.B"],
        ]
    )
    rows = []
    for url, item, model_a, model_b, chosen in _VISIT_VOTES:
        instruction = " ".join(INSTRUCTIONS[_KEYS[item]].split())
        flags = ["TRUE", "FALSE"] if chosen == "A" else ["FALSE", "TRUE"]
        if len(rows) % 7 == 3:
            flags = [f.capitalize() for f in flags]  # pandas writes True/False
        rows.append(
            [url, instruction, _text(item, model_a), _text(item, model_b), model_a, model_b, *flags]
        )
    rows.append([HOST + "dog_1.jpg", "Name the breed.", "x", "y", "m1", "m2", "TRUE", "FALSE"])
    rows.append([CHART, INSTRUCTIONS[CHART], "z", "w", "llava-13b", REF, "FALSE", "FALSE"])
    for number, row in enumerate(rows + (extra_rows or [])):
        writer.writerow([str(number), *row])
    path = tmp_path / "visit_bench_human_preferences.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def jsonl_dataset(tmp_path: Path) -> Path:
    """Two items keyed by question id (101, 102), as a LLaVA-Bench-like JSONL."""
    records = [
        {"id": "101", "question": "What is in the bowl?", "image": HOST + "bowl.jpg"},
        {"id": "102", "question": "Read the sign.", "image": HOST + "sign.jpg"},
    ]
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records))
    return path


def _conversation(question: str, *answers: str) -> list[dict[str, str]]:
    messages = []
    for answer in answers:
        messages.append({"role": "user", "content": question})
        messages.append({"role": "assistant", "content": answer})
    return messages


def fastchat_records() -> list[dict[str, Any]]:
    """Judgment records: 5 turn-1 human votes on the two items, a turn-2 vote, a GPT-4 pair
    judgment (judge as a list) and a vote on an unknown question."""
    bowl_a = _conversation("What is in the bowl?", "Ramen, with an egg.", "Yes.")
    bowl_b = _conversation("What is in the bowl?", "Soup.\n汤。", "No.")
    sign_a = _conversation("Read the sign.", 'It says "STOP".')
    sign_b = _conversation("Read the sign.", "Stop, 停.")

    def vote(qid: int, a: str, b: str, winner: str, judge: Any, turn: int = 1) -> dict[str, Any]:
        conv_a, conv_b = (bowl_a, bowl_b) if qid == 101 else (sign_a, sign_b)
        return {
            "question_id": qid,
            "model_a": a,
            "model_b": b,
            "winner": winner,
            "judge": judge,
            "conversation_a": conv_a,
            "conversation_b": conv_b,
            "turn": turn,
        }

    return [
        vote(101, "gpt-4", "vicuna-13b", "model_a", "expert_0"),
        vote(101, "gpt-4", "vicuna-13b", "model_a", "author_2"),
        vote(101, "gpt-4", "vicuna-13b", "tie (bothbad)", "expert_7"),
        vote(101, "gpt-4", "vicuna-13b", "model_b", "expert_0", turn=2),
        vote(102, "claude-v1", "gpt-4", "model_b", "expert_0"),
        vote(102, "claude-v1", "gpt-4", "model_a", "expert_3"),
        vote(102, "claude-v1", "gpt-4", "model_b", ["gpt-4", "pair-v2"]),
        vote(999, "gpt-4", "vicuna-13b", "model_a", "expert_0"),
    ]


def write_fastchat(tmp_path: Path, kind: str, records: list[dict[str, Any]]) -> Path:
    """The records as a JSON array, JSON Lines or a pandas-style CSV (lists as Python
    literals, as ``DataFrame.to_csv`` writes them)."""
    path = tmp_path / f"human_judgments.{kind}"
    if kind == "json":
        path.write_text(json.dumps(records, indent=1, ensure_ascii=False), encoding="utf-8")
    elif kind == "jsonl":
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    else:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["", *records[0]])
        for number, record in enumerate(records):
            cells = [v if isinstance(v, str) else repr(v) for v in record.values()]
            writer.writerow([str(number), *cells])
        path.write_text(out.getvalue(), encoding="utf-8")
    return path


def battles() -> list[dict[str, Any]]:
    """Three judged pairs on the VisIT items: one both orders for llava (with the *_in_cot
    lists), one reference win both orders, one split into a win and a tie; plus one battle whose
    second winner is unreadable."""

    def battle(url: str, item: str, a: str, b: str, results: list[str]) -> dict[str, Any]:
        return {
            "A_model": a,
            "B_model": b,
            "A": _text(item, a),
            "B": _text(item, b),
            "image_url": url,
            "instruction": INSTRUCTIONS[_KEYS[item]],
            "instruction_category": item,
            "engine": "gpt-4-0314",
            "evaluated_with_reference": False,
            "auto_evaluation_result": results,
            "auto_evaluation_cot": [f"Query 1 reasoning about {a}.", "Query 2 reasoning."],
        }

    first = battle(CAT, "cat", "instructblip", "llava-13b", ["llava-13b", "llava-13b"])
    first["A_model_in_cot"] = ["llava-13b", "instructblip"]
    first["B_model_in_cot"] = ["instructblip", "llava-13b"]
    return [
        first,
        battle(CAT, "cat", "llava-13b", REF, [REF, REF]),
        battle(CHART, "chart", "llava-13b", "instructblip", ["llava-13b", "Tie"]),
        battle(SIGN_ENCODED, "sign", REF, "llava-13b", [REF, "I cannot decide"]),
    ]


ARENA_MODELS = ("vicuna-13b", "koala-13b", "alpaca-13b", "llama-13b")
"""The players of :func:`arena_battles`, strongest first."""


def arena_battles(n: int = 60, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` Chatbot Arena battles on the two items of :func:`jsonl_dataset` (question ids
    "101" and "102"), fought in file order (rising ``tstamp``): the stronger model usually
    wins, about one in six is a tie (some ``tie (bothbad)``), sides and voters mixed."""
    rng = random.Random(seed)
    records = []
    for number in range(n):
        a, b = rng.sample(ARENA_MODELS, 2)
        roll = rng.random()
        stronger = "model_a" if ARENA_MODELS.index(a) < ARENA_MODELS.index(b) else "model_b"
        weaker = "model_b" if stronger == "model_a" else "model_a"
        winner = stronger if roll < 0.6 else weaker if roll < 0.83 else "tie"
        if winner == "tie" and rng.random() < 0.4:
            winner = "tie (bothbad)"
        qid = rng.choice(("101", "102"))
        question = "What is in the bowl?" if qid == "101" else "Read the sign."
        records.append(
            {
                "question_id": qid,
                "model_a": a,
                "model_b": b,
                "winner": winner,
                "judge": f"arena_user_{rng.randrange(12)}",
                "conversation_a": _conversation(question, f"{a} answers."),
                "conversation_b": _conversation(question, f"{b} answers."),
                "turn": 1,
                "anony": True,
                "language": "English",
                "tstamp": 1682351591.0 + 37.5 * number,
            }
        )
    return records


MT_BENCH_QUESTIONS = {
    81: ("writing", "Compose an engaging travel blog post about a recent trip to Hawaii."),
    82: ("writing", "Draft a professional email seeking your supervisor's feedback."),
    83: ("writing", "Imagine you are writing a blog post comparing two smartphone models."),
}


def mt_bench_questions(tmp_path: Path) -> Path:
    """MT-bench's three first writing questions as JSONL items keyed by ``question_id``."""
    path = tmp_path / "mt_bench_questions.jsonl"
    lines = [
        json.dumps({"question_id": qid, "category": category, "question": text})
        for qid, (category, text) in MT_BENCH_QUESTIONS.items()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _mt_vote(qid: int, a: str, b: str, winner: str, judge: Any, turn: int = 1) -> dict[str, Any]:
    """One record; each conversation holds both MT-bench turns, as in the file."""
    question = MT_BENCH_QUESTIONS[qid][1]
    return {
        "question_id": qid,
        "model_a": a,
        "model_b": b,
        "winner": winner,
        "judge": judge,
        "conversation_a": _conversation(question, f"{a} on {qid}.", f"{a} again."),
        "conversation_b": _conversation(question, f"{b} on {qid}.", f"{b} again."),
        "turn": turn,
    }


def mt_bench_human() -> list[dict[str, Any]]:
    """The ``human`` split's records (turn 1 in sorted-model terms, worked by hand in
    ``tests/judging/test_annotator_groups.py``):

    - 81, alpaca-13b vs gpt-4: expert_0 gpt-4, expert_12 gpt-4, author_3 alpaca, expert_0
      again tie; and expert_0's turn-2 vote;
    - 82, claude-v1 vs vicuna-13b: author_1 claude, author_3 claude (written as vicuna vs
      claude, model_b), expert_5 ``tie (bothbad)``;
    - 83, gpt-3.5-turbo vs gpt-4: expert_5 gpt-3.5 (written gpt-4 first), expert_12 gpt-3.5,
      author_2 gpt-4;
    - 81, alpaca-13b vs vicuna-13b: author_2 alone, vicuna."""
    return [
        _mt_vote(81, "gpt-4", "alpaca-13b", "model_a", "expert_0"),
        _mt_vote(81, "alpaca-13b", "gpt-4", "model_b", "expert_12"),
        _mt_vote(81, "alpaca-13b", "gpt-4", "model_a", "author_3"),
        _mt_vote(81, "alpaca-13b", "gpt-4", "tie", "expert_0"),
        _mt_vote(81, "alpaca-13b", "gpt-4", "model_a", "expert_0", turn=2),
        _mt_vote(82, "claude-v1", "vicuna-13b", "model_a", "author_1"),
        _mt_vote(82, "vicuna-13b", "claude-v1", "model_b", "author_3"),
        _mt_vote(82, "claude-v1", "vicuna-13b", "tie (bothbad)", "expert_5"),
        _mt_vote(83, "gpt-4", "gpt-3.5-turbo", "model_b", "expert_5"),
        _mt_vote(83, "gpt-3.5-turbo", "gpt-4", "model_a", "expert_12"),
        _mt_vote(83, "gpt-3.5-turbo", "gpt-4", "model_b", "author_2"),
        _mt_vote(81, "alpaca-13b", "vicuna-13b", "model_b", "author_2"),
    ]


MT_BENCH_JUDGE = {81: "gpt-4", 82: "claude-v1", 83: "tie"}
"""GPT-4's pair verdict per question (turn 1): the winner, or a tie."""


def mt_bench_gpt4_pair() -> list[dict[str, Any]]:
    """The ``gpt4_pair`` split's records on the voted pairs (one per pair and turn)."""
    pairs = {
        81: ("alpaca-13b", "gpt-4"),
        82: ("claude-v1", "vicuna-13b"),
        83: ("gpt-4", "gpt-3.5-turbo"),
    }
    records = []
    for qid, (a, b) in pairs.items():
        said = MT_BENCH_JUDGE[qid]
        winner = "tie" if said == "tie" else "model_a" if said == a else "model_b"
        records.append(_mt_vote(qid, a, b, winner, ["gpt-4", "pair-v2"]))
    return records


MT_BENCH_TURNS = {
    81: (
        "Compose an engaging travel blog post about a recent trip to Hawaii.",
        "Rewrite your previous response. Start every sentence with the letter A.",
    ),
    82: (
        "Draft a professional email seeking your supervisor's feedback.",
        "Take a moment to evaluate and critique your own response.",
    ),
}
"""Two MT-bench questions with their two turns, as ``question.jsonl`` has them."""


def _two_turn_vote(
    qid: int, a: str, b: str, winner: str, judge: Any, turn: int = 1
) -> dict[str, Any]:
    """A record whose conversations hold both turns (four messages), as the file has them."""

    def conversation(model: str) -> list[dict[str, str]]:
        first, second = MT_BENCH_TURNS[qid]
        return [
            {"role": "user", "content": first},
            {"role": "assistant", "content": f"{model}'s answer to {qid}."},
            {"role": "user", "content": second},
            {"role": "assistant", "content": f"{model}'s second answer to {qid}."},
        ]

    return {
        "question_id": qid,
        "model_a": a,
        "model_b": b,
        "winner": winner,
        "judge": judge,
        "conversation_a": conversation(a),
        "conversation_b": conversation(b),
        "turn": turn,
    }


def mt_bench_two_turns() -> list[dict[str, Any]]:
    """``human_judgments.json`` records on both turns (sorted players: alpaca-13b < gpt-4 <
    vicuna-13b), worked by hand in ``tests/datasets/test_fastchat_alone.py``:

    - turn 1, 81 alpaca/gpt-4: expert_0 gpt-4 (written gpt-4 first), expert_1 gpt-4, expert_0
      again tie; 82 gpt-4/vicuna: expert_1 vicuna, author_0 vicuna;
    - turn 2, 81: expert_0 alpaca, expert_1 gpt-4; 82: expert_1 tie."""
    return [
        _two_turn_vote(81, "gpt-4", "alpaca-13b", "model_a", "expert_0"),
        _two_turn_vote(81, "alpaca-13b", "gpt-4", "model_b", "expert_1"),
        _two_turn_vote(81, "alpaca-13b", "gpt-4", "tie", "expert_0"),
        _two_turn_vote(82, "gpt-4", "vicuna-13b", "model_b", "expert_1"),
        _two_turn_vote(82, "gpt-4", "vicuna-13b", "model_b", "author_0"),
        _two_turn_vote(81, "alpaca-13b", "gpt-4", "model_a", "expert_0", turn=2),
        _two_turn_vote(81, "alpaca-13b", "gpt-4", "model_b", "expert_1", turn=2),
        _two_turn_vote(82, "gpt-4", "vicuna-13b", "tie", "expert_1", turn=2),
    ]


def mt_bench_two_turns_gpt4() -> list[dict[str, Any]]:
    """``gpt4_pair_judgments.json`` on the same pairs: turn 1 81 gpt-4, 82 gpt-4; turn 2 81
    alpaca, 82 tie (its multi-turn prompt named as FastChat names it)."""
    single, multi = ["gpt-4", "pair-v2"], ["gpt-4", "pair-v2-multi-turn"]
    return [
        _two_turn_vote(81, "alpaca-13b", "gpt-4", "model_b", single),
        _two_turn_vote(82, "gpt-4", "vicuna-13b", "model_a", single),
        _two_turn_vote(81, "alpaca-13b", "gpt-4", "model_a", multi, turn=2),
        _two_turn_vote(82, "gpt-4", "vicuna-13b", "tie", multi, turn=2),
    ]
