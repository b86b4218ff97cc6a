"""Several examinees on one benchmark, one after another: what ``evaluate``, the judge commands
(answering missing examinees first) and the Python API share."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager

# Registers the baseline/... provider: whatever runs examinees runs the weightless ones too (the
# models registry only declares them; see lvlmbench.baselines).
import lvlmbench.baselines  # noqa: F401
from lvlmbench.models import EXAMINEE_MAX_TOKENS, ModelClient, load_chat_model
from lvlmbench.runner._image_watch import image_token_warning
from lvlmbench.runner._runner import EvalSummary, ProgressHook, run_examinee
from lvlmbench.store import Store
from lvlmbench.types import GenerationConfig

__all__ = ["ProgressFor", "run_examinees"]

ProgressFor = Callable[[str, ModelClient], AbstractContextManager[ProgressHook | None]]
"""Given a spec and its client, a context that yields the progress hook of its run."""


@contextlib.contextmanager
def _no_progress(_spec: str, _client: ModelClient) -> Iterator[ProgressHook | None]:
    yield None


async def run_examinees(
    store: Store,
    benchmark: str,
    specs: Sequence[str],
    *,
    variant: str = "default",
    concurrency: int | None,
    epochs: int = 1,
    only: Collection[str] | None = None,
    progress: ProgressFor = _no_progress,
) -> list[EvalSummary]:
    """Run each examinee in turn, each with its own client and concurrency limit (None: the
    client's default, which a local model sets to keep its batches full), after one
    cheap request to its endpoint (a dead one stops the run in seconds). Generation settings
    travel in each spec, and only there (so they are part of each model's identity); the reply
    budget is EXAMINEE_MAX_TOKENS unless a spec sets it. A run whose images added no prompt
    tokens (a server that drops them) ends with a warning in its summary
    (:func:`~lvlmbench.runner._image_watch.image_token_warning`)."""
    config = GenerationConfig(max_tokens=EXAMINEE_MAX_TOKENS)
    summaries = []
    for spec in specs:
        client = ModelClient(load_chat_model(spec), store, concurrency=concurrency)
        try:
            await client.check()
            with progress(spec, client) as hook:
                summary = await run_examinee(
                    store,
                    benchmark,
                    client,
                    variant=variant,
                    config=config,
                    on_progress=hook,
                    epochs=epochs,
                    only=only,
                )
            # Once the answers are in: did the images count? (One cached one-token call.)
            warning = await image_token_warning(
                store, benchmark, client, variant=variant, config=config, only=only
            )
            summary.warnings += [warning] if warning else []
            summaries.append(summary)
        finally:
            await client.aclose()
    return summaries
