"""Judges corrected by people: the PPI++ figures of judging.corrected on hand-worked stores
(tests/ppi_world.py: a VisIT-Bench-like win rate; below: AutoBench-V's self-check)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from ppi_world import (
    BENCH,
    CHECKED,
    JUDGE,
    MODEL,
    OTHER,
    PPI,
    PPI_SE,
    build_checked_store,
    build_ppi_store,
)
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.judging import (
    IMAGE_CHECK,
    SELF_CHECK,
    choose_annotators,
    corrected_alignment,
    corrected_win_rates,
    pairwise_report,
)
from lvlmbench.store import put_items, put_judgments, set_excluded
from lvlmbench.types import BenchmarkItem, Judgment

runner = CliRunner()


def test_win_rate_vs_reference_corrected_by_votes(tmp_path: Path) -> None:
    store = build_ppi_store(tmp_path / "s.db")
    figures = corrected_win_rates(
        store, BENCH, JUDGE, protocol="pairwise", annotators=choose_annotators(store, BENCH)
    )
    assert [f.subject for f in figures] == [MODEL, OTHER]
    got = figures[0]
    assert (got.items, got.labels, got.refused) == (10, 4, None)
    assert got.result is not None
    assert got.result.weight == pytest.approx(0.15)
    assert got.result.corrected.estimate == pytest.approx(PPI)
    assert got.result.corrected.std_error == pytest.approx(PPI_SE, abs=1e-7)
    # −0.089 and 1.389 clipped to the rates there are.
    assert (got.result.corrected.low, got.result.corrected.high) == (0.0, 1.0)
    assert got.result.human_only.estimate == pytest.approx(0.625)  # an item's votes average
    # The judge's own figure is the win rate `rate` prints (a tie is not a win).
    rated = pairwise_report(store, BENCH, JUDGE).win_rates[MODEL]
    assert got.result.judge_only.estimate == pytest.approx(rated.rate) == pytest.approx(0.6)
    assert got.as_dict()["estimator"] == "ppi++" and got.as_dict()["n_labels"] == 4
    unvoted = figures[1]
    assert unvoted.result is None and unvoted.labels == 0 and unvoted.items == 10
    assert unvoted.refused is not None and "has 0 and 10" in unvoted.refused


def test_excluded_annotators_count_in_no_ppi_figure(tmp_path: Path) -> None:
    store = build_ppi_store(tmp_path / "s.db")
    set_excluded(store, "crowd-2", True)
    got = corrected_win_rates(
        store, BENCH, JUDGE, protocol="pairwise", annotators=choose_annotators(store, BENCH)
    )[0]
    # crowd-2 voted only on v0 (win) and v2 (tie): y becomes 1, 0, 1, 1.
    assert got.result is not None and got.result.human_only.estimate == pytest.approx(0.75)


def test_self_check_alignment_corrected_by_image_checks(tmp_path: Path) -> None:
    got = corrected_alignment(build_checked_store(tmp_path / "ab.db"), CHECKED)
    assert got is not None and got.result is not None
    assert (got.figure, got.judge, got.items, got.labels) == (IMAGE_CHECK, SELF_CHECK, 10, 4)
    corrected = got.result.corrected
    assert got.result.weight == pytest.approx(0.6)
    assert corrected.estimate == pytest.approx(0.8)
    assert corrected.std_error == pytest.approx(math.sqrt(333 / 14400))
    assert corrected.cluster == "fine aspect" and corrected.n_clusters == 3
    assert corrected.high == 1.0  # 0.8 + 0.654 clipped
    assert corrected.low == pytest.approx(0.8 - 0.6543006, abs=1e-6)
    assert got.result.judge_only.estimate == pytest.approx(0.8)  # mean alignment
    assert got.result.human_only.estimate == pytest.approx(0.75)


def test_no_image_checks_no_alignment_figure(tmp_path: Path) -> None:
    store = build_ppi_store(tmp_path / "s.db")
    assert corrected_alignment(store, BENCH) is None


def test_agreement_prints_the_ppi_figures_and_their_json(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    build_ppi_store(db).close()
    args = ["agreement", BENCH, "-j", JUDGE, "--store", str(db)]
    printed = runner.invoke(app, args, terminal_width=200)
    assert printed.exit_code == 0, printed.output
    row = next(line for line in printed.output.splitlines() if line.startswith(f"│ {MODEL}"))
    cells = [cell.strip() for cell in row.strip("│").split("│")]
    assert cells == [
        MODEL,
        "10",
        "60.0% [31.3, 83.2]",
        "4",
        "62.5% [0.0, 100.0]",
        "65.0% [0.0, 100.0]",
        "0.15",
    ]
    assert "has 0 and 10" in printed.output  # m/b: no votes, no PPI figure, and why
    as_json = runner.invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    ppi = json.loads(as_json.output)["ppi"]
    assert [f["subject"] for f in ppi] == [MODEL, OTHER]
    first = ppi[0]
    assert (first["estimator"], first["n_labels"], first["n_items"]) == ("ppi++", 4, 10)
    assert first["lambda"] == pytest.approx(0.15)
    assert first["corrected"]["estimate"] == pytest.approx(PPI)
    assert first["judge_only"]["estimate"] == pytest.approx(0.6)
    assert first["human_only"]["n_items"] == 4
    assert ppi[1]["corrected"] is None and ppi[1]["refused"]


def test_api_agreement_carries_the_same_figures(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    build_ppi_store(db).close()
    found = api.agreement(BENCH, JUDGE, store=str(db))
    assert [f.subject for f in found.corrected] == [MODEL, OTHER]
    result = found.corrected[0].result
    assert result is not None and result.corrected.estimate == pytest.approx(PPI)
    people = api.agreement(BENCH, "human", store=str(db))
    assert people.corrected == ()  # people with each other: nothing to correct


def test_agreement_self_check_prints_the_corrected_alignment(tmp_path: Path) -> None:
    db = tmp_path / "ab.db"
    build_checked_store(db).close()
    args = ["agreement", CHECKED, "-j", SELF_CHECK, "--store", str(db)]
    printed = runner.invoke(app, args, terminal_width=200)
    assert printed.exit_code == 0, printed.output
    row = next(line for line in printed.output.splitlines() if line.startswith(f"│ {CHECKED}"))
    # Judge only: 0.8 with cluster sums 0.3, 0.1, −0.4: se √(3/2 · 0.26/100) = 0.0624500,
    # t(0.975, 2) · se = 0.2687: [53.1, 106.9] clipped. PPI++ as worked in tests/ppi_world.py.
    assert [c.strip() for c in row.strip("│").split("│")] == [
        CHECKED,
        "10",
        "80.0% [53.1, 100.0]",
        "4",
        "75.0% [0.0, 100.0]",
        "80.0% [14.6, 100.0]",
        "0.60",
    ]
    as_json = json.loads(runner.invoke(app, [*args, "--json"]).output)
    (figure,) = as_json["ppi"]
    assert (figure["estimator"], figure["n_labels"], figure["n_items"]) == ("ppi++", 4, 10)
    assert figure["corrected"]["cluster"] == "fine aspect"
    found = api.agreement(CHECKED, SELF_CHECK, store=str(db))
    assert found.corrected[0].as_dict() == figure


def test_agreement_self_check_without_image_checks_says_so(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    build_ppi_store(db).close()
    printed = runner.invoke(app, ["agreement", BENCH, "-j", SELF_CHECK, "--store", str(db)])
    assert printed.exit_code == 2
    assert "no person answered the image check on 'visit-ppi'" in printed.output


def test_votes_on_items_the_judge_skipped_are_counted_and_left_out(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = build_ppi_store(db)
    extra = BenchmarkItem(id="v10", benchmark=BENCH, question="Describe 10.", reference="ref")
    put_items(store, [extra])
    put_judgments(
        store,
        [
            Judgment(
                item_id="v10",
                judge="human:crowd-1",
                protocol="human",
                model_a=MODEL,
                model_b="reference",
                verdict="b",
            )
        ],
    )
    store.close()
    found = api.agreement(BENCH, JUDGE, store=str(db))
    got = found.corrected[0]
    assert (got.items, got.labels, got.labels_unjudged) == (10, 4, 1)
    assert got.result is not None and got.result.corrected.estimate == pytest.approx(PPI)
    printed = runner.invoke(app, ["agreement", BENCH, "-j", JUDGE, "--store", str(db)])
    assert f"{MODEL}: 1 voted item(s) the judge did not judge" in printed.output
