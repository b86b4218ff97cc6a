"""``generate --until ... --model``: an examinee that is the examiner of the benchmark being
built (the same provider/name, whatever its settings) answers questions it wrote about images
it checked. Both are named in a warning, printed and stored in the generation report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from examiner_fakes import ScriptedExaminer, prompt_kind
from typer.testing import CliRunner

from lvlmbench.cli import app
from lvlmbench.models import CHAT_PROVIDERS, register_chat_provider
from lvlmbench.store import GenerationReport, Store, get_benchmark
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Usage
from lvlmbench.workflows import GenerateOptions, check_generate_options

runner = CliRunner()
EXAMINER = "scripted/examiner"


class ExaminerAndExaminee(ScriptedExaminer):
    """The scripted examiner, answering an examinee's question with "A" as well."""

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        try:
            prompt_kind(messages)
        except AssertionError:  # no examiner prompt: a question put to an examinee
            return ModelOutput(text="A", usage=Usage(input_tokens=5, output_tokens=1))
        return await super().generate(messages, config)


@pytest.fixture(autouse=True)
def _scripted() -> Iterator[None]:
    register_chat_provider(
        "scripted",
        lambda name, options: ExaminerAndExaminee(),
        options=CHAT_PROVIDERS["baseline"].options,
    )
    yield
    del CHAT_PROVIDERS["scripted"]


def test_the_warning_names_the_examinee_and_the_examiner() -> None:
    options = GenerateOptions(
        "spatial understanding",
        examiner=EXAMINER,
        until="compare",
        models=(f"{EXAMINER}?temperature=0.2", "baseline/random"),
    )
    (warning,) = check_generate_options(options).warnings
    assert warning.startswith(f"examinee {EXAMINER}?temperature=0.2 is also the examiner "
                              f"({EXAMINER})")  # fmt: skip
    assert "spatial-understanding-s0" in warning and "self-preference" in warning
    others = GenerateOptions("spatial understanding", until="rank",
                             models=("baseline/random", "baseline/oracle"))  # fmt: skip
    assert check_generate_options(others).warnings == ()  # the procedural examiner


def test_generate_until_prints_and_stores_the_warning(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    args = ["generate", "spatial understanding", "-n", "1", "-k", "1", "--per-aspect", "2"]
    args += ["--examiner", EXAMINER, "--images", "procedural", "--mode", "scene"]
    args += ["--until", "compare", "--model", EXAMINER, "--model", "baseline/oracle"]
    made = runner.invoke(app, [*args, "--first-round", "2", "--store", str(db), "--json"])
    assert made.exit_code == 0, made.output
    (warning,) = json.loads(made.stdout)["warnings"]
    assert warning.startswith(f"examinee {EXAMINER} is also the examiner ({EXAMINER})")
    store = Store.open(str(db))
    row = get_benchmark(store, "spatial-understanding-s0")
    store.close()
    assert row is not None and isinstance(row.data, GenerationReport)
    assert row.data.warnings == [warning]
    shown = runner.invoke(app, [*args, "--first-round", "2", "--store", str(db)])
    assert shown.exit_code == 0, shown.output
    assert f"warning: examinee {EXAMINER} is also the examiner" in " ".join(shown.output.split())


def test_a_credential_in_a_spec_never_reaches_the_warning() -> None:
    """The warning is stored: the models are named by their identities, without secrets."""
    secret = "s3cr3t-pass"
    examiner = f"openai/gpt-4o?base_url=http://user:{secret}@127.0.0.1:9/v1"
    options = GenerateOptions(
        "spatial understanding",
        examiner=examiner,
        images="openai/gpt-image-1",
        image_size=1024,
        mode="text",
        until="compare",
        models=(examiner, "baseline/random"),
    )
    (warning,) = check_generate_options(options).warnings
    assert secret not in warning and "examinee openai/gpt-4o" in warning
