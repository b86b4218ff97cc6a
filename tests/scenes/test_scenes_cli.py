"""`lvlmbench scenes sample` and `lvlmbench scenes schema`."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from lvlmbench.cli.scenes import scenes_app
from lvlmbench.scenes import validate_scene

runner = CliRunner()


def test_sample_writes_pngs_and_jsonl(tmp_path: Path) -> None:
    out = tmp_path / "items"
    args = [
        "sample",
        "--capability",
        "spatial understanding",
        "--difficulty",
        "hard",
        "-n",
        "5",
        "--out",
        str(out),
        "--seed",
        "3",
        "--size",
        "256",
    ]
    result = runner.invoke(scenes_app, args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.glob("*.png")) == [f"{i:03d}.png" for i in range(5)]
    rows = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(rows) == 5
    for row in rows:
        assert Image.open(out / row["file"]).size == (256, 256)
        assert row["capability"] == "spatial understanding" and row["difficulty"] == "hard"
        assert row["general_aspect"] and row["fine_aspect"] and row["description"]
        validate_scene(row["program"])
        if row["kind"] == "mc":
            assert row["options"][row["answer"]] == row["correct"]
        else:
            assert row["answer"] in ("true", "false") and row["options"] == {}
        assert {i["kind"] for i in row["instructions"]} == {"describe", "count", "caption", "story"}
    assert "spatial understanding" in result.output

    again = tmp_path / "again"
    assert (
        runner.invoke(
            scenes_app, [*args[:-4], "--out", str(again), "--seed", "3", "--size", "256"]
        ).exit_code
        == 0
    )
    assert (again / "samples.jsonl").read_text() == (out / "samples.jsonl").read_text()
    assert (again / "002.png").read_bytes() == (out / "002.png").read_bytes()


def test_free_text_capability_is_mapped(tmp_path: Path) -> None:
    result = runner.invoke(
        scenes_app, ["sample", "-c", "weather and mood", "-n", "1", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    row = json.loads((tmp_path / "samples.jsonl").read_text())
    assert row["capability"] == "atmospheric understanding"
    assert row["requested_capability"] == "weather and mood"


def test_bad_input_exits_2(tmp_path: Path) -> None:
    bad = [["--difficulty", "extreme"], ["--capability", "zzz qqq"], ["-n", "0"], ["--size", "8"]]
    for extra in bad:
        result = runner.invoke(scenes_app, ["sample", "--out", str(tmp_path), *extra])
        assert result.exit_code == 2, (extra, result.output)
        assert "error:" in result.output and len(result.output.strip().splitlines()) <= 2
    assert not list(tmp_path.glob("*.png"))


def test_schema_prints_json_schema() -> None:
    result = runner.invoke(scenes_app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert "SceneObject" in schema["$defs"]
