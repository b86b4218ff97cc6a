"""`lvlmbench scenes ...`: sample procedural benchmark items and print the scene schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import track
from rich.table import Table

from lvlmbench.cli._common import console, fail
from lvlmbench.scenes import (
    CAPABILITIES,
    DIFFICULTIES,
    LETTERS,
    ProceduralExaminer,
    SceneProgram,
    SceneSample,
)
from lvlmbench.scenes.taxonomy import match_capability

__all__ = ["scenes_app"]

scenes_app = typer.Typer(
    help="Procedural scenes: sample benchmark items offline, print the scene-program schema.",
    no_args_is_help=True,
)


def _record(sample: SceneSample, file: str, letter: str) -> dict[str, Any]:
    options, answer = sample.question.arrange(letter)
    return {
        "file": file,
        "capability": sample.capability,
        "requested_capability": sample.meta.get("requested_capability"),
        "general_aspect": sample.general_aspect,
        "fine_aspect": sample.fine_aspect,
        "difficulty": sample.difficulty,
        "seed": sample.seed,
        "program": sample.program.model_dump(mode="json"),
        "description": sample.description,
        "question": sample.question.text,
        "kind": sample.question.kind,
        "options": options,
        "answer": answer,
        "correct": sample.question.correct,
        "distractors": sample.question.distractors,
        "instructions": [i.model_dump(mode="json") for i in sample.instructions],
        "meta": sample.meta,
    }


def _check(capability: str, difficulty: str, n: int, size: int) -> str:
    """The built-in capability to sample, or exit 2 with one line saying what is wrong."""
    if difficulty not in DIFFICULTIES:
        raise fail(f"--difficulty {difficulty!r}: expected one of {', '.join(DIFFICULTIES)}")
    if n < 1:
        raise fail(f"-n {n}: must be at least 1")
    if not 64 <= size <= 4096:
        raise fail(f"--size {size}: must be between 64 and 4096 pixels")
    builtin, how = match_capability(capability)
    if how == "fallback":
        raise fail(
            f"--capability {capability!r} is not built in and shares no keyword with "
            f"one; built-in: {', '.join(CAPABILITIES)}"
        )
    if how == "keywords":
        console.print(f"[yellow]note:[/] {capability!r} is not built in; sampling {builtin!r}")
    return builtin


@scenes_app.command("sample")
def sample(
    out: Annotated[Path, typer.Option("--out", help="Directory for NNN.png and samples.jsonl.")],
    capability: Annotated[str, typer.Option("--capability", "-c", help="Capability to test.")] = (
        "basic understanding"
    ),
    difficulty: Annotated[str, typer.Option("--difficulty", "-d", help="easy, medium or hard.")] = (
        "easy"
    ),
    n: Annotated[int, typer.Option("-n", help="How many items (cycling through aspects).")] = 8,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same files.")] = 0,
    size: Annotated[int, typer.Option(help="Image width and height in pixels.")] = 512,
) -> None:
    """Write N images and their questions for one capability at one difficulty."""
    builtin = _check(capability, difficulty, n, size)
    examiner = ProceduralExaminer(canvas=size)
    aspects = examiner.aspects(builtin)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    with (out / "samples.jsonl").open("w", encoding="utf-8") as jsonl:
        for i in track(range(n), description="sampling", console=console, transient=True):
            general, fine, _ = aspects[i % len(aspects)]
            item = examiner.sample(capability, general, fine, difficulty, seed * 100_003 + i)
            file = f"{i:03d}.png"
            (out / file).write_bytes(item.png())
            record = _record(item, file, LETTERS[i % len(LETTERS)])
            jsonl.write(json.dumps(record, sort_keys=True) + "\n")
            rows.append(record)
    table = Table(title=f"{n} {difficulty} items for {builtin} -> {out}")
    for column in ("file", "fine aspect", "question", "answer"):
        table.add_column(column, overflow="fold")
    for row in rows:
        answer = f"{row['answer']}: {row['correct']}" if row["kind"] == "mc" else row["answer"]
        table.add_row(row["file"], row["fine_aspect"], row["question"], answer)
    console.print(table)


@scenes_app.command("schema")
def schema() -> None:
    """Print the scene program's JSON schema (for LLM examiners and structured output)."""
    typer.echo(json.dumps(SceneProgram.model_json_schema(), indent=2))
