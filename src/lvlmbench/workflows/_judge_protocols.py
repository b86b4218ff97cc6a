"""How a judge run's protocol judges the players: the built-in pairwise and score judges with
the run's options bound, or a registered protocol's own ``run``; every one takes the keywords
``only`` (a ``--limit`` subset) and, where it judges epochs, ``epochs``."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from lvlmbench.judging import (
    PAIRWISE,
    REFERENCE,
    SCORE,
    JudgeRunSummary,
    ProgressHook,
    RunProtocol,
    protocol_for,
    run_pairwise,
    run_score,
)
from lvlmbench.models import ModelClient
from lvlmbench.store import Store
from lvlmbench.workflows._judge_options import JudgeOptions

__all__ = ["protocol_run"]


def protocol_run(options: JudgeOptions, reference: str | None) -> RunProtocol:
    """How ``options.protocol`` judges the players, with the judge's client and progress."""
    if options.protocol == PAIRWISE:
        backed, include = not options.reference_free, options.reference_free
        include = include and options.play_reference

        async def pairwise(
            s: Store,
            b: str,
            p: Sequence[str],
            c: ModelClient,
            h: ProgressHook | None,
            /,
            *,
            only: Collection[str] | None = None,
            epochs: int = 1,
        ) -> JudgeRunSummary:
            return await run_pairwise(
                s,
                b,
                p,
                c,
                reference_backed=backed,
                include_reference=include,
                on_progress=h,
                only=only,
                epochs=epochs,
            )

        return pairwise
    if options.protocol == SCORE:
        against = reference or REFERENCE

        async def score(
            s: Store,
            b: str,
            p: Sequence[str],
            c: ModelClient,
            h: ProgressHook | None,
            /,
            *,
            only: Collection[str] | None = None,
            epochs: int = 1,
        ) -> JudgeRunSummary:
            return await run_score(
                s, b, p, c, reference=against, on_progress=h, only=only, epochs=epochs
            )

        return score
    run = protocol_for(options.protocol).run
    assert run is not None  # checked: only protocols with a run are runnable
    return run
