"""A capability's text survives whole: ``generate "counting 🙂"`` with the built-in examiner is
refused naming the emoji (it cannot be drawn; it used to be dropped, silently, and a plain
counting benchmark made), while a model examiner is asked about the text as written and the
benchmark stores it so; only the default benchmark name is a slug."""

from __future__ import annotations

from pathlib import Path

import pytest
from examiner_fakes import ScriptedExaminer
from typer.testing import CliRunner

from lvlmbench.autobench.llm import ModelBackend
from lvlmbench.autobench.pipeline import GenerateSettings, generate_benchmark
from lvlmbench.cli import app
from lvlmbench.images import ImageClient, load_image_model
from lvlmbench.models import ModelClient
from lvlmbench.scenes.compose import CapabilityRefused, compose_capability
from lvlmbench.store import Store, get_artifact, iter_items

CAPABILITY = "counting 🙂"


def test_the_built_in_examiner_refuses_what_it_cannot_draw_naming_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    result = CliRunner().invoke(app, ["generate", CAPABILITY, "--store", str(db)])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert (
        "capability 'counting 🙂': the built-in (procedural) examiner cannot express '🙂'" in text
    )
    assert "--examiner " in text  # and says what can
    assert not db.exists()  # refused before the store was opened


@pytest.mark.parametrize(
    ("capability", "named"),
    [
        ("👨‍👩‍👧 counting", "'👨\\u200d👩\\u200d👧'"),  # one emoji of three joined ones
        ("zählen", "'zählen'"),  # a word in another script, whole (was "z" and "hlen")
        ("count €", "'€'"),
    ],
)
def test_symbols_and_words_in_any_script_are_read_whole(capability: str, named: str) -> None:
    with pytest.raises(CapabilityRefused) as refused:
        compose_capability(capability)
    assert f"cannot express {named}" in str(refused.value)


def test_punctuation_and_operators_only_separate_words() -> None:
    composed = compose_capability("counting, by colour + shape!")
    assert composed is not None and composed.words == ("count", "colour", "shape")


async def test_a_model_examiner_is_asked_about_the_text_as_written(tmp_path: Path) -> None:
    settings = GenerateSettings(capability=CAPABILITY, n=1, m=1, per_aspect=1, levels=("easy",))
    assert settings.benchmark == "counting-s0"  # the name is a slug; the capability is not
    examiner = ScriptedExaminer()
    store = Store.open(str(tmp_path / "s.db"))
    images = ImageClient(load_image_model("procedural"), store)
    try:
        backend = ModelBackend(ModelClient(examiner, store), mode="scene", k_checks=2)
        await generate_benchmark(store, settings, backend, images)
        asked = " ".join(m.text() for m in examiner.calls[0])
        assert CAPABILITY in asked
        stored = get_artifact(store, settings.benchmark, "settings", "settings")
        assert stored is not None and stored["settings"]["capability"] == CAPABILITY
        assert {i.meta["capability"] for i in iter_items(store, settings.benchmark)} == {CAPABILITY}
    finally:
        await images.aclose()
        store.close()
