"""A chat model as the AutoBench-V examiner: every stage is a structured-output call.

Text mode sends the description to a text-to-image model; scene mode has the examiner write a
scene program (JSON against :class:`lvlmbench.scenes.SceneProgram`) that the procedural
renderer draws exactly. Either way the examiner, as an LVLM, answers its own check questions on
the rendered image, and writes questions from the description and recorded errors only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from lvlmbench._workers import run_cpu
from lvlmbench.autobench._backend import (
    AspectPlan,
    AssignedKey,
    CheckRecord,
    KeyCheck,
    KeyMismatch,
    PlannedAspect,
    QuestionDraft,
    StoredDescription,
    UnitDraft,
    UnitValidation,
)
from lvlmbench.autobench._drafts import Description, FailedDescription
from lvlmbench.autobench.aspects import write_aspects
from lvlmbench.autobench.descriptions import write_descriptions
from lvlmbench.autobench.diversity import SemanticGraph, linear_exclusions
from lvlmbench.autobench.guidelines import write_guideline
from lvlmbench.autobench.questions import QuestionDraft as Reply
from lvlmbench.autobench.questions import Reasked, write_question
from lvlmbench.autobench.scene_mode import write_scene_program
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.autobench.stages import UnitChain, question_kind, standard_chain
from lvlmbench.autobench.validate import answer_checks_on_image, write_checks
from lvlmbench.models import ModelClient
from lvlmbench.prompts import load_prompt
from lvlmbench.types import Status

__all__ = ["NO_GUIDELINE", "ModelBackend"]

NO_GUIDELINE = load_prompt("autobench/no_guideline.md").strip()
"""What the description prompt says in place of a guideline in the ablation (--no-guidelines)."""


class ModelBackend:
    """ExaminerBackend over a chat model (any provider)."""

    def __init__(
        self,
        examiner: ModelClient,
        *,
        mode: Literal["scene", "text"] = "text",
        k_checks: int = 5,
        diversity_graph: bool = True,
        exclusions: Callable[[int], int] = linear_exclusions,
        guidelines: bool = True,
    ) -> None:
        self.examiner = examiner
        self.mode = mode
        self.k_checks = k_checks
        self.diversity_graph = diversity_graph
        self.exclusions = exclusions
        self.guidelines = guidelines
        self.name = f"{examiner.spec} ({mode} mode)"

    async def plan(self, capability: str, n: int, m: int) -> AspectPlan:
        tree = await write_aspects(self.examiner, capability, n, m)
        problems = list(tree.problems)
        aspects = []
        for general, fine in tree.fine_aspects():
            text = NO_GUIDELINE
            if self.guidelines:
                guideline = await write_guideline(
                    self.examiner, capability, general.name, fine.name
                )
                if guideline.value is None:
                    problems.append(f"no guideline for {fine.name!r}: {guideline.reason}")
                    continue
                text = guideline.value.text
            aspects.append(
                PlannedAspect(
                    capability=capability, general=general.name, fine=fine.name, guideline=text
                )
            )
        return AspectPlan(capability=capability, aspects=aspects, problems=problems)

    async def describe(
        self, aspect: PlannedAspect, level: str, count: int, seed: int
    ) -> list[StoredDescription]:
        graph = SemanticGraph(self.exclusions, enabled=self.diversity_graph)
        results = await write_descriptions(
            self.examiner,
            aspect.capability,
            aspect.general,
            aspect.fine,
            aspect.guideline,
            level,
            count,
            graph,
            seed=seed % 2**31,
        )
        # A failed round keeps its place (as a failure) so unit indices stay stable on resume.
        return [
            r.value
            if r.value is not None
            else FailedDescription(failure=f"{r.status.value}: {r.reason}")
            for r in results
        ]

    def question_kind(
        self, settings: GenerateSettings, aspect: PlannedAspect, unit_key: str
    ) -> Literal["mc", "tf"]:
        return question_kind(settings, unit_key)

    async def draft(
        self,
        aspect: PlannedAspect,
        level: str,
        description: StoredDescription,
        seed: int,
        attempt: int,
        assigned: AssignedKey,
    ) -> UnitDraft:
        if isinstance(description, FailedDescription):
            return UnitDraft(description="", failure=description.failure)
        if not isinstance(description, Description) or not description.text:
            return UnitDraft(description="", failure="no text")  # another back-end's shape
        text = description.text
        extra: dict[str, Any] = {
            "topic": description.topic,
            "keywords": description.keywords,
            "violations": description.violations,
        }
        if self.mode == "text":
            return UnitDraft(description=text, extra=extra)
        from lvlmbench.scenes import SceneProgram

        program = await write_scene_program(
            self.examiner, text, SceneProgram, attempt=attempt, seed=seed
        )
        if program.value is None:
            return UnitDraft(
                description=text, failure=f"scene program {program.status.value}: {program.reason}"
            )
        return UnitDraft(description=text, scene=program.value.model_dump(mode="json"), extra=extra)

    async def validate(self, draft: UnitDraft, png: bytes, level: str) -> UnitValidation:
        checks = await write_checks(self.examiner, draft.description, self.k_checks)
        if checks.value is None:
            return UnitValidation(
                score=0.0,
                checks=[],
                method="examiner VQA",
                errors=[f"no check questions: {checks.reason}"],
            )
        result = await answer_checks_on_image(self.examiner, checks.value, png)
        records = [
            CheckRecord(
                question=c.question,
                expected=c.expected,
                answered=c.answered,
                correct=c.correct,
                element=c.element,
            )
            for c in result.checks
        ]
        method = "examiner VQA" if result.status is Status.OK else f"examiner VQA ({result.reason})"
        return UnitValidation(
            score=result.score, checks=records, errors=result.errors, method=method
        )

    async def question(
        self,
        draft: UnitDraft,
        errors: list[str],
        level: str,
        assigned: AssignedKey,
        mismatches: Sequence[KeyMismatch] = (),
    ) -> QuestionDraft | str:
        written = await write_question(
            self.examiner,
            draft.description,
            errors,
            level,
            assigned.kind,
            truth=assigned.truth,
            scene=draft.scene is not None,
            reasked=[Reasked(_reply(m.question), m.reason) for m in mismatches],
        )
        if written.value is None:
            return f"question {written.status.value}: {written.reason}"
        value = written.value
        return QuestionDraft(
            text=value.question,
            kind=value.kind,
            correct=value.correct,
            distractors=list(value.distractors),
            form=value.form,
        )

    async def verify_key(self, draft: UnitDraft, question: QuestionDraft) -> KeyCheck:
        if draft.scene is None:
            return KeyCheck(verdict="not checkable", reason="text mode: no program to check")
        verdict, reason = await run_cpu(check_scene_key, draft.scene, question)
        return KeyCheck.model_validate({"verdict": verdict, "reason": reason})

    def stages(self) -> UnitChain:
        return standard_chain(self)

    async def aclose(self) -> None:
        await self.examiner.aclose()


def _reply(question: QuestionDraft) -> Reply:
    """An earlier question as the examiner wrote it (to show it its own reply again)."""
    return Reply(
        question=question.text,
        kind=question.kind,
        correct=question.correct,
        distractors=list(question.distractors),
        form=question.form,
    )


def check_scene_key(scene: dict[str, Any], question: QuestionDraft) -> tuple[str, str]:
    """The key of a question recomputed from the facts of the exactly rendered program by the
    question's form (runs in a worker process: computing facts draws the program's masks)."""
    from lvlmbench.scenes import SceneProgram
    from lvlmbench.scenes.facts import compute_facts
    from lvlmbench.scenes.keycheck import check_key

    facts = compute_facts(SceneProgram.model_validate(scene))
    q = question
    verdict = check_key(facts, q.text, q.kind, q.correct, list(q.distractors), q.form)
    return verdict.verdict, verdict.reason
