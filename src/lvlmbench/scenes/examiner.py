"""The procedural examiner: scene programs, descriptions, questions and references, no model.

For one (capability, general aspect, fine aspect, difficulty, seed) it draws a scene with the
aspect's recipe, computes the facts, and lets the recipe write a question from the facts alone.
When a draw cannot support a question (the object in question ended up hidden, a count hit a
look-alike), it draws again from the next sub-seed: the sequence of sub-seeds is fixed by the
seed, so the result is reproducible.

Question mix: 98 of the 120 fine aspects ask a four-option multiple-choice question and 22 a
true/false one (aspects that are yes/no by nature: presence, "is X in front of Y", parity,
"is it raining"...; each recipe says which as its ``kind``), so about 82% of items are multiple
choice. A true/false statement can be asked for with a given truth value (``truth``): scenes are
drawn from the seed's sequence until one makes the aspect's statement that value, so a
benchmark's truth values are planned rather than left to how the scenes fall. The correct
letter is *not* balanced here: :class:`Question` keeps the key and the distractors apart, and
the balancing stage places them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from lvlmbench.scenes.describe import caption, count_reference, describe, story
from lvlmbench.scenes.facts import DEFAULT_VISIBLE_THRESHOLD, SceneFacts, compute_facts
from lvlmbench.scenes.questions import Question
from lvlmbench.scenes.recipes import RECIPES, Recipe, Scene
from lvlmbench.scenes.renderer import render_png
from lvlmbench.scenes.sampler import DIFFICULTIES, Retry, SceneBuilder
from lvlmbench.scenes.schema import Canvas, SceneProgram
from lvlmbench.scenes.taxonomy import CAPABILITIES, TAXONOMY, fine_aspects, nearest_capability

__all__ = ["ExaminerError", "OpenInstruction", "ProceduralExaminer", "SceneSample"]


class ExaminerError(ValueError):
    """Unknown aspect or difficulty, or no question after every attempt."""


class OpenInstruction(BaseModel):
    """An open-ended instruction about the image and a reference answer built from facts."""

    kind: Literal["describe", "count", "caption", "story"]
    instruction: str
    reference: str


class SceneSample(BaseModel):
    """One benchmark item drawn by the procedural examiner."""

    capability: str
    """The built-in capability the item tests."""
    general_aspect: str
    fine_aspect: str
    guideline: str
    """The fine aspect's guideline for image descriptions."""
    difficulty: str
    seed: int
    """The seed asked for (the same seed gives the same sample)."""
    program: SceneProgram
    description: str
    """Natural-language description; states every fact the question depends on."""
    question: Question
    instructions: list[OpenInstruction]
    facts: dict[str, Any]
    """A summary of the scene's facts (objects, counts, scene-level facts)."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """requested_capability, mapped (True when free text was mapped to a built-in one),
    attempts (draws needed)."""

    def png(self, size: int | None = None) -> bytes:
        """The rendered image (PNG bytes), optionally at size x size."""
        return render_png(self.program, size, size)


def _sub_seed(*parts: object) -> int:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()
    return int(digest[:15], 16)


def _summary(facts: SceneFacts, question: Question) -> dict[str, Any]:
    return {
        "objects": [
            {
                "index": o.index,
                "category": o.category,
                "color": o.color,
                "texture": o.texture,
                "region": o.region,
                "visible": round(o.visible, 3),
                "askable": o.askable,
                "text": o.text,
            }
            for o in facts.objects
        ],
        "counts_by_category": facts.counts_by_category,
        "counts_by_color": facts.counts_by_color,
        "labels": [list(label) for label in facts.labels],
        "scene": facts.scene.model_dump(),
        "subjects": question.subjects,
    }


class ProceduralExaminer:
    """Writes AutoBench-V items for the built-in taxonomy without any model.

    ``threshold`` is the smallest visible fraction of an object that a question may be about;
    ``canvas`` the program's image size.
    """

    def __init__(
        self,
        threshold: float = DEFAULT_VISIBLE_THRESHOLD,
        canvas: int = 512,
        max_attempts: int = 80,
    ) -> None:
        self.threshold = threshold
        self.canvas = canvas
        self.max_attempts = max_attempts

    @staticmethod
    def resolve(capability: str) -> tuple[str, bool]:
        """(built-in capability, whether ``capability`` named it exactly)."""
        return nearest_capability(capability)

    def aspects(self, capability: str) -> list[tuple[str, str, str]]:
        """(general aspect, fine aspect, guideline) for a capability (free text is mapped)."""
        return fine_aspects(self.resolve(capability)[0])

    def sample(
        self,
        capability: str,
        general_aspect: str,
        fine_aspect: str,
        difficulty: str,
        seed: int,
        truth: bool | None = None,
    ) -> SceneSample:
        """One item for a fine aspect at a difficulty; for a true/false aspect, ``truth`` (if
        given) is the truth value its statement must have (a multiple-choice aspect ignores
        it). Raises ExaminerError for unknown names, or when no draw gives a question."""
        builtin, exact = self.resolve(capability)
        guideline = self._check(builtin, general_aspect, fine_aspect, difficulty)
        recipe = RECIPES[fine_aspect]
        wanted = None if truth is None or recipe.kind != "tf" else ("true" if truth else "false")
        for attempt in range(self.max_attempts):
            rng = random.Random(_sub_seed(seed, builtin, fine_aspect, difficulty, attempt))
            drawn = self._draw(recipe, rng, difficulty)
            if drawn is None or (wanted is not None and drawn[1].correct != wanted):
                continue
            scene, question = drawn
            meta = {
                "requested_capability": capability,
                "mapped": not exact,
                "attempts": attempt + 1,
            }
            if not exact:
                meta["mapped_note"] = f"{capability!r} is not built in; mapped to {builtin!r}"
            return SceneSample(
                capability=builtin,
                general_aspect=general_aspect,
                fine_aspect=fine_aspect,
                guideline=guideline,
                difficulty=difficulty,
                seed=seed,
                program=scene.program,
                description=describe(scene.program, scene.facts, question.evidence),
                question=question,
                instructions=self._instructions(scene),
                facts=_summary(scene.facts, question),
                meta=meta,
            )
        which = "" if wanted is None else f" whose statement is {wanted}"
        raise ExaminerError(
            f"no question{which} for {fine_aspect!r} at {difficulty} after "
            f"{self.max_attempts} draws"
        )

    def _check(self, capability: str, general: str, fine: str, difficulty: str) -> str:
        if difficulty not in DIFFICULTIES:
            raise ExaminerError(
                f"difficulty {difficulty!r}: expected one of {', '.join(DIFFICULTIES)}"
            )
        generals = TAXONOMY[capability]
        if general not in generals:
            raise ExaminerError(
                f"general aspect {general!r} is not part of {capability!r}; "
                f"expected one of {', '.join(generals)}"
            )
        if fine not in generals[general]:
            raise ExaminerError(
                f"fine aspect {fine!r} is not part of {general!r}; expected one "
                f"of {', '.join(generals[general])}"
            )
        return generals[general][fine]

    def _draw(
        self, recipe: Recipe, rng: random.Random, difficulty: str
    ) -> tuple[Scene, Question] | None:
        builder = SceneBuilder(rng, difficulty)
        try:
            recipe.build(builder)
        except Retry:
            return None
        program = builder.build().model_copy(
            update={"canvas": Canvas(width=self.canvas, height=self.canvas)}
        )
        scene = Scene(program, compute_facts(program, self.threshold))
        question = recipe.ask(scene, rng)
        return None if question is None else (scene, question)

    def _instructions(self, scene: Scene) -> list[OpenInstruction]:
        program, facts = scene.program, scene.facts
        return [
            OpenInstruction(
                kind="describe",
                instruction="Describe this image in detail.",
                reference=describe(program, facts),
            ),
            OpenInstruction(
                kind="count",
                instruction="Count the objects in the image by kind "
                "and colour, and explain how you counted.",
                reference=count_reference(facts),
            ),
            OpenInstruction(
                kind="caption",
                instruction="Write a one-sentence caption for this image.",
                reference=caption(program, facts),
            ),
            OpenInstruction(
                kind="story",
                instruction="Write a three-sentence story about this scene.",
                reference=story(program, facts),
            ),
        ]

    def iter_samples(
        self,
        capabilities: Sequence[str] = CAPABILITIES,
        difficulties: Sequence[str] = DIFFICULTIES,
        per_aspect: int = 1,
        seed: int = 0,
    ) -> Iterator[SceneSample]:
        """Every fine aspect of every capability at every difficulty, ``per_aspect`` times."""
        for capability in capabilities:
            for general, fine, _ in self.aspects(capability):
                for difficulty in difficulties:
                    for k in range(per_aspect):
                        yield self.sample(
                            capability, general, fine, difficulty, _sub_seed(seed, k) % 2**31
                        )

    def sample_capability(
        self, capability: str, difficulty: str, n: int, seed: int = 0
    ) -> list[SceneSample]:
        """``n`` items for one capability, cycling through its fine aspects in order."""
        aspects = self.aspects(capability)
        out = []
        for i in range(n):
            general, fine, _ = aspects[i % len(aspects)]
            out.append(
                self.sample(capability, general, fine, difficulty, _sub_seed(seed, i) % 2**31)
            )
        return out
