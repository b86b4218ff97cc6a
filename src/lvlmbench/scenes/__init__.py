"""Scene programs: the procedural world that runs AutoBench-V with no model at all.

A :class:`SceneProgram` is a small JSON scene (objects with category, colour, size, texture,
orientation, position and depth; background, lighting, weather, season, text labels) that
:func:`render` draws exactly with Pillow, so :func:`compute_facts` knows the ground truth. The
:class:`ProceduralExaminer` samples programs for every fine aspect of the built-in
:data:`TAXONOMY` at three difficulties and writes a description, one question and open-ended
instructions with references for each.
"""

from lvlmbench.scenes.describe import caption, count_reference, describe, story
from lvlmbench.scenes.examiner import (
    ExaminerError,
    OpenInstruction,
    ProceduralExaminer,
    SceneSample,
)
from lvlmbench.scenes.facts import (
    DEFAULT_VISIBLE_THRESHOLD,
    ObjectFacts,
    Relation,
    SceneFacts,
    compute_facts,
)
from lvlmbench.scenes.masks import MaskSet, object_masks
from lvlmbench.scenes.palette import CATEGORIES, COLOR_NAMES, COLORS, SHAPES, TEXTURES, THINGS
from lvlmbench.scenes.questions import LETTERS, Question
from lvlmbench.scenes.renderer import RENDERER_VERSION, render, render_png
from lvlmbench.scenes.sampler import DIFFICULTIES, PROFILES
from lvlmbench.scenes.schema import (
    Background,
    Canvas,
    Lighting,
    Position,
    SceneError,
    SceneObject,
    SceneProgram,
    TextLabel,
    Weather,
    validate_scene,
)
from lvlmbench.scenes.taxonomy import CAPABILITIES, TAXONOMY, fine_aspects, nearest_capability

__all__ = [
    "CAPABILITIES",
    "CATEGORIES",
    "COLORS",
    "COLOR_NAMES",
    "DEFAULT_VISIBLE_THRESHOLD",
    "DIFFICULTIES",
    "LETTERS",
    "PROFILES",
    "RENDERER_VERSION",
    "SHAPES",
    "TAXONOMY",
    "TEXTURES",
    "THINGS",
    "Background",
    "Canvas",
    "ExaminerError",
    "Lighting",
    "MaskSet",
    "ObjectFacts",
    "OpenInstruction",
    "Position",
    "ProceduralExaminer",
    "Question",
    "Relation",
    "SceneError",
    "SceneFacts",
    "SceneObject",
    "SceneProgram",
    "SceneSample",
    "TextLabel",
    "Weather",
    "caption",
    "compute_facts",
    "count_reference",
    "describe",
    "fine_aspects",
    "nearest_capability",
    "object_masks",
    "render",
    "render_png",
    "story",
    "validate_scene",
]
