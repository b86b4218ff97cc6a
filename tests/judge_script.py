"""What the tests' scripted judge answers, and how the generation-settings flags map to the API.

One judge for every protocol the judge commands run: a hallucination score, TouchStone's two
scores, a pairwise verdict for the answer marked GOOD, and otherwise a reference answer (the
writer of caption-assisted references). Shared by the judge CLI tests and the CLI/API parity
tests so both drive the same judge.
"""

from __future__ import annotations

import re

from lvlmbench.types import Message, ModelOutput

__all__ = ["SETTINGS_FLAGS", "scripted_judge_reply"]

SETTINGS_FLAGS = {  # flag -> GenerationSettings field, given to the API as `config`
    "max_tokens": "max_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "seed": "seed",
    "system_prompt": "system",
    "param": "params",
}


def scripted_judge_reply(messages: list[Message]) -> ModelOutput:
    text = messages[-1].text()
    if "Hallucination score" in text:
        return ModelOutput(text="Hallucination score: 3")
    if "Assistant 1" in text:
        return ModelOutput(text="7 6\nfine")
    if "Response A" in text:
        a = re.search(r'Response A:\n"""\n(.*?)\n"""', text, re.S)
        return ModelOutput(text="[[A]]" if a and "GOOD" in a.group(1) else "[[B]]")
    return ModelOutput(text="A caption-assisted reference answer.")
