"""When a judge run counts as having judged nothing: the one rule under both front doors (the
command exits 1 with the reason, :func:`lvlmbench.api.judge` raises :class:`NothingJudged`)."""

from __future__ import annotations

from lvlmbench.judging import JudgeRunSummary, missing_answers
from lvlmbench.store import Store, iter_items

__all__ = ["NothingJudged", "nothing_judged_reason", "refuse_nothing_judged"]


class NothingJudged(RuntimeError):
    """A judge run that judged nothing; the message says why (a summary of missing units
    would read as a result)."""


def nothing_judged_reason(
    store: Store, benchmark: str, players: list[str], summary: JudgeRunSummary
) -> str:
    """Why a judge run had nothing to judge, or "" when it judged something. A player with no
    answer at all is a reason too: its column would be silently empty."""
    missing = missing_answers(store, benchmark, players)
    items = sum(1 for _ in iter_items(store, benchmark))
    absent = [p for p, n in missing.items() if n == items]
    if absent:
        return (
            f"no answers of {', '.join(absent)} to judge on {benchmark!r} "
            f"(all {items} missing); `lvlmbench evaluate` asks examinees first"
        )
    s = summary
    if s.total == 0:
        need = " (pairwise judging needs two players)" if len(players) < 2 else ""
        return f"{s.judge} [{s.protocol}] had nothing to judge on {benchmark!r}{need}"
    if s.missing == s.total:
        return (
            f"{s.judge} [{s.protocol}] had nothing to judge on {benchmark!r}: every unit "
            f"({s.missing}) lacks an answer, caption or reference"
        )
    return ""


def refuse_nothing_judged(
    store: Store, benchmark: str, players: list[str], summary: JudgeRunSummary
) -> JudgeRunSummary:
    """``summary`` when the run judged something; else :class:`NothingJudged` with the reason."""
    reason = nothing_judged_reason(store, benchmark, players, summary)
    if reason:
        raise NothingJudged(reason)
    return summary
