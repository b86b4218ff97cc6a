"""The procedural examiner as a pipeline backend: no model, exact ground truth.

Scenes, descriptions and questions come from :mod:`lvlmbench.scenes`. The self-check is real
even though the renderer draws programs exactly: rain, snow, clutter, season cover, patterns and
anti-aliasing all land on top of the objects, so every checked object's visible pixels in the
final image are classified against the palette (as it looks under the scene's light and fog),
and an object that no longer looks its stated colour is an error. A question about such an
object is re-drawn rather than asked.
"""

from __future__ import annotations

import hashlib
import io
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from lvlmbench._workers import preload_in_workers, run_cpu
from lvlmbench.autobench._backend import (
    AspectPlan,
    AssignedKey,
    CheckRecord,
    KeyCheck,
    KeyMismatch,
    PlannedAspect,
    QuestionDraft,
    SceneSeed,
    StoredDescription,
    UnitDraft,
    UnitValidation,
)
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.autobench.stages import UnitChain, standard_chain
from lvlmbench.scenes import ProceduralExaminer, SceneProgram
from lvlmbench.scenes.compose import ComposedAspect, Composition, compose_capability
from lvlmbench.scenes.effects import lit_appearances
from lvlmbench.scenes.masks import object_masks
from lvlmbench.scenes.palette import COLORS, nearest_rows, pattern_color
from lvlmbench.scenes.recipes import RECIPES
from lvlmbench.scenes.taxonomy import fine_aspects

__all__ = ["ProceduralBackend", "check_unit", "colour_checks", "draft_unit"]

# Drafting and checking run in the worker processes: start them with this module and the world.
preload_in_workers("lvlmbench.scenes", __name__)


def _seed(*parts: object) -> int:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()
    return int(digest[:12], 16)


# Patterned bodies (stripes, dots, checks) are painted partly in each colour's pattern shade, so
# a pixel in that shade still counts as the colour itself.
_PAINTS = [(name, rgb) for name, base in COLORS.items() for rgb in (base, pattern_color(name))]


def _references(program: SceneProgram) -> tuple[list[str], NDArray[np.int32]]:
    """Every paint as it looks under this scene's light and fog, tagged with its colour name.

    The description promises "a red ball at night": the check asks whether the ball looks like
    red paint under night light, not like red paint in daylight. Comparing against daylight
    paint rejected most dusk and night images, and the redraws then biased the benchmark
    towards daytime scenes (a "day or night?" aspect ended up 25 : 2).
    """
    names, rgbs = [], []
    for name, paint in _PAINTS:
        for look in lit_appearances(paint, program):
            names.append(name)
            rgbs.append(look)
    return names, np.array(rgbs, dtype=np.int32)


_CHECK_RESOLUTION = 256
"""Longest side, in pixels, at which visible regions are found for a colour check: a majority
vote over a few hundred pixels needs no more, and full-size masks cost 4× as much."""
_SAMPLE = 400


def _classify_all(
    sample: NDArray[np.int32], references: tuple[list[str], NDArray[np.int32]]
) -> Counter[str]:
    """Nearest reference colour (squared RGB distance) of every pixel, counted by name."""
    names, rgbs = references
    return Counter(names[i] for i in nearest_rows(sample, rgbs).tolist())


def _element(obj: dict[str, Any]) -> str:
    return f"the {obj['color']} {obj['category']}"


def colour_checks(
    program: SceneProgram, png: bytes, objects: list[dict[str, Any]], k: int
) -> list[CheckRecord]:
    """Up to ``k`` checks "does object i look <colour>?" answered from the image's pixels.

    The visible body pixels of each object (its own paint only: no windows or wheels) are
    classified to the nearest palette colour as it looks under the scene's light and fog; the
    check passes when the most common class is the stated colour.
    """
    masks = object_masks(program, _CHECK_RESOLUTION, body_only=True)
    references = _references(program)
    with Image.open(io.BytesIO(png)) as opened:
        # Nearest-neighbour keeps real rendered pixels (no blending of neighbours' colours).
        image = opened.convert("RGB").resize((masks.width, masks.height), Image.Resampling.NEAREST)
    pixels = np.asarray(image, dtype=np.int32)
    checks = []
    for obj in objects[:k]:
        (rows, cols), visible = masks.visible_in_image(obj["index"])
        sample = pixels[rows, cols][visible]  # row-major, as over the whole image
        if len(sample) > _SAMPLE:  # classify a fixed-size sample: enough for a majority
            sample = sample[np.linspace(0, len(sample) - 1, _SAMPLE).astype(int)]
        seen = _classify_all(sample, references) if len(sample) else Counter[str]()
        answered = seen.most_common(1)[0][0] if seen else None
        checks.append(
            CheckRecord(
                question=f"Is there a {obj['color']} {obj['category']} in the image?",
                expected=obj["color"],
                answered=answered,
                correct=answered == obj["color"],
                element=_element(obj),
            )
        )
    return checks


def draft_unit(
    examiner: ProceduralExaminer,
    aspect: PlannedAspect,
    level: str,
    seed: int,
    truth: bool | None = None,
) -> UnitDraft:
    """Scene, description and question for one unit, a statement with the truth value
    ``truth`` if the aspect asks true/false (runs in a worker process)."""
    sample = examiner.sample(aspect.capability, aspect.general, aspect.fine, level, seed, truth)
    question = sample.question
    subjects = [o for o in sample.facts["objects"] if o["index"] in question.subjects]
    others = [
        o for o in sample.facts["objects"] if o["askable"] and o["index"] not in question.subjects
    ]
    return UnitDraft(
        description=sample.description,
        scene=sample.program.model_dump(mode="json"),
        question=QuestionDraft(
            text=question.text,
            kind=question.kind,
            correct=question.correct,
            distractors=list(question.distractors),
        ),
        subjects=[_element(o) for o in subjects],
        extra={
            "facts": sample.facts,
            "checked": subjects + others,
            "instructions": [i.model_dump() for i in sample.instructions],
            "scene_seed": sample.seed,
        },
    )


def check_unit(
    scene: dict[str, Any], png: bytes, checked: list[dict[str, Any]], k: int
) -> UnitValidation:
    """The pixel colour self-check of one rendered unit (runs in a worker process)."""
    checks = colour_checks(SceneProgram.model_validate(scene), png, checked, k)
    if not checks:
        return UnitValidation(score=1.0, checks=[], errors=[], method="pixel colour check")
    correct = sum(c.correct for c in checks)
    return UnitValidation(
        score=correct / len(checks),
        checks=checks,
        errors=[c.element for c in checks if not c.correct],
        method="pixel colour check",
    )


def _planned(aspect: ComposedAspect, composition: Composition) -> PlannedAspect:
    mapping = (
        f"{composition.requested!r} is not built in: this item tests the built-in fine aspect "
        f"{aspect.fine!r} ({aspect.general}, {aspect.capability}), which mentions "
        f"{', '.join(aspect.matched)}"
    )
    return PlannedAspect(
        capability=aspect.capability,
        general=aspect.general,
        fine=aspect.fine,
        guideline=aspect.guideline,
        requested=composition.requested,
        mapping=mapping,
    )


class ProceduralBackend:
    """ExaminerBackend over :class:`lvlmbench.scenes.ProceduralExaminer`."""

    name = "procedural"

    def __init__(self, examiner: ProceduralExaminer | None = None, k_checks: int = 5) -> None:
        self.examiner = examiner or ProceduralExaminer()
        self.k_checks = k_checks

    async def plan(self, capability: str, n: int, m: int) -> AspectPlan:
        """The built-in aspects of a built-in capability; for free text, the n × m built-in
        fine aspects that mention most of its words, said openly (CapabilityRefused when its
        words cannot all be drawn)."""
        composition = compose_capability(capability)
        if composition is not None:
            used = list(composition.aspects[: n * m])
            problems = []
            if len(used) < n * m:
                problems.append(
                    f"only {len(used)} built-in fine aspects mention the words of "
                    f"{capability!r}; {n} × {m} were asked for"
                )
            return AspectPlan(
                capability=capability,
                aspects=[_planned(a, composition) for a in used],
                problems=problems,
                note=composition.note(used),
            )
        builtin = " ".join(capability.lower().split())
        by_general: dict[str, list[tuple[str, str]]] = {}
        for general, fine, guideline in fine_aspects(builtin):
            by_general.setdefault(general, []).append((fine, guideline))
        problems = []
        if len(by_general) < n:
            problems.append(
                f"the built-in taxonomy has {len(by_general)} general aspects for "
                f"{builtin!r}; {n} were asked for"
            )
        aspects = []
        for general, fines in list(by_general.items())[:n]:
            if len(fines) < m:
                problems.append(f"{general!r} has {len(fines)} fine aspects; {m} were asked for")
            aspects += [
                PlannedAspect(capability=builtin, general=general, fine=f, guideline=g)
                for f, g in fines[:m]
            ]
        return AspectPlan(capability=builtin, aspects=aspects, problems=problems)

    async def describe(
        self, aspect: PlannedAspect, level: str, count: int, seed: int
    ) -> list[StoredDescription]:
        # Descriptions are written together with their scenes in draft(); here only the seeds.
        # A free-text capability is part of them, so two capabilities composed from the same
        # aspects still get their own scenes.
        parts = (
            (seed, aspect.fine, level)
            if aspect.requested is None
            else (seed, aspect.requested, aspect.fine, level)
        )
        return [SceneSeed(index=i, seed=_seed(*parts, i)) for i in range(count)]

    def question_kind(
        self, settings: GenerateSettings, aspect: PlannedAspect, unit_key: str
    ) -> Literal["mc", "tf"]:
        # Each fine aspect's recipe asks one kind of question (a built-in aspect: plan() names
        # only those).
        return RECIPES[aspect.fine].kind

    async def draft(
        self,
        aspect: PlannedAspect,
        level: str,
        description: StoredDescription,
        seed: int,
        attempt: int,
        assigned: AssignedKey,
    ) -> UnitDraft:
        if not isinstance(description, SceneSeed):
            raise TypeError(
                f"the procedural examiner drafts from a scene seed, not {description!r}"
            )
        # The scene's own seed sequence, not ``seed``: procedural scenes are drawn, not sampled
        # from a model, and a redraw is the next scene of the description's sequence.
        sample_seed = (description.seed + attempt) % 2**31
        return await run_cpu(draft_unit, self.examiner, aspect, level, sample_seed, assigned.truth)

    async def validate(self, draft: UnitDraft, png: bytes, level: str) -> UnitValidation:
        assert draft.scene is not None
        return await run_cpu(check_unit, draft.scene, png, draft.extra["checked"], self.k_checks)

    async def question(
        self,
        draft: UnitDraft,
        errors: list[str],
        level: str,
        assigned: AssignedKey,
        mismatches: Sequence[KeyMismatch] = (),
    ) -> QuestionDraft | str:
        # The procedural examiner wrote the question from the scene's facts; it stands unless
        # it is about an element the image got wrong (the pipeline then draws again).
        assert draft.question is not None
        wrong = sorted(set(errors) & set(draft.subjects))
        if wrong:
            return f"the question is about {', '.join(wrong)}, which the image got wrong"
        return draft.question

    async def verify_key(self, draft: UnitDraft, question: QuestionDraft) -> KeyCheck:
        # The recipe computed the key from the program's facts: nothing to recompute.
        return KeyCheck(verdict="verified", reason="written from the program's facts")

    def stages(self) -> UnitChain:
        return standard_chain(self)

    async def aclose(self) -> None:
        """Nothing to release: no model behind it."""
