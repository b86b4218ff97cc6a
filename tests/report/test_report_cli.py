"""`lvlmbench report` on the command line: writes both files, filters benchmarks, and exits 2
with one clear line for an unknown benchmark."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import typer
from report.conftest import AUTOBENCH, Built
from typer.testing import CliRunner

from lvlmbench.cli.report import report

app = typer.Typer()
app.command()(report)
app.command("noop")(lambda: None)  # two commands: typer keeps "report" as a subcommand
runner = CliRunner()


def test_report_command_writes_html_and_summary(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "r" / "report.html"
    args = [
        "report",
        "--out",
        str(out),
        "--benchmark",
        AUTOBENCH,
        "--gallery",
        "3",
        "--store",
        built.store.url,
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert html.count('<div class="card">') == 3
    assert "open-ended-s0" not in html
    summary = json.loads((out.parent / "summary.json").read_text(encoding="utf-8"))
    assert [b["name"] for b in summary["benchmarks"]] == [AUTOBENCH]
    # The leaderboard files sit beside the HTML, hold only the chosen benchmark, and the
    # command names every file it wrote.
    with (out.parent / "leaderboard.csv").open(encoding="utf-8", newline="") as source:
        assert {row["benchmark"] for row in csv.DictReader(source)} == {AUTOBENCH}
    assert (out.parent / "leaderboard.md").read_text(encoding="utf-8").startswith(f"## {AUTOBENCH}")
    printed = "".join(result.output.split())  # rich may wrap (even split) long paths
    for name in ("report.html", "summary.json", "leaderboard.csv", "leaderboard.md"):
        assert name in printed


def test_unknown_benchmark_exits_2(built: Built, tmp_path: Path) -> None:
    args = [
        "report",
        "--out",
        str(tmp_path / "x.html"),
        "--benchmark",
        "nope",
        "--store",
        built.store.url,
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "unknown benchmark 'nope'" in result.output
    assert not (tmp_path / "x.html").exists()
