"""One attempt at a unit as a chain of typed stages: draft → render → self-check → question → key.

A stage turns one typed value into the next (``Stage[In, Out]``) or rejects the attempt with a
:class:`~lvlmbench.autobench._unit.Decision` and a reason; it may note what it found in the
attempt's history record. :class:`Chain` composes stages so that each one's input type is the
previous one's output type (mypy checks the order), and the back-end supplies the chain the
pipeline runs (:func:`standard_chain` for both built-in examiners): a new stage is one class
here and one ``.then`` in :func:`standard_chain`.

Caching and resuming: a stage stores nothing itself. Every model and image call it makes goes
through the cached clients, and the pipeline stores each finished unit, so a resumed run skips
finished units and replays an unfinished one from the caches at no cost.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import TYPE_CHECKING, Literal, TypeVar

from lvlmbench.autobench._chain import (
    AttemptContext,
    Chain,
    Checked,
    Keyed,
    Questioned,
    Rejected,
    Rendered,
    Stage,
    Unit,
    UnitChain,
    chain,
)
from lvlmbench.autobench._drafts import (
    KeyMismatch,
    PlannedAspect,
    UnitDraft,
)
from lvlmbench.autobench._unit import AttemptRecord, Decision
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.images import ImageRequest

if TYPE_CHECKING:  # the stages take a back-end; the protocol is named only in annotations
    from lvlmbench.autobench._backend import ExaminerBackend

__all__ = [
    "KEY_REASKS",
    "AttemptContext",
    "Chain",
    "Checked",
    "Draft",
    "KeyAgrees",
    "KeyMatch",
    "Keyed",
    "Question",
    "Questioned",
    "Rejected",
    "Render",
    "Rendered",
    "SelfCheck",
    "Stage",
    "Threshold",
    "Unit",
    "UnitChain",
    "chain",
    "group_key",
    "question_kind",
    "stable_seed",
    "standard_chain",
    "unit_key",
]

In = TypeVar("In")
Out = TypeVar("Out")
Next = TypeVar("Next")


def stable_seed(*parts: object) -> int:
    """A seed that depends only on ``parts`` (not on the process's hash randomisation)."""
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def group_key(aspect: PlannedAspect, level: str) -> str:
    """The key of one fine aspect at one level: its descriptions' artifact, its units' prefix."""
    return f"{aspect.general}|{aspect.fine}|{level}"


def unit_key(aspect: PlannedAspect, level: str, index: int) -> str:
    """The key a unit is stored under: its group and its description's index."""
    return f"{group_key(aspect, level)}|{index}"


"""What a back-end supplies: from a unit to a checked question."""


class Draft(Stage[Unit, UnitDraft]):
    """The back-end's draft (description, and a scene program in scene mode). Resumes from
    the model cache (scene programs) or recomputes (procedural scenes, in a worker)."""

    name = "draft"

    def __init__(self, backend: ExaminerBackend) -> None:
        self.backend = backend

    async def run(self, ctx: AttemptContext, value: Unit) -> UnitDraft | Rejected:
        # Seeded per unit and attempt as the render is: a redraw sampled at a temperature is a
        # request of its own, not the same bytes sent again.
        seed = stable_seed(ctx.settings.seed, value.key, ctx.attempt, "draft") % 2**31
        draft = await self.backend.draft(
            value.aspect, value.level, value.description, seed, ctx.attempt, value.assigned
        )
        return Rejected(Decision.NO_DRAFT, draft.failure) if draft.failure else draft


class Render(Stage[UnitDraft, Rendered]):
    """The image model draws the draft (a new seed per attempt: a redraw is a new image).
    Resumes from the image cache."""

    name = "render"

    async def run(self, ctx: AttemptContext, value: UnitDraft) -> Rendered | Rejected:
        s = ctx.settings
        request = ImageRequest(
            prompt=value.description,
            scene=value.scene,
            width=s.image_size,
            height=s.image_size,
            seed=stable_seed(s.seed, ctx.unit.key, ctx.attempt) % 2**31,
        )
        output = await ctx.images.generate(request)
        if not output.ok or output.png is None:
            return Rejected(Decision.NO_IMAGE, output.reason or output.status.value)
        return Rendered(value, output.png, hashlib.sha256(output.png).hexdigest())


class SelfCheck(Stage[Rendered, Checked]):
    """The back-end checks the image against the draft; notes image, score, errors, method.
    Resumes from the model cache (examiner VQA) or recomputes (pixel check)."""

    name = "self-check"

    def __init__(self, backend: ExaminerBackend) -> None:
        self.backend = backend

    async def run(self, ctx: AttemptContext, value: Rendered) -> Checked | Rejected:
        check = await self.backend.validate(value.draft, value.png, ctx.unit.level)
        return Checked(value, check)

    def note(self, record: AttemptRecord, value: Checked) -> AttemptRecord:
        c = value.check
        errors = tuple(c.errors)
        return replace(
            record, image=value.rendered.digest, score=c.score, errors=errors, method=c.method
        )


class Threshold(Stage[Checked, Checked]):
    """Reject an image whose alignment is below the level's ζ (pure: nothing to cache)."""

    name = "threshold"

    async def run(self, ctx: AttemptContext, value: Checked) -> Checked | Rejected:
        zeta = ctx.settings.zeta[ctx.unit.level]
        return Rejected(Decision.REJECT) if value.check.score < zeta else value


def question_kind(settings: GenerateSettings, key: str) -> Literal["mc", "tf"]:
    """Whether a model examiner writes a true/false or a multiple-choice question for a unit."""
    draw = (stable_seed(settings.seed, "kind", key) % 1000) / 1000
    return "tf" if draw < settings.tf_share else "mc"


class Question(Stage[Checked, Questioned]):
    """A question written from the description and the recorded errors only, of the kind the
    key plan assigned (a statement with its truth value). Resumes from the model cache; the
    procedural examiner's question was written with the draft."""

    name = "question"

    def __init__(self, backend: ExaminerBackend) -> None:
        self.backend = backend

    async def run(self, ctx: AttemptContext, value: Checked) -> Questioned | Rejected:
        draft = value.rendered.draft
        question = await self.backend.question(
            draft, value.check.errors, ctx.unit.level, ctx.unit.assigned
        )
        if isinstance(question, str):
            return Rejected(Decision.NO_QUESTION, question)
        return Questioned(value, question)


KEY_REASKS = 2
"""How often a question whose key the program contradicts is asked again (with the reason)
before the unit is dropped."""


class KeyMatch(Stage[Questioned, Keyed]):
    """The key recomputed from the drawn program (in a worker). On a mismatch the examiner is
    asked again with the reason, up to :data:`KEY_REASKS` times: the image is fine, the question
    is not, so redrawing would waste the render and its self-check and then replay the same
    cached question. Notes the verdict and the re-asks."""

    name = "key check"

    def __init__(self, backend: ExaminerBackend) -> None:
        self.backend = backend

    async def run(self, ctx: AttemptContext, value: Questioned) -> Keyed | Rejected:
        draft = value.checked.rendered.draft
        question = value.question
        key = await self.backend.verify_key(draft, question)
        mismatches: list[KeyMismatch] = []
        while key.verdict == "mismatch" and len(mismatches) < KEY_REASKS:
            mismatches.append(KeyMismatch(question, key.reason))
            again = await self.backend.question(
                draft, value.checked.check.errors, ctx.unit.level, ctx.unit.assigned, mismatches
            )
            if isinstance(again, str):  # no usable question: the mismatch stands
                key = key.model_copy(update={"reason": f"{key.reason}; asked again: {again}"})
                break
            question = again
            key = await self.backend.verify_key(draft, question)
        audited = key.model_copy(
            update={"reasks": len(mismatches), "mismatches": [m.reason for m in mismatches]}
        )
        return Keyed(replace(value, question=question), audited)

    def note(self, record: AttemptRecord, value: Keyed) -> AttemptRecord:
        return replace(record, key_check=value.key.verdict, key_reasks=value.key.reasks)


class KeyAgrees(Stage[Keyed, Keyed]):
    """Drop a unit whose key the drawn program still contradicts after the re-asks (pure:
    nothing to cache). Dropped, not redrawn: the image passed its self-check."""

    name = "key agrees"

    async def run(self, ctx: AttemptContext, value: Keyed) -> Keyed | Rejected:
        if value.key.verdict == "mismatch":
            return Rejected(Decision.KEY_MISMATCH, f"key mismatch: {value.key.reason}")
        return value


def standard_chain(backend: ExaminerBackend) -> UnitChain:
    """The paper's order, for any back-end: draft, render, self-check (ζ), question, key."""
    return (
        chain(Draft(backend))
        .then(Render())
        .then(SelfCheck(backend))
        .then(Threshold())
        .then(Question(backend))
        .then(KeyMatch(backend))
        .then(KeyAgrees())
    )
