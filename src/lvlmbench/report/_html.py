"""HTML building blocks shared by the report's section renderers.

Cells arrive escaped: :func:`td` escapes its text, and :func:`table` escapes only the heads.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from lvlmbench.stats import format_interval

__all__ = ["TURN_AT", "ci", "fmt", "human_label", "table", "td"]


def human_label(key: str) -> str:
    """A stored figure's key as a reader says it: ``accepted_with_errors`` -> "accepted with
    errors", ``n_items`` -> "n items". Only for the program's own keys; names users chose
    (models, capabilities) are shown as they were given."""
    return " ".join(key.replace("_", " ").split())


def fmt(value: Any, digits: int = 1) -> str:
    """A number with ``digits`` decimals; None as "-"."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def ci(low: float | None, high: float | None, digits: int = 1) -> str:
    """An interval as "low–high" ("-" when unknown): :func:`lvlmbench.stats.format_interval`."""
    return format_interval(low, high, digits=digits)


TURN_AT = 8
"""More groups than this (and than models) and a table turns, groups as rows and models as
columns: MME's 14 categories or MMMU's 30 subjects as columns made pages thousands of pixels
wide (MMBench, MME and MMMU in one summary: 4,222 px)."""


def table(head: Sequence[str], rows: Sequence[Sequence[str]], css: str = "") -> str:
    """Cells are given already escaped (they may carry markup such as data attributes)."""
    ths = "".join(f"<th>{escape(h)}</th>" for h in head)
    trs = "".join("<tr>" + "".join(cells) + "</tr>" for cells in rows)
    return f'<table class="{css}"><thead><tr>{ths}</tr></thead><tbody>{trs}</tbody></table>'


def td(text: str, **data: str) -> str:
    """One escaped cell; keyword arguments become ``data-*`` attributes (tests find cells so)."""
    attrs = "".join(f' data-{k.replace("_", "-")}="{escape(v)}"' for k, v in data.items())
    return f"<td{attrs}>{escape(text)}</td>"
