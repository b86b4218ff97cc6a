"""The JSON shapes of the pairwise report and its style control: what ``lvlmbench rate --json``,
the report's ``summary.json`` and the web API show, key by key.

They are TypedDicts because the JSON itself is the contract: the records
(:class:`~lvlmbench.judging.pairwise_report.PairwiseReport`,
:class:`~lvlmbench.judging.style_control.StyleControl`) are dumped to these shapes only at the
edge, and every reader of a section is checked by mypy against the key it reads.
"""

from __future__ import annotations

from typing import TypedDict

from lvlmbench.ratings import CombineRule, OnlineEloJSON

__all__ = [
    "DiagnosticsJSON",
    "PairwiseReportJSON",
    "RatingJSON",
    "StyleCoefficientJSON",
    "StyleControlJSON",
    "WinRateJSON",
]


class RatingJSON(TypedDict):
    """A player's rating with its 95% bootstrap interval."""

    rating: float
    low: float
    high: float


class StyleCoefficientJSON(TypedDict):
    """A style feature's coefficient with its interval and the feature's scale."""

    value: float
    low: float
    high: float
    scale: float


class StyleControlJSON(TypedDict):
    """Style-controlled ratings and how many matches they rest on (None where no fit)."""

    matches_used: int
    matches_without_text: int
    note: str | None
    ratings: dict[str, RatingJSON] | None
    coefficients: dict[str, StyleCoefficientJSON] | None
    constant_features: list[str]
    rounds: int | None


class WinRateJSON(TypedDict):
    """A model's win rate against the reference with its counts and interval."""

    rate: float
    wins: float
    ties: float
    matches: float
    """Whole numbers, except over several epochs: each epoch's verdict counts 1/K."""
    low: float
    high: float


class DiagnosticsJSON(TypedDict):
    """The judge's biases: position flips, first position, longer answer, its own family."""

    position_flip_rate: float | None
    first_position_win_rate: float | None
    longer_answer_win_rate: float | None
    self_preference_rate: float | None
    """None where nothing was scored (or, for self-preference, no player is the judge's)."""


class PairwiseReportJSON(TypedDict):
    """Everything ``lvlmbench rate`` shows for one judge and protocol."""

    judge: str
    protocol: str
    combine: CombineRule
    reference: str
    items: int
    items_without_reference: int
    epochs: int
    """Epochs judged (the most of any pair); above 1, each verdict counts 1/K of its item."""
    pairs: int
    unscored_pairs: int
    combined_by_judge: int
    """Pairs whose two orders the judge combined itself (FastChat's GPT-4 pair judgments)."""
    statuses: dict[str, int]
    online_elo: OnlineEloJSON | None
    bradley_terry: dict[str, RatingJSON] | None
    bt_note: str | None
    win_rate_vs_reference: dict[str, WinRateJSON]
    category_win_rates: dict[str, dict[str, float]]
    diagnostics: DiagnosticsJSON | None
    warnings: list[str]
    style_control: StyleControlJSON | None
