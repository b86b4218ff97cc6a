"""Judging examinee answers: answer extraction for choice items (more judges to come)."""

from lvlmbench.judging.choice import (
    ChoiceKind,
    Extraction,
    ParsedChoice,
    extract_choice,
    parse_choice_prompt,
    render_choice_prompt,
    score_choice,
)

__all__ = [
    "ChoiceKind",
    "Extraction",
    "ParsedChoice",
    "extract_choice",
    "parse_choice_prompt",
    "render_choice_prompt",
    "score_choice",
]
