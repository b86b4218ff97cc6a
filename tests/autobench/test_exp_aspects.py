"""Aspect diversity vs (n, m): one plan scored by hand, and a grid over the built-in examiner."""

import pytest

from lvlmbench.autobench._backend import PlannedAspect
from lvlmbench.autobench.exp_aspects import aspect_diversity, aspect_grid
from lvlmbench.autobench.procedural import ProceduralBackend


def _aspect(general: str, fine: str, guideline: str) -> PlannedAspect:
    return PlannedAspect(capability="c", general=general, fine=fine, guideline=guideline)


def test_plan_scored_by_hand():
    aspects = [
        _aspect("g1", "red apples", "show fruit"),  # {red, apples, show, fruit}
        _aspect("g1", "green apples", "show fruit"),  # {green, apples, show, fruit}
        _aspect("g2", "stars", "night sky"),  # {stars, night, sky}
    ]
    row = aspect_diversity(2, 2, aspects, problems=1)
    # Jaccard: first pair 3/5, the other two pairs 0 → mean 1/5 → diversity 4/5.
    assert row.diversity == pytest.approx(0.8)
    assert (row.general, row.fine, row.problems) == (2, 3, 1)
    # names {red, apple} vs {green, apple}: 1/3 < 0.5, so no near-duplicate
    assert row.near_duplicates == 0
    twins = aspect_diversity(
        1, 2, [_aspect("g", "apple colour", "x y"), _aspect("g", "apple colours", "z w")]
    )
    assert twins.near_duplicates == 1  # plurals compare as singular: identical names


def test_single_aspect_has_no_diversity_figure():
    assert aspect_diversity(1, 1, [_aspect("g", "a", "b")]).diversity is None


async def test_grid_over_the_built_in_examiner():
    rows = await aspect_grid(ProceduralBackend(), "spatial understanding", [1, 2], [2, 4])
    assert [(r.n, r.m) for r in rows] == [(1, 2), (1, 4), (2, 2), (2, 4)]
    assert [r.fine for r in rows] == [2, 4, 4, 8]
    assert all(r.diversity is not None and 0 <= r.diversity <= 1 for r in rows)


async def test_bad_grid_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        await aspect_grid(ProceduralBackend(), "spatial understanding", [0], [2])
