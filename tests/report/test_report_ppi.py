"""The report's human-votes section shows each model's win rate vs the reference by the judge,
by the people and by PPI++ (tests/ppi_world.py, worked by hand there), the figures
`lvlmbench agreement BENCH -j JUDGE --json` prints; and the AutoBench-V alignment section the
self-check corrected by people's image checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ppi_world import BENCH, JUDGE, MODEL, OTHER, PPI, build_ppi_store
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
