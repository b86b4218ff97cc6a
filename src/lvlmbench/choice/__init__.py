"""Choice items (multiple choice with lettered options, true/false): the prompt an examinee sees
and its inverse (:mod:`.prompt`), reading the chosen answer back out of free text
(:mod:`.extraction`; an LLM reads what the rules cannot, :mod:`.llm_extract`), and scoring it
against the key (:mod:`.scoring`)."""

from lvlmbench.choice.extraction import Extraction, extract_choice
from lvlmbench.choice.llm_extract import ExtractorSummary, extract_unparseable
from lvlmbench.choice.prompt import (
    ChoiceKind,
    ParsedChoice,
    parse_choice_prompt,
    render_choice_prompt,
)
from lvlmbench.choice.scoring import score_choice

__all__ = [
    "ChoiceKind",
    "Extraction",
    "ExtractorSummary",
    "ParsedChoice",
    "extract_choice",
    "extract_unparseable",
    "parse_choice_prompt",
    "render_choice_prompt",
    "score_choice",
]
