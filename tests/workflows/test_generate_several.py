"""Several capabilities in one `generate` (and `api.generate_many`): one benchmark each, all
checked before the first is built, so AutoBench-V's study is one command."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app

runner = CliRunner()
SMALL = ["-n", "1", "-k", "1", "--per-aspect", "1"]


def test_two_capabilities_build_two_benchmarks_through_both_doors(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    args = ["generate", "spatial understanding", "color perception", *SMALL, "--json"]
    result = runner.invoke(app, [*args, "--store", str(db)])
    assert result.exit_code == 0, result.output
    made = json.loads(result.stdout)["benchmarks"]
    assert [m["benchmark"] for m in made] == ["spatial-understanding-s0", "color-perception-s0"]
    assert [m["items"] for m in made] == [3, 3]
    options = api.GenerateOptions(capability="", n=1, m=1, per_aspect=1)
    again = api.generate_many(["spatial understanding", "color perception"], options, store=db)
    assert [(g.benchmark, g.items) for g in again] == [(m["benchmark"], 3) for m in made]
    assert [b.name for b in api.ls(db)] == ["color-perception-s0", "spatial-understanding-s0"]


def test_a_bad_or_clashing_capability_refuses_the_whole_call(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    for args, said in [
        (["spatial understanding", "spatial understanding"], "same benchmark"),
        (["spatial understanding", "counting", "--name", "x"], "--name names one benchmark"),
    ]:
        result = runner.invoke(app, ["generate", *args, *SMALL, "--store", str(db)])
        assert result.exit_code == 2, result.output
        assert said in result.output
    assert not db.exists()  # nothing was built for the good first capability either
