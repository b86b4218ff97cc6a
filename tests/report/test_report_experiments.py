"""Position-bias and leakage experiments run with `lvlmbench experiment` on a copy of the demo
store: the report shows the figures the command printed and the experiment functions return,
folds the re-keyed copies into their source's section, and shows nothing without the runs."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from report.cells import cell, section
from report.conftest import AUTOBENCH, Built
from typer.testing import CliRunner

from lvlmbench.autobench.experiments import leakage_figures, position_bias_figures
from lvlmbench.cli import app
from lvlmbench.cli.demo import DEMO_MODELS
from lvlmbench.report import write_report
from lvlmbench.store import Store

MODELS = DEMO_MODELS  # the demo already ran both experiments with these; the CLI reuses them


@dataclass(frozen=True)
class Experimented:
    store: Store
    html: str
    bias_json: list[dict[str, Any]]
    leakage_json: dict[str, Any]


def _copy_store(built: Built, folder: Path) -> Path:
    """The demo store's database (WAL included, via SQLite's backup) and images."""
    source = built.html_path.parent.parent
    shutil.copytree(source / "images", folder / "images")
    with (
        sqlite3.connect(source / "lvlmbench.db") as src,
        sqlite3.connect(folder / "lvlmbench.db") as dst,
    ):
        src.backup(dst)
    return folder / "lvlmbench.db"


def _experiment(*args: str) -> Any:
    result = CliRunner().invoke(app, ["experiment", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def experimented(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Experimented]:
    db = _copy_store(built, tmp_path_factory.mktemp("experiments"))
    models = [arg for m in MODELS for arg in ("--model", m)]
    bias = _experiment("position-bias", AUTOBENCH, *models, "--store", str(db))
    leak = _experiment("leakage", AUTOBENCH, *models, "--question-only", "--store", str(db))
    store = Store.open(str(db))
    files = write_report(store, db.parent / "report" / "report.html", gallery_size=0)
    yield Experimented(store, files.html.read_text(encoding="utf-8"), bias, leak)
    store.close()


def test_position_bias_cells_equal_the_figures(experimented: Experimented) -> None:
    html = section(experimented.html, AUTOBENCH)
    assert "<h3>Position bias</h3>" in html
    figures = position_bias_figures(experimented.store, AUTOBENCH, ["A", "D"], MODELS)
    assert len(figures) == 2 * len(MODELS)
    printed = {(f["model"], f["target"]): f for f in experimented.bias_json}
    for f in figures:
        assert cell(html, model=f.model, keys=f.target) == f"{100 * f.accuracy:.1f}"
        assert cell(html, model=f.model, bias=f.target) == f"{100 * f.rate:+.1f}"
        assert cell(html, model=f.model, keys="even") == f"{100 * f.even:.1f}"
        assert cell(html, model=f.model, n="mc") == str(f.n)
        ci = f"{100 * f.low:+.1f} … {100 * f.high:+.1f}"
        assert cell(html, model=f.model, bias_ci=f.target) == ci
        # ... and the command's own output says the same.
        assert printed[(f.model, f.target)]["bias_rate"] == pytest.approx(f.rate)
        assert (printed[(f.model, f.target)]["n"], f.seed) == (f.n, 0)
    oracle = [f for f in figures if f.model == "baseline/oracle"]
    assert all(f.rate == 0.0 and f.accuracy == 1.0 for f in oracle)  # reads the scene


def test_leakage_cells_equal_the_figures(experimented: Experimented) -> None:
    html = section(experimented.html, AUTOBENCH)
    assert "<h3>Answer leakage</h3>" in html
    figures, spread = leakage_figures(experimented.store, AUTOBENCH, MODELS)
    for f in figures:
        assert f.question_only is not None
        for key, value in (
            ("with_image", f.with_image),
            ("description_only", f.description_only),
            ("question_only", f.question_only),
        ):
            assert cell(html, model=f.model, leakage=key) == f"{100 * value:.1f}"
        assert cell(html, model=f.model, leakage="image_adds") == f"{100 * f.drop:+.1f}"
    expected_std = f'<span data-figure="description_only_std">{100 * spread:.1f}</span>'
    assert expected_std in html
    assert experimented.leakage_json["description_only_std"] == pytest.approx(spread)


def test_experiment_charts_parse_and_carry_the_numbers(experimented: Experimented) -> None:
    html = section(experimented.html, AUTOBENCH)
    svgs = {
        ET.fromstring(s).findtext("title"): s for s in re.findall(r"<svg\b.*?</svg>", html, re.S)
    }
    bias = next(s for t, s in svgs.items() if t and t.startswith("bias rate"))
    for f in position_bias_figures(experimented.store, AUTOBENCH, ["A", "D"], MODELS):
        assert f"<title>keys at {f.target} / {f.model}: {100 * f.rate:.1f}%</title>" in bias
    leak = svgs["accuracy % by input"]
    for f in leakage_figures(experimented.store, AUTOBENCH, MODELS)[0]:
        assert f"<title>description only / {f.model}: {100 * f.description_only:.1f}%" in leak


def test_rekeyed_copies_fold_into_their_source(experimented: Experimented) -> None:
    sections = re.findall(r'<section id="([^"]*)">', experimented.html)
    assert AUTOBENCH in sections
    assert not [s for s in sections if "@keys-" in s]
    # Asked for by name, a copy still gets a section of its own.
    store = experimented.store
    out = Path(store.images_dir).parent / "copy" / "report.html"
    files = write_report(store, out, [f"{AUTOBENCH}@keys-A-s0"], gallery_size=0)
    assert f'<section id="{AUTOBENCH}@keys-A-s0">' in files.html.read_text(encoding="utf-8")


def test_no_experiment_sections_without_runs(
    built: Built, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The demo runs both experiments; without their rows (re-keyed copies, no-image and
    question-only answers) the report has no such sections."""
    db = _copy_store(built, tmp_path_factory.mktemp("no-experiments"))
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM responses WHERE variant != 'default'")
        conn.execute("DELETE FROM items WHERE benchmark LIKE '%@keys-%'")
        conn.execute("DELETE FROM benchmarks WHERE name LIKE '%@keys-%'")
    store = Store.open(str(db))
    files = write_report(store, db.parent / "report" / "report.html", gallery_size=0)
    html = section(files.html.read_text(encoding="utf-8"), AUTOBENCH)
    assert "Position bias" not in html and "Answer leakage" not in html
    summary = json.loads(files.summary.read_text(encoding="utf-8"))
    auto = next(b for b in summary["benchmarks"] if b["name"] == AUTOBENCH)
    assert auto["position_bias"] == [] and auto["leakage"] is None
    store.close()
