"""The leaderboard page's style-controlled ratings from people's votes (the model judges'
come with the report's pairwise section): the block `lvlmbench rate -j human --style-control`
prints, drawn by the report's renderer."""

from __future__ import annotations

from lvlmbench.judging import human_report
from lvlmbench.report.render_style import style_block
from lvlmbench.store import Store

__all__ = ["human_style_html"]


def human_style_html(store: Store, benchmark: str, *, rounds: int = 200) -> str:
    """The escaped HTML block ('' when there are no usable votes)."""
    report = human_report(store, benchmark, rounds=rounds, style=True)
    if report.style is None:
        return ""
    return style_block(report.as_dict())
