"""The last multiple-choice tier: an option's text inside a sentence ("The ball is green.").

Exactly one option's text, said plainly, is that option. Occurrences that are negated ("not
green", "green is wrong", "不是绿色"), hypothetical ("if it were green") or hedged ("maybe
green", "green or something else") are no answer: a negated or hypothetical one is set aside,
a hedged one makes the whole answer unparseable, and the texts of two options said plainly are
two answers, so unparseable too. Where option texts overlap ("red" / "dark red") the longer
one said is the one meant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from lvlmbench.choice._evidence import (
    _CJK,
    _NEGATED,
    _REFUSAL,
    Extraction,
    _before,
    _hypothetical,
)
from lvlmbench.types import Status

_WORD = re.compile(rf"[0-9]+(?:[.,][0-9]+)*[a-z0-9]*|[a-z0-9]+|{_CJK}")
_NEGATED_HERE = re.compile(r"n't\b|\bnever\b", re.I)
_HEDGED = re.compile(
    r"\b(?:maybe|might|could|perhaps|possibly|probably|likely|unsure|not\s+sure|either)\b"
    r"|可能|也许|也許|或许|或許|大概",
    re.I,
)
_OR_AFTER = re.compile(r"\s*,?\s*(?:\bor\b|/|或)", re.I)
_RULED_OUT_AFTER = re.compile(
    r"[\s.,)]*(?:is|are|was|seems|would\s+be)\s+(?:\w+ly\s+)?"
    r"(?:not|wrong|incorrect|false|unlikely|eliminated|ruled\s+out)\b|[\s,]*(?:是)?(?:错|錯|不)",
    re.I,
)


@dataclass(frozen=True)
class _Said:
    letter: str
    first: int
    last: int
    """Word indexes (inclusive) of the option text in the answer."""
    start: int
    end: int
    """Character offsets of the same span."""


def _occurrences(text: str, by_text: Mapping[str, str | None]) -> list[_Said]:
    words = list(_WORD.finditer(text.lower()))
    tokens = [w.group(0) for w in words]
    found: list[_Said] = []
    for key, letter in by_text.items():
        wanted = key.split()
        if letter is None or not wanted or (len(key) == 1 and key.isascii() and key.isalpha()):
            continue  # ambiguous text, or a lone "a"/"b" that reads as a letter
        size = len(wanted)
        for i in range(len(tokens) - size + 1):
            if tokens[i : i + size] == wanted:
                last = i + size - 1
                found.append(_Said(letter, i, last, words[i].start(), words[last].end()))
    # "dark red" said: the "red" inside it is not option "red" said as well.
    return [
        s
        for s in found
        if not any(
            o.letter != s.letter and o.first <= s.first and s.last <= o.last and o != s
            for o in found
        )
    ]


def _ruled_out(text: str, said: _Said) -> bool:
    clause = _before(text, said.start, ".!?\n,;")
    return bool(
        _NEGATED.search(clause)
        or _NEGATED_HERE.search(clause)
        or _RULED_OUT_AFTER.match(text, said.end)
        or _hypothetical(text, said.start)
    )


def _hedged(text: str, said: _Said) -> bool:
    return bool(
        _HEDGED.search(_before(text, said.start, ".!?\n,;")) or _OR_AFTER.match(text, said.end)
    )


def option_in_sentences(text: str, by_text: Mapping[str, str | None]) -> Extraction | None:
    """The one option whose text the answer says plainly; UNPARSEABLE when it hedges or says
    several; None when no option's text is said (or the answer refuses)."""
    if _REFUSAL.search(text):
        return None
    said = [s for s in _occurrences(text, by_text) if not _ruled_out(text, s)]
    if not said:
        return None
    hedged = sorted({s.letter for s in said if _hedged(text, s)})
    if hedged:
        reason = f"hedges on the text of option {', '.join(hedged)}"
        return Extraction(None, Status.UNPARSEABLE, reason, "sentence-text")
    letters = sorted({s.letter for s in said})
    if len(letters) > 1:
        reason = f"says the texts of options {', '.join(letters)} without choosing"
        return Extraction(None, Status.UNPARSEABLE, reason, "sentence-text")
    return Extraction(letters[0], Status.OK, None, "sentence-text")
