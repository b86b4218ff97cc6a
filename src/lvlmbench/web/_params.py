"""The item browser's query parameters, shared by its page and the JSON API (one parser, so
both answer the same question with the same items)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import HTTPException, Query

from lvlmbench.web.queries import OUTCOMES, VERDICTS, ItemFilter

__all__ = ["QUERY_NAMES", "browser_query", "item_filter"]

_Text = Annotated[str, Query(max_length=512)]
QUERY_NAMES = {"search": "q"}
"""ItemFilter fields whose query parameter has another name."""


def item_filter(
    model: _Text = "",
    capability: _Text = "",
    aspect: _Text = "",
    difficulty: _Text = "",
    result: Annotated[str, Query(alias="outcome", max_length=32)] = "",
    verdict: Annotated[str, Query(max_length=32)] = "",
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    q: _Text = "",
    right: _Text = "",
    wrong: _Text = "",
) -> ItemFilter:
    """The filter the query asks for; 422 naming the allowed values for an unknown choice."""
    if (result and result not in OUTCOMES) or (verdict and verdict not in VERDICTS):
        raise HTTPException(422, f"outcome must be one of {OUTCOMES}; verdict one of {VERDICTS}")
    return ItemFilter(model, capability, aspect, difficulty, result, verdict, page, q, right, wrong)


def browser_query(wanted: ItemFilter) -> dict[str, str]:
    """The query parameters that ask for ``wanted`` again (the page left out), for links."""
    fields = asdict(wanted)
    return {QUERY_NAMES.get(k, k): str(v) for k, v in fields.items() if v and k != "page"}
