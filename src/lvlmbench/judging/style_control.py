"""Style control for stored pairwise results: join each match to the two answers' texts, then
fit :func:`lvlmbench.ratings.style_bradley_terry`.

A match is ``(item id, first player, second player, outcome)``; the answers are the store's
texts per (item, player) (:func:`lvlmbench.judging.reference.answer_texts`: the default-variant
response, or the item's reference for the reference player). A match where either text is
missing is left out of the style fit and counted in ``matches_without_text``, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lvlmbench.judging.pairwise_json import StyleControlJSON
from lvlmbench.ratings import StyleCounts, StyleRatings, style_bradley_terry, style_features

__all__ = ["StyleControl", "style_control"]

SPARSE_L2 = 1.0
"""Ridge used when the unpenalised fit has no finite optimum, as for the raw Bradley-Terry."""


@dataclass(frozen=True)
class StyleControl:
    """Style-controlled ratings beside the raw ones, and how many matches they rest on."""

    ratings: StyleRatings | None
    matches_used: int
    matches_without_text: int
    note: str | None = None

    def as_dict(self) -> StyleControlJSON:
        """Plain JSON-able values (for ``--json``, the report and the web app)."""
        fit = self.ratings
        return {
            "matches_used": self.matches_used,
            "matches_without_text": self.matches_without_text,
            "note": self.note,
            "ratings": None
            if fit is None
            else {
                p: {"rating": r, "low": fit.intervals[p].low, "high": fit.intervals[p].high}
                for p, r in fit.ratings.items()
            },
            "coefficients": None
            if fit is None
            else {
                f: {
                    "value": v,
                    "low": fit.coefficient_intervals[f].low,
                    "high": fit.coefficient_intervals[f].high,
                    "scale": fit.feature_scales[f],
                }
                for f, v in fit.coefficients.items()
            },
            "constant_features": [] if fit is None else list(fit.constant_features),
            "rounds": None if fit is None else fit.rounds,
        }


def style_control(
    matches: Sequence[tuple[str, str, str, float]],
    texts: Mapping[str, Mapping[str, str]],
    *,
    rounds: int,
    seed: int = 0,
) -> StyleControl:
    """Style-controlled Bradley-Terry over the ``matches`` whose two answers are in ``texts``
    (``{item id: {player: text}}``). With no such match, or data too sparse even for the
    regularised fit, ``ratings`` is None and ``note`` says why."""
    counted: dict[tuple[str, str], StyleCounts] = {}
    kept: list[tuple[str, str, float]] = []
    sides: tuple[list[StyleCounts], list[StyleCounts]] = ([], [])
    for item_id, first, second, outcome in matches:
        answers = texts.get(item_id, {})
        if first not in answers or second not in answers:
            continue
        for player, side in ((first, sides[0]), (second, sides[1])):
            if (item_id, player) not in counted:
                counted[(item_id, player)] = style_features(answers[player])
            side.append(counted[(item_id, player)])
        kept.append((first, second, outcome))
    missing = len(matches) - len(kept)
    if not kept:
        return StyleControl(None, 0, missing, "no match has both answers' texts")
    note = None
    try:
        try:
            fit = style_bradley_terry(kept, sides[0], sides[1], rounds=rounds, seed=seed)
        except ValueError:
            fit = style_bradley_terry(
                kept, sides[0], sides[1], rounds=rounds, seed=seed, l2=SPARSE_L2
            )
            note = f"sparse data: style-controlled fit with l2={SPARSE_L2} regularisation"
    except ValueError as error:
        return StyleControl(None, len(kept), missing, f"style control not fitted: {error}")
    return StyleControl(fit, len(kept), missing, note)
