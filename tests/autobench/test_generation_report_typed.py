"""generate_with hands back the typed generation report the store keeps, and its JSON reads as
`generate --json` has always printed it: the report's sections in the order written, the plan's
keys in AutoBench-V's order."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from lvlmbench.autobench.backends import generate_with
from lvlmbench.autobench.pipeline import GenerateSettings
from lvlmbench.cli import app
from lvlmbench.store import GenerationReport, Store, get_benchmark

SETTINGS = GenerateSettings(
    capability="spatial understanding", n=1, m=1, per_aspect=1, levels=("easy",), seed=2
)
SECTIONS = [
    "settings",
    "examiner",
    "plan",
    "self_check",
    "key_check",
    "diversity",
    "answer_letters",
    "answer_letters_by_level",
    "truth_by_level",
    "items",
    "wall_s",
]


def test_the_report_returned_is_the_one_stored_in_the_order_written(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    try:
        made = asyncio.run(generate_with(store, SETTINGS, "procedural", "procedural", "scene"))
        stored = get_benchmark(store, SETTINGS.benchmark)
    finally:
        store.close()
    assert isinstance(made, GenerationReport) and stored is not None
    assert made == stored.data
    assert made.self_check is not None and made.items == made.self_check["accepted"]
    shown = made.as_json()
    assert list(shown) == SECTIONS
    assert list(shown["plan"]) == ["capability", "aspects", "problems", "note"]


def test_generate_json_prints_the_typed_report(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    args = ["generate", SETTINGS.capability, "-n", "1", "-k", "1", "--per-aspect", "1"]
    args += ["--levels", "easy", "--seed", "2", "--store", str(db), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert list(printed) == ["benchmark", *SECTIONS]
    store = Store.open(str(db))
    try:
        stored = get_benchmark(store, printed["benchmark"])
    finally:
        store.close()
    assert stored is not None and isinstance(stored.data, GenerationReport)
    assert printed["items"] == stored.data.items
    assert printed["plan"] == stored.data.as_json()["plan"]
