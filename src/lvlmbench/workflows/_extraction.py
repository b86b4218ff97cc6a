"""``--extract-with SPEC``: an LLM reads the answers the extraction rules left unparseable
(see :mod:`lvlmbench.choice.llm_extract`)."""

from __future__ import annotations

from collections.abc import Sequence

from lvlmbench.choice import ExtractorSummary, extract_unparseable
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.store import Store

__all__ = ["run_extractor"]


async def run_extractor(
    store: Store,
    benchmark: str,
    spec: str,
    models: Sequence[str],
    *,
    variant: str,
    concurrency: int,
) -> ExtractorSummary:
    """One extraction pass over ``models``' unparseable responses (cached, resumable)."""
    client = ModelClient(load_chat_model(spec), store, concurrency=concurrency)
    try:
        await client.check()  # a dead extractor endpoint stops here, in seconds
        return await extract_unparseable(store, benchmark, client, models=models, variant=variant)
    finally:
        await client.aclose()
