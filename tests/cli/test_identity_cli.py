"""A model's identity in the store, end to end through the CLI against local OpenAI servers:
one model name on two endpoints is two examinees, output-changing options split identities,
option specs find their own rows, and a misspelt or malformed option is refused before any
request or store write."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.models import model_identity
from lvlmbench.store import Store, iter_responses, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

runner = CliRunner()
BENCH = "letters"
N_ITEMS = 4


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with one multiple-choice benchmark whose every key is A."""
    path = tmp_path / "s.db"
    store = Store.open(str(path))
    put_benchmark(store, BENCH, "imported", {"source": "test"})
    put_items(
        store,
        [
            BenchmarkItem(
                id=f"q{i}",
                benchmark=BENCH,
                question=f"Which letter comes first in the alphabet? ({i})",
                kind="mc",
                options={"A": "a", "B": "b", "C": "c", "D": "d"},
                answer="A",
                meta={"difficulty": "easy"},
            )
            for i in range(N_ITEMS)
        ],
    )
    store.close()
    return path


def _says(letter: str) -> FakeOpenAIServer:
    return FakeOpenAIServer(answer=lambda prompt: f"Answer: {letter}")


def _evaluate(db: Path, *specs: str) -> dict[str, object]:
    models = [flag for spec in specs for flag in ("-m", spec)]
    result = runner.invoke(app, ["evaluate", BENCH, *models, "--store", str(db), "--json"])
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))


def _answers(db: Path, model: str) -> list[str | None]:
    store = Store.open(str(db))
    try:
        return sorted(r.extracted for r in iter_responses(store, model=model))  # type: ignore[type-var]
    finally:
        store.close()


def _rows(db: Path) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return {
            t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
            for t in ("responses", "judgments", "cache")
        }


def test_one_model_name_on_two_endpoints_gives_two_answer_sets(db: Path) -> None:
    with _says("A") as first, _says("B") as second:
        spec_a = f"openai/m?base_url={first.base_url}"
        spec_b = f"openai/m?base_url={second.base_url}/"  # a trailing slash is the same endpoint
        _evaluate(db, spec_a)
        report = _evaluate(db, spec_b)
        assert first.stats.requests == N_ITEMS and second.stats.requests == N_ITEMS
    (run,) = report["runs"]  # type: ignore[misc]
    assert run["skipped"] == 0 and run["ok"] == N_ITEMS  # B was asked, not "already done"
    assert _answers(db, model_identity(spec_a)) == ["A"] * N_ITEMS
    assert _answers(db, model_identity(spec_b)) == ["B"] * N_ITEMS
    assert _answers(db, "openai/m") == []
    (row,) = report["accuracy"]  # type: ignore[misc]
    assert row["model"] == model_identity(spec_b) and row["correct"] == 0


def test_max_tokens_is_part_of_the_identity(db: Path) -> None:
    with _says("C") as server:
        plain = f"openai/m?base_url={server.base_url}"
        _evaluate(db, plain)
        capped = _evaluate(db, f"{plain}&max_tokens=8&timeout=30")
        assert server.stats.requests == 2 * N_ITEMS
    (row,) = capped["accuracy"]  # type: ignore[misc]
    assert row["model"] == f"openai/m?base_url={server.base_url}&max_tokens=8"
    assert row["answered"] == N_ITEMS


def test_openai_base_url_from_the_environment_is_in_the_identity(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _says("A") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        report = _evaluate(db, "openai/m")
        assert server.stats.requests == N_ITEMS
    (row,) = report["accuracy"]  # type: ignore[misc]
    assert row["model"] == f"openai/m?base_url={server.base_url}"
    assert row["correct"] == N_ITEMS


def test_evaluate_with_an_option_spec_shows_its_rows(db: Path) -> None:
    with _says("A") as server:
        spec = f"openai/m?base_url={server.base_url}&max_tokens=16"
        data = _evaluate(db, spec)
        table = runner.invoke(app, ["evaluate", BENCH, "-m", spec, "--store", str(db)])
        assert server.stats.requests == N_ITEMS  # the second run found every answer stored
    assert [row["correct"] for row in data["accuracy"]] == [N_ITEMS]  # type: ignore[union-attr]
    assert table.exit_code == 0, table.output
    assert "openai/m" in table.output and "100.0" in table.output


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ("base_urll=http://127.0.0.1:9/v1", "unknown option 'base_urll'"),
        ("bogus=1", "unknown option 'bogus'"),
        ("timeout=abc", "option timeout='abc'"),
        ("max_tokens=0", "option max_tokens='0'"),
        ("max_tokens=-5", "option max_tokens='-5'"),
        ("base_url=", "option base_url=''"),
        ("base_url", "key=value"),
    ],
)
def test_bad_option_is_refused_before_any_call(db: Path, options: str, needle: str) -> None:
    before = _rows(db)
    with _says("A") as server:
        good = f"openai/m?base_url={server.base_url}"
        result = runner.invoke(
            app,
            ["evaluate", BENCH, "-m", good, "-m", f"openai/m?{options}", "--store", str(db)],
        )
        assert server.stats.requests == 0
    assert result.exit_code == 2, result.output
    assert needle in result.output and "Traceback" not in result.output
    if "unknown option" in needle:
        assert (
            "valid options: api_key_env, base_url, deployment, json_mode, max_tokens, seed, "
            "system, temperature, timeout, top_p, param.<field>"
        ) in " ".join(result.output.split())
    assert _rows(db) == before


def test_a_close_misspelling_gets_a_suggestion(db: Path) -> None:
    result = runner.invoke(
        app, ["evaluate", BENCH, "-m", "openai/m?base_urll=http://x/v1", "--store", str(db)]
    )
    assert result.exit_code == 2
    assert "did you mean 'base_url'?" in result.output


def test_a_bad_judge_option_is_refused_before_any_call(db: Path) -> None:
    before = _rows(db)
    with _says("A") as server:
        judge = f"openai/j?base_url={server.base_url}&max_token=5"
        result = runner.invoke(
            app,
            ["judge", "score", BENCH, "-m", "baseline/prior", "-j", judge, "--store", str(db)],
        )
        assert server.stats.requests == 0
    assert result.exit_code == 2 and "unknown option 'max_token'" in result.output
    assert "did you mean 'max_tokens'?" in result.output
    assert _rows(db) == before


def test_same_display_name_is_told_apart_in_the_table(db: Path) -> None:
    with _says("A") as first, _says("B") as second:
        specs = [f"openai/m?base_url={first.base_url}", f"openai/m?base_url={second.base_url}"]
        _evaluate(db, *specs)
        result = runner.invoke(
            app, ["evaluate", BENCH, "-m", specs[0], "-m", specs[1], "--store", str(db)]
        )
    assert result.exit_code == 0, result.output
    assert f"openai/m (127.0.0.1:{first.port})" in result.output
    assert f"openai/m (127.0.0.1:{second.port})" in result.output
    table_rows = [line for line in result.output.splitlines() if "│" in line]
    assert len(table_rows) == 2 and not any("base_url=" in line for line in table_rows)


def test_a_misspelt_option_does_not_even_create_the_store(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.db"
    for args in (
        ["evaluate", BENCH, "-m", "openai/m?bogus=1"],
        [
            *("judge", "pairwise", BENCH, "-m", "baseline/prior", "-m", "baseline/random"),
            *("-j", "openai/j?base_urll=http://127.0.0.1:9/v1"),
        ],
        ["judge", "hallucination", BENCH, "-m", "openai/m?timeout=abc", "-j", "baseline/prior"],
    ):
        result = runner.invoke(app, [*args, "--store", str(fresh)])
        assert result.exit_code == 2 and "option" in result.output, result.output
    assert not fresh.exists()
