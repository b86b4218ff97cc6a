"""``generate --image-size N``: the images are drawn at N pixels a side, N is part of the
benchmark's stored definition (a resume at another size is refused, naming both sizes, and
nothing stored changes), a benchmark stored before the option existed resumes at 512, and a
size the text-to-image back-end cannot draw is refused before anything is opened or paid."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from lvlmbench import api
from lvlmbench.cli import app
from lvlmbench.images import image_size_problem
from lvlmbench.store import Store, get_artifact, iter_items, put_artifact
from lvlmbench.workflows import GenerateOptions, InvalidOptions, check_generate_options

runner = CliRunner()
SMALL = ["generate", "spatial understanding", "-n", "1", "-k", "1", "--per-aspect", "1"]
BENCH = "spatial-understanding-s0"


def _sides(db: Path) -> list[tuple[int, int]]:
    store = Store.open(str(db))
    try:
        sizes = []
        for item in iter_items(store, BENCH):
            with Image.open(io.BytesIO(store.read_image(item.images[0]))) as image:
                sizes.append(image.size)
        return sizes
    finally:
        store.close()


def test_images_are_drawn_at_the_size_asked_and_it_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    made = runner.invoke(app, [*SMALL, "--image-size", "96", "--store", str(db), "--json"])
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout)["settings"]["image_size"] == 96
    assert _sides(db) == [(96, 96)] * 3  # one image per level


def test_a_resume_at_another_size_is_refused_naming_both(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert runner.invoke(app, [*SMALL, "--image-size", "96", "--store", str(db)]).exit_code == 0
    again = runner.invoke(app, [*SMALL, "--image-size", "128", "--store", str(db)])
    assert again.exit_code == 2, again.output
    said = " ".join(again.output.split())
    assert "image_size: stored 96, asked 128" in said and "--name" in said
    assert _sides(db) == [(96, 96)] * 3  # nothing stored was redrawn
    same = runner.invoke(app, [*SMALL, "--image-size", "96", "--store", str(db)])
    assert same.exit_code == 0, same.output  # the same size resumes


def test_a_benchmark_stored_before_the_option_resumes_at_512(tmp_path: Path) -> None:
    """A store written before --image-size existed holds the settings without the key: it
    was drawn at 512 and resumes so; asking for another size is refused."""
    db = tmp_path / "s.db"
    assert runner.invoke(app, [*SMALL, "--levels", "easy", "--store", str(db)]).exit_code == 0
    store = Store.open(str(db))
    claimed = get_artifact(store, BENCH, "settings", "settings")
    assert claimed is not None and claimed["settings"].pop("image_size") == 512
    put_artifact(store, BENCH, "settings", "settings", claimed)
    store.close()
    resumed = runner.invoke(app, [*SMALL, "--levels", "easy", "--store", str(db)])
    assert resumed.exit_code == 0, resumed.output
    assert _sides(db) == [(512, 512)]
    bigger = runner.invoke(app, [*SMALL, "--levels", "easy", "--image-size", "1024",
                                 "--store", str(db)])  # fmt: skip
    assert bigger.exit_code == 2 and "stored 512, asked 1024" in " ".join(bigger.output.split())


@pytest.mark.parametrize(
    ("images", "size", "said"),
    [
        ("procedural", 32, "the procedural renderer draws 64 to 4096 pixels"),
        ("diffusers/stabilityai/stable-diffusion-xl-base-1.0", 1020, "multiple of 8"),
        ("openai/dall-e-3", 512, "dall-e-3 draws 1024x1024"),
        ("openai/dall-e-2", 768, "dall-e-2 draws 256x256, 512x512, 1024x1024"),
    ],
)
def test_a_size_the_back_end_cannot_draw_is_refused_before_anything(
    tmp_path: Path, images: str, size: int, said: str
) -> None:
    db = tmp_path / "s.db"
    mode = [] if images == "procedural" else ["--examiner", "openai/gpt-4o", "--mode", "text"]
    args = [*SMALL, "--images", images, *mode, "--image-size", str(size), "--store", str(db)]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2, refused.output
    assert f"--image-size {size}" in refused.output and said in " ".join(refused.output.split())
    with pytest.raises(InvalidOptions, match=said):
        api.generate(
            "spatial understanding",
            store=str(db),
            images=images,
            examiner="procedural" if images == "procedural" else "openai/gpt-4o",
            mode="scene" if images == "procedural" else "text",
            image_size=size,
        )
    assert not db.exists()  # refused before the store was opened


@pytest.mark.parametrize(
    ("images", "size"),
    [
        ("diffusers/stabilityai/stable-diffusion-xl-base-1.0", 1024),
        ("openai/dall-e-3", 1024),
        ("openai/dall-e-3?size=1024x1024", 512),  # drawn at 1024, resized to 512
        ("openai/some-model?base_url=http://127.0.0.1:9/v1", 300),  # its server decides
        ("procedural", 4096),
    ],
)
def test_sizes_the_back_end_draws_pass_the_check(images: str, size: int) -> None:
    assert image_size_problem(images, size) is None


def test_a_flux_pipeline_needs_a_multiple_of_16(tmp_path: Path) -> None:
    """Flux packs its latents in 2 x 2 patches: 1000 (a multiple of 8) is not drawable."""
    (tmp_path / "model_index.json").write_text('{"_class_name": "FluxPipeline"}')
    problem = image_size_problem(f"diffusers/{tmp_path}", 1000)
    assert problem is not None and "FluxPipeline" in problem and "multiple of 16" in problem
    assert "992 or 1008" in problem
    assert image_size_problem(f"diffusers/{tmp_path}", 1024) is None


def test_the_command_a_refused_capability_suggests_passes_the_size_check() -> None:
    """The procedural examiner's refusal of a capability it cannot draw suggests a model
    examiner and OpenAI images: that command must not be refused for its image size."""
    refused = runner.invoke(app, ["generate", "reading clocks"])
    assert refused.exit_code == 2
    command = " ".join(refused.output.split()).split("e.g. ")[1]
    words = shlex.split(command)
    given = dict(zip(words[3::2], words[4::2], strict=True))
    options = GenerateOptions(
        "reading clocks",
        examiner=given["--examiner"],
        images=given["--images"],
        image_size=int(given["--image-size"]),
        mode=given["--mode"],
    )
    assert check_generate_options(options).settings.image_size == 1024
