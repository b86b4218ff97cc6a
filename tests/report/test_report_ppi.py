"""The report's human-votes section shows each model's win rate vs the reference by the judge,
by the people and by PPI++ (tests/ppi_world.py, worked by hand there), the figures
`lvlmbench agreement BENCH -j JUDGE --json` prints; and the AutoBench-V alignment section the
self-check corrected by people's image checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ppi_world import BENCH, CHECKED, JUDGE, MODEL, OTHER, PPI, build_checked_store, build_ppi_store
from report.cells import cell, section
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.report import write_report

runner = CliRunner()


def test_human_votes_section_shows_the_ppi_figures(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    store = build_ppi_store(db)
    try:
        files = write_report(store, tmp_path / "out" / "report.html", gallery_size=0)
    finally:
        store.close()
    summary = json.loads(files.summary.read_text(encoding="utf-8"))
    (bench,) = summary["benchmarks"]
    (entry,) = bench["human"]
    printed = runner.invoke(app, ["agreement", BENCH, "-j", JUDGE, "--store", str(db), "--json"])
    assert printed.exit_code == 0, printed.output
    assert entry["ppi"] == json.loads(printed.output)["ppi"]
    assert entry["ppi"][0]["corrected"]["estimate"] == pytest.approx(PPI)
    html = section(files.html.read_text(encoding="utf-8"), BENCH)
    assert cell(html, ppi=MODEL, ppi_judge=JUDGE) == "65.0 [0.0, 100.0]"
    assert "has 0 and 10" in cell(html, ppi=OTHER, ppi_judge=JUDGE)
    assert "PPI++" in html and "60.0 [31.3, 83.2]" in html  # the judge's own figure beside


def test_alignment_section_shows_the_self_check_corrected_by_people(tmp_path: Path) -> None:
    store = build_checked_store(tmp_path / "ab.db")
    try:
        files = write_report(store, tmp_path / "out" / "report.html", gallery_size=0)
    finally:
        store.close()
    summary = json.loads(files.summary.read_text(encoding="utf-8"))
    (bench,) = summary["benchmarks"]
    figure = bench["ab_experiments"]["alignment"]["self_check"]
    assert (figure["estimator"], figure["n_labels"], figure["n_items"]) == ("ppi++", 4, 10)
    assert figure["lambda"] == pytest.approx(0.6)  # worked by hand in tests/ppi_world.py
    assert figure["corrected"]["cluster"] == "fine aspect"
    html = section(files.html.read_text(encoding="utf-8"), CHECKED)
    # 0.8 − 0.6543006 = 0.1456994; the high end 1.454 clipped.
    assert cell(html, ppi="self-check") == "80.0 [14.6, 100.0]"
    assert "cluster-robust by fine aspect" in html
