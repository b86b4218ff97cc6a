"""Judge, rate, agreement and report commands never finish "successfully" with nothing done:
an empty or all-missing work set is an exit code and one line saying why. And a judge spec with
options stores and finds its caption-assisted references under one name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.models import model_identity
from lvlmbench.store import (
    Store,
    iter_judgments,
    iter_responses,
    put_benchmark,
    put_items,
    put_judgments,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, Judgment, Response

runner = CliRunner()
BENCH = "scenes"
N_ITEMS = 3
EXAMINEES = ["baseline/prior", "baseline/random"]


def _judge_reply(prompt: str) -> str:
    """A judge that follows each protocol's output format (read from the prompt it is sent)."""
    if "Hallucination score" in prompt:
        return "Hallucination score: 2"
    if "Assistant 1" in prompt:
        return "8 6\nThe first is closer to the reference."
    if "Response A" in prompt:
        return "Both are plausible. [[A]]"
    return "A caption-assisted reference: a cat sits on a mat."


@pytest.fixture
def judge() -> FakeOpenAIServer:
    with FakeOpenAIServer(answer=_judge_reply) as server:
        yield server


def _store(path: Path, *, captions: bool = True, references: bool = True) -> list[str]:
    store = Store.open(str(path))
    put_benchmark(store, BENCH, "imported", {"source": "test"})
    put_items(
        store,
        [
            BenchmarkItem(
                id=f"s{i}",
                benchmark=BENCH,
                question=f"Describe the picture ({i}).",
                caption=f"A cat sits on a mat ({i})." if captions else None,
                reference=f"A cat on a mat ({i})." if references else None,
                category="description",
            )
            for i in range(N_ITEMS)
        ],
    )
    store.close()
    return ["--store", str(path)]


def _invoke(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def test_score_with_an_option_judge_finds_its_references(
    tmp_path: Path, judge: FakeOpenAIServer
) -> None:
    db = _store(tmp_path / "s.db")
    spec = f"openai/j?base_url={judge.base_url}&timeout=30"
    args = ["judge", "score", BENCH, "-m", EXAMINEES[0], "-j", spec, "--json", *db]
    args.append("--regenerate-reference")  # the judge writes the caption-assisted reference
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    identity = model_identity(spec)
    assert identity == f"openai/j?base_url={judge.base_url}"  # timeout is not identity
    assert data["reference"] == f"reference:{identity}"
    (row,) = data["scores"]
    # "8 6" in both orders: the examinee gets 8 shown first and 6 shown second.
    assert row["items"] == N_ITEMS and row["score"] == pytest.approx(700.0)
    assert data["run"]["ok"] == 2 * N_ITEMS and data["run"]["missing"] == 0
    store = Store.open(db[1])
    assert len(list(iter_responses(store, model=f"reference:{identity}"))) == N_ITEMS
    store.close()


def _empty_answers(db: list[str], model: str) -> None:
    """``model`` "answered" every item with nothing (ok status, so it is not asked again)."""
    store = Store.open(db[1])
    put_responses(store, [Response(item_id=f"s{i}", model=model, text=" ") for i in range(N_ITEMS)])
    store.close()


def test_pairwise_with_an_examinee_without_answers_fails(
    tmp_path: Path, judge: FakeOpenAIServer
) -> None:
    db = _store(tmp_path / "s.db")
    _empty_answers(db, EXAMINEES[0])
    models = [flag for m in EXAMINEES for flag in ("-m", m)]
    spec = f"openai/j?base_url={judge.base_url}"
    code, out = _invoke(["judge", "pairwise", BENCH, *models, "-j", spec, *db])
    assert code == 1
    assert f"no answers of {EXAMINEES[0]} to judge on 'scenes' (all {N_ITEMS} missing)" in out
    assert judge.stats.requests == 0


def test_pairwise_without_references_has_nothing_to_judge(
    tmp_path: Path, judge: FakeOpenAIServer
) -> None:
    db = _store(tmp_path / "s.db", references=False)
    models = [flag for m in EXAMINEES for flag in ("-m", m)]
    spec = f"openai/j?base_url={judge.base_url}"
    code, out = _invoke(["judge", "pairwise", BENCH, *models, "-j", spec, *db])
    assert code == 1
    assert "had nothing to judge on 'scenes'" in out and "lacks an answer" in out


def test_score_of_an_examinee_without_answers_fails(
    tmp_path: Path, judge: FakeOpenAIServer
) -> None:
    db = _store(tmp_path / "s.db")
    _empty_answers(db, EXAMINEES[1])
    spec = f"openai/j?base_url={judge.base_url}"
    code, out = _invoke(["judge", "score", BENCH, "-m", EXAMINEES[1], "-j", spec, *db])
    assert code == 1 and f"no answers of {EXAMINEES[1]}" in out


def test_hallucination_without_captions_fails(tmp_path: Path, judge: FakeOpenAIServer) -> None:
    db = _store(tmp_path / "s.db", captions=False)
    spec = f"openai/j?base_url={judge.base_url}"
    code, out = _invoke(["judge", "hallucination", BENCH, "-m", EXAMINEES[0], "-j", spec, *db])
    assert code == 1
    assert f"every unit ({N_ITEMS}) lacks an answer, caption or reference" in out
    assert judge.stats.requests == 0


def test_judge_on_a_benchmark_without_items_is_exit_2(tmp_path: Path) -> None:
    db = ["--store", str(tmp_path / "s.db")]
    store = Store.open(db[1])
    put_benchmark(store, "hollow", "imported", {})
    store.close()
    code, out = _invoke(
        ["judge", "pairwise", "hollow", "-m", "baseline/prior", "-j", "baseline/prior", *db]
    )
    assert code == 2 and "benchmark 'hollow' has no items" in out


def test_metrics_with_an_option_spec_reads_its_rows(tmp_path: Path) -> None:
    pytest.importorskip("rouge_score")
    db = _store(tmp_path / "s.db")
    spec = "openai/m?base_url=http://127.0.0.1:9/v1&timeout=5"
    store = Store.open(db[1])
    put_responses(
        store,
        [
            Response(item_id=f"s{i}", model=model_identity(spec), text=f"A cat on a mat ({i}).")
            for i in range(N_ITEMS)
        ],
    )
    store.close()
    args = ["judge", "metrics", BENCH, "-m", spec, "--metric", "rougeL", "--json", *db]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    (score,) = json.loads(result.stdout)["scores"]
    assert score["model"] == model_identity(spec) and score["n"] == N_ITEMS
    code, out = _invoke(["judge", "metrics", BENCH, "-m", "openai/other?base_url=http://h/v1", *db])
    assert code == 2 and "no ok responses of openai/other?base_url=http://h/v1" in out


def _pairwise_rows(db: list[str], judge: str, benchmark_items: list[str]) -> None:
    store = Store.open(db[1])
    put_judgments(
        store,
        [
            Judgment(
                item_id=item,
                judge=judge,
                protocol="pairwise-ref",
                model_a=EXAMINEES[0],
                model_b=EXAMINEES[1],
                order=order,
                verdict="a",
            )
            for item in benchmark_items
            for order in ("ab", "ba")
        ],
    )
    store.close()


def test_rate_without_judgments_on_this_benchmark_fails(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.db")
    store = Store.open(db[1])
    put_items(store, [BenchmarkItem(id="o1", benchmark="other", question="Q?")])
    store.close()
    _pairwise_rows(db, "openai/j", ["o1"])  # the judge judged another benchmark only
    code, out = _invoke(["rate", BENCH, "-j", "openai/j", *db])
    assert code == 2 and "no pairwise-ref judgments by openai/j on benchmark 'scenes'" in out
    unknown = _invoke(["rate", BENCH, "-j", "openai/j?base_url=http://elsewhere:1/v1", *db])
    assert unknown[0] == 2 and "has no rows" in unknown[1]


def test_agreement_without_human_pairs_fails(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.db")
    _pairwise_rows(db, "openai/j", ["s0", "s1"])  # judged, but nobody voted
    code, out = _invoke(["agreement", BENCH, "-j", "openai/j", "--json", *db])
    assert code == 2 and "no pairs with human votes that openai/j judged" in out


def test_report_of_an_empty_store_fails(tmp_path: Path) -> None:
    out_file = tmp_path / "r.html"
    code, out = _invoke(["report", "--out", str(out_file), "--store", str(tmp_path / "e.db")])
    assert code == 2 and "has no benchmarks" in out
    db = _store(tmp_path / "s.db")
    code, out = _invoke(["report", "--out", str(out_file), *db])
    assert code == 2 and "no responses or judgments on scenes" in out
    assert not out_file.exists()


def test_report_with_responses_is_written(tmp_path: Path) -> None:
    db = _store(tmp_path / "s.db")
    _empty_answers(db, "baseline/prior")
    store = Store.open(db[1])
    assert not list(iter_judgments(store))
    store.close()
    out_file = tmp_path / "r.html"
    code, out = _invoke(["report", "--out", str(out_file), *db])
    assert code == 0, out
    assert out_file.exists()
