"""The key plan: before any unit is built, whether it asks a multiple-choice question or a
true/false statement, and for a statement the truth value it must have.

True/false keys cannot be balanced afterwards: a statement written to be true cannot be made
false by flipping its key. So the truth value is assigned first, spread like the answer letters
(:func:`~lvlmbench.autobench.balance.spread`: even within every level × fine aspect, each
level within one), and the question writer is asked for a statement with that value (a model
through its prompt; the procedural examiner draws scenes until its statement has it).

The plan is a pure function of the aspect plan and the settings (capability and seed among
them), computed over every planned unit, so a resumed run, and a run built in rounds, give each
unit the same assignment as one uninterrupted run; two capabilities of one seed get their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from lvlmbench.autobench._backend import AspectPlan, AssignedKey, PlannedAspect
from lvlmbench.autobench.balance import Slot, spread
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.autobench.stages import unit_key

__all__ = ["TRUTHS", "KindOf", "key_plan"]

TRUTHS = ("true", "false")

KindOf = Callable[[PlannedAspect, str], Literal["mc", "tf"]]
"""Which kind of question the back-end writes for a unit (its aspect and key)."""


def _stratum(aspect: PlannedAspect) -> str:
    return "|".join((aspect.tested, aspect.general, aspect.fine))


def key_plan(
    plan: AspectPlan, settings: GenerateSettings, kind_of: KindOf
) -> dict[str, AssignedKey]:
    """The assignment of every unit of ``plan`` (by unit key: ``general|fine|level|index``)."""
    units = [
        (unit_key(aspect, level, index), aspect, level)
        for aspect in plan.aspects
        for level in settings.levels
        for index in range(settings.per_aspect)
    ]
    kinds = {key: kind_of(aspect, key) for key, aspect, _ in units}
    slots = [
        Slot(key, level, _stratum(aspect)) for key, aspect, level in units if kinds[key] == "tf"
    ]
    truths = spread(slots, TRUTHS, ("truths", settings.capability, settings.seed))
    return {
        key: AssignedKey(kinds[key], None if key not in truths else truths[key] == "true")
        for key, _, _ in units
    }
