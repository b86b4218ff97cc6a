"""Renderer: determinism, size, colours at visible pixels, overlays."""

from __future__ import annotations

import io
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageFilter

from lvlmbench.scenes import (
    CAPABILITIES,
    COLORS,
    DIFFICULTIES,
    ProceduralExaminer,
    SceneProgram,
    compute_facts,
    fine_aspects,
    object_masks,
    render,
    render_png,
    validate_scene,
)
from lvlmbench.scenes.palette import pattern_color
from lvlmbench.scenes.schema import Background, Lighting, Weather

EXAMINER = ProceduralExaminer()
SIDE = 256
ASPECTS = [(c, g, f) for c in CAPABILITIES for g, f, _ in fine_aspects(c)]


def _plain(program: SceneProgram) -> SceneProgram:
    """The same objects in daylight, clear weather, no clutter or season cover."""
    return program.model_copy(
        update={
            "background": Background(kind="plain", color="white"),
            "lighting": Lighting(),
            "weather": Weather(),
            "season": None,
            "labels": [],
        }
    )


def _classes() -> tuple[np.ndarray, list[str]]:
    """Every colour the renderer paints a body with (base or pattern), tagged with its name."""
    rgbs, names = [], []
    for name, rgb in COLORS.items():
        for value in (rgb, pattern_color(name)):
            rgbs.append(value)
            names.append(name)
    return np.array(rgbs, dtype=np.int32), names


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ASPECTS), st.sampled_from(DIFFICULTIES), st.integers(0, 10_000))
def test_colours_at_visible_pixels_match_the_program(
    aspect: tuple[str, str, str], difficulty: str, seed: int
) -> None:
    program = _plain(EXAMINER.sample(*aspect, difficulty, seed).program)
    pixels = np.asarray(render(program, SIDE, SIDE), dtype=np.int32)
    masks = object_masks(program, body_only=True, size=(SIDE, SIDE))
    facts = compute_facts(program)
    palette, names = _classes()
    pad_x, pad_y = masks.width // 2, masks.height // 2
    for obj, fact in zip(program.objects, facts.objects, strict=True):
        visible = masks.visible[fact.index][pad_y : pad_y + SIDE, pad_x : pad_x + SIDE]
        # shrink the mask so outlines and anti-aliased edges do not count
        core = Image.fromarray(visible.astype(np.uint8) * 255).filter(ImageFilter.MinFilter(5))
        inside = np.asarray(core) > 0
        if inside.sum() < 25:
            continue
        sample = pixels[inside]
        nearest = ((sample[:, None, :] - palette[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        votes = Counter(names[k] for k in nearest)
        assert votes.most_common(1)[0][0] == obj.color, (obj.category, obj.color, votes)


def test_same_program_same_bytes() -> None:
    sample = EXAMINER.sample("atmospheric understanding", "weather", "weather type", "hard", 3)
    first, second = render_png(sample.program), render_png(sample.program)
    assert first == second
    again = EXAMINER.sample("atmospheric understanding", "weather", "weather type", "hard", 3)
    assert again.png() == sample.png()


def test_seed_moves_rain_but_not_objects() -> None:
    base = validate_scene(
        {
            "weather": {"kind": "rain", "intensity": 1.0},
            "objects": [{"category": "car", "color": "red", "position": {"x": 0.5, "y": 0.5}}],
        }
    )
    other = base.model_copy(update={"seed": base.seed + 1})
    assert render_png(base) != render_png(other)
    assert compute_facts(base).objects == compute_facts(other).objects


def test_size_override_and_default_canvas() -> None:
    program = validate_scene(
        {
            "canvas": {"width": 320, "height": 200},
            "objects": [
                {
                    "category": "sign",
                    "color": "red",
                    "text": "STOP",
                    "position": {"x": 0.5, "y": 0.5},
                }
            ],
        }
    )
    assert render(program).size == (320, 200)
    assert render(program, 128, 96).size == (128, 96)
    image = Image.open(io.BytesIO(render_png(program, 64, 64)))
    assert image.format == "PNG" and image.size == (64, 64) and image.mode == "RGB"


def test_lighting_and_weather_change_pixels_deterministically() -> None:
    base = validate_scene(
        {
            "background": {
                "kind": "sky_ground",
                "color": "blue",
                "color2": "green",
                "clutter": 0.5,
            },
            "season": "autumn",
            "objects": [
                {
                    "category": "tree",
                    "color": "green",
                    "position": {"x": 0.5, "y": 0.7},
                    "size": 0.4,
                }
            ],
        }
    )
    day = np.asarray(render(base), dtype=np.float64).mean()
    for kind in ("dusk", "night", "spotlight"):
        lit = base.model_copy(update={"lighting": Lighting(kind=kind)})  # type: ignore[arg-type]
        assert np.asarray(render(lit), dtype=np.float64).mean() < day
        assert render_png(lit) == render_png(lit)
    for weather in ("fog", "rain", "snow"):
        wet = base.model_copy(update={"weather": Weather(kind=weather)})  # type: ignore[arg-type]
        assert render_png(wet) != render_png(base)


def test_every_category_texture_and_background_renders() -> None:
    from lvlmbench.scenes import CATEGORIES, TEXTURES

    objects = [
        {
            "category": c,
            "color": "red",
            "texture": TEXTURES[i % 4],
            "orientation": (30 * i) % 360,
            "position": {"x": 0.1 + 0.2 * (i % 5), "y": 0.1 + 0.2 * (i // 5)},
            "size": 0.15,
        }
        for i, c in enumerate(CATEGORIES)
    ]
    for kind in ("plain", "gradient", "sky_ground", "clutter"):
        program = validate_scene(
            {
                "objects": objects,
                "background": {"kind": kind, "color": "gray"},
                "labels": [{"text": "?", "position": {"x": 0.5, "y": 0.5}}],
            }
        )
        image = render(program, 256, 256)
        assert image.size == (256, 256)
        assert len(np.unique(np.asarray(image).reshape(-1, 3), axis=0)) > 20


def test_object_boxes_equal_the_placed_parts_boxes_to_the_bit() -> None:
    """object_box skips placing each point of an object that does not turn; the sampler
    decides every scene by these boxes, so they must equal the placed parts' boxes exactly,
    mirrored or not, on any canvas."""
    import random

    from lvlmbench.scenes.geometry import extent, object_box, place_parts
    from lvlmbench.scenes.palette import CATEGORIES
    from lvlmbench.scenes.schema import Position, SceneObject

    rng = random.Random(5)
    for category in CATEGORIES:
        for orientation in (0, 45, 90, 91, 180, 269, 270, 359):
            position = Position(
                x=round(rng.uniform(0.05, 0.95), 3), y=round(rng.uniform(0.05, 0.95), 3)
            )
            size = round(rng.uniform(0.04, 0.45), 3)
            obj = SceneObject(
                category=category,
                color="red",
                position=position,
                size=size,
                orientation=orientation,
            )
            for width, height in ((512, 512), (1024, 333)):
                boxes = [extent(p) for p in place_parts(obj, width, height)]
                expected = (
                    min(b[0] for b in boxes) / width,
                    min(b[1] for b in boxes) / height,
                    max(b[2] for b in boxes) / width,
                    max(b[3] for b in boxes) / height,
                )
                assert object_box(obj, width, height) == expected, (category, orientation)
