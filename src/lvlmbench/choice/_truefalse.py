"""The true/false reader: "true" or "false", or UNPARSEABLE with a reason (the tiers are
described in :mod:`lvlmbench.choice.extraction`)."""

from __future__ import annotations

import re

from lvlmbench.choice._evidence import (
    _DELIMITED,
    Extraction,
    _decide,
    _Hit,
    _hypothetical,
    _line_end,
    _marker_hits,
    _nothing,
    _Read,
    _with,
)
from lvlmbench.types import Status

_TF_WORDS = {
    "true": "true",
    "yes": "true",
    "correct": "true",
    "right": "true",
    "false": "false",
    "no": "false",
    "incorrect": "false",
    "wrong": "false",
}
_TF = re.compile(
    r"[(\[\"']?\s*(?P<neg>not\s+)?(?P<word>true|false|yes|no|correct|incorrect|right|wrong)\b"
    r"(?P<after>\s*(?:or|/)\s*(?:not\s+)?(?:true|false|yes|no)\b)?",
    re.I,
)
_TF_STATEMENT = re.compile(
    r"\b(?:statement|claim|assertion|sentence|it|this|that)(?:'s|\s+is|\s+would\s+be|\s+seems)"
    r"(?P<neg>n't|\s+not)?\s+(?:(?:definitely|clearly|therefore|thus|indeed|actually)\s+)?",
    re.I,
)
_TF_LEAD = re.compile(
    r"\s*[(\[]?\s*(yes|no|true|false|correct|incorrect)[)\]]?(?=\s*(?:[.,!:;-]|$))", re.I
)
_TF_LOOSE = re.compile(r"\b(not\s+|n't\s+)?(true|false)\b", re.I)


def _tf_read(phrase: str, *, yes_no: bool = True, negated: bool = False) -> _Read | None:
    """The verdict at the start of ``phrase``. ``yes_no`` is off after "it is ..." because
    "it is no surprise" is no verdict; ``negated`` flips it ("it isn't true")."""
    phrase = phrase.lstrip(" \t\"'“”")
    match = _TF.match(phrase)
    if match is None:
        return None
    word = match.group("word").lower()
    if word in ("yes", "no") and not yes_no:
        return None
    if word in ("right", "wrong") and not _DELIMITED.match(phrase[match.end() :]):
        return None  # "it is right next to the tree" is a place, not a verdict
    if match.group("after"):
        return _Read(None, f"hedges: {match.group(0).strip()!r}")
    value = _TF_WORDS[word]
    if bool(match.group("neg")) != negated:
        value = "false" if value == "true" else "true"
    return _Read(value)


def _extract_tf(text: str) -> Extraction:
    hits = _marker_hits(text, _tf_read)
    hits += [
        _Hit(m.end(), 1, _with(r, "statement"))
        for m in _TF_STATEMENT.finditer(text)
        if not _hypothetical(text, m.start())
        and (
            r := _tf_read(
                text[m.end() : _line_end(text, m.end())], yes_no=False, negated=bool(m.group("neg"))
            )
        )
    ]
    decided = _decide(hits)
    if decided is not None:
        return decided
    lines = [line for line in text.splitlines() if line.strip()]
    for line, method in ((lines[-1], "last-line"), (lines[0], "leading-word")):
        lead = _TF_LEAD.match(line)
        if lead and (method == "leading-word" or not line[lead.end() :].strip(" .!")):
            return Extraction(_TF_WORDS[lead.group(1).lower()], Status.OK, None, method)
    values = {
        ("false" if v.lower() == "true" else "true") if neg else v.lower()
        for neg, v in _TF_LOOSE.findall(text)
    }
    if len(values) == 1:
        return Extraction(values.pop(), Status.OK, None, "tf-word")
    if len(values) > 1:
        return Extraction(None, Status.UNPARSEABLE, "says both true and false without a verdict")
    return _nothing(text, "no true/false answer found")
