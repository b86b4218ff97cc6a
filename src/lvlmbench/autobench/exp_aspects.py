"""Aspect diversity vs the numbers of aspects (the paper's Table 1, which chose n = 4, m = 6).

For each (n, m) of a grid the examiner plans the aspects of one capability, and the plan is
scored by how different its fine aspects are from each other: one minus the mean pairwise
Jaccard similarity of their content words (name and guideline), so 1 means no two aspects
share a word. Near-duplicates (name similarity ≥ 0.5) and the plan's shortfalls are counted
beside it, since a bigger grid point only helps if the examiner can fill it with distinct ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from pydantic import BaseModel

from lvlmbench.autobench._backend import ExaminerBackend, PlannedAspect
from lvlmbench.autobench.aspects import normalise_name
from lvlmbench.autobench.diversity import content_tokens, jaccard

__all__ = ["NEAR_DUPLICATE", "AspectDiversity", "aspect_diversity", "aspect_grid"]

NEAR_DUPLICATE = 0.5
"""Name similarity (token Jaccard) from which two fine aspects count as near-duplicates."""


class AspectDiversity(BaseModel):
    """How varied one plan's fine aspects are."""

    n: int
    m: int
    general: int
    """General aspects in the plan."""
    fine: int
    """Fine aspects in the plan (n·m when the examiner filled it)."""
    diversity: float | None
    """1 − mean pairwise Jaccard of the fine aspects' content words (None below two)."""
    near_duplicates: int
    """Pairs of fine aspect names with similarity ≥ NEAR_DUPLICATE."""
    problems: int
    """Shortfalls the plan recorded."""


def aspect_diversity(
    n: int, m: int, aspects: Sequence[PlannedAspect], problems: int = 0
) -> AspectDiversity:
    """Score one plan's fine aspects."""
    words = [set(content_tokens(f"{a.fine} {a.guideline}")) for a in aspects]
    pairs = list(combinations(words, 2))
    names = [set(normalise_name(a.fine)) for a in aspects]
    near = sum(1 for a, b in combinations(names, 2) if jaccard(a, b) >= NEAR_DUPLICATE)
    return AspectDiversity(
        n=n,
        m=m,
        general=len({a.general for a in aspects}),
        fine=len(aspects),
        diversity=1 - sum(jaccard(a, b) for a, b in pairs) / len(pairs) if pairs else None,
        near_duplicates=near,
        problems=problems,
    )


async def aspect_grid(
    backend: ExaminerBackend, capability: str, ns: Sequence[int], ms: Sequence[int]
) -> list[AspectDiversity]:
    """Plan ``capability`` at every (n, m) and score each plan (model calls are cached)."""
    bad = [v for v in (*ns, *ms) if v < 1]
    if bad or not ns or not ms:
        raise ValueError(f"grid n={list(ns)}, m={list(ms)}: every value must be at least 1")
    rows = []
    for n in ns:
        for m in ms:
            plan = await backend.plan(capability, n, m)
            rows.append(aspect_diversity(n, m, plan.aspects, len(plan.problems)))
    return rows
