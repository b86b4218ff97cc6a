"""The multiple-choice reader: a letter among the options' keys, or UNPARSEABLE with a reason
(the tiers are described in :mod:`lvlmbench.choice.extraction`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from lvlmbench.choice._evidence import (
    _DELIMITED,
    _NEGATED,
    _REFUSAL,
    Extraction,
    _before,
    _clean,
    _decide,
    _finish,
    _Hit,
    _hypothetical,
    _line_end,
    _marker_hits,
    _norm,
    _nothing,
    _Read,
    _with,
)
from lvlmbench.choice._lists import blank_lines, unread_lines
from lvlmbench.choice._sentences import option_in_sentences
from lvlmbench.types import Status

_NO_LETTER = "no option letter or option text found"

_LETTER = re.compile(
    r"(?:either\s+)?(?:(?:option|choice|letter)\s+)?"
    r"(?:\((?P<p>[A-Za-z])\)|\[(?P<b>[A-Za-z])\]|(?P<l>[A-Za-z])(?![A-Za-z0-9']))",
    re.I,
)
# "B or C" always hedges; "B and C" / "B, C" only when the second letter ends the phrase, so that
# "B, A is wrong" keeps B.
_HEDGE = re.compile(
    r"\s*[.)\]]?\s*,?\s*(?:(?:or|/|或|还是|還是)\s*(?:option\s+|选项)?[(\[]?(?P<or>[A-Z])(?![\w'])"
    r"|(?:and|&|,)\s*(?:option\s+)?[(\[]?(?P<and>[A-Z])[)\]]?(?=\s*(?:$|[.;!?]))"
    # "A, B, or C" / "A, B and C": a list of letters ending in "or"/"and" chooses none.
    r"|,\s*(?:option\s+)?[(\[]?(?P<list>[A-Z])[)\]]?\s*,?\s*(?:or|and)\b)"
)
# "so (A) is wrong": a letter named only to be ruled out.
_RULED_OUT = re.compile(
    r"\s*[.)\]]?\s*(?:is|are|was|seems)\s+(?:\w+ly\s+)?(?:not|wrong|incorrect|false|unlikely"
    r"|eliminated|ruled\s+out)\b"
    r"|\s*[.)\]]?\s*(?:是)?(?:错|錯|不对|不對|不正确|不正確)",  # "A是错的", "选项A不正确"
    re.I,
)
_NOT_BEFORE = re.compile(r"\b(?:not|no|never|n't)\s*$", re.I)
_CLAUSE_END = re.compile(r"[.;!?](?:\s|$)|[,\n]|\s+(?:because|since|as)\s")
_VERDICT = re.compile(
    r"(?:\b(?:option|choice|answer)\s+)?(?:\((?P<p>[A-Z])\)|\[(?P<b>[A-Z])\]|\b(?P<l>[A-Z]))"
    r"(?:[.)]?\s*\([^()\n]*\))?\s+(?:is|seems|appears)\s+(?:to\s+be\s+)?(?:the\s+)?(?:\w+ly\s+)?"
    r"(?:correct|best|answer|right(?=\s*(?:$|[.,;:!]|answer|option|choice)))\b",
)
# Weak markers: only a delimited letter counts after them ("It is C.", not "It is A cat").
_CONCLUDE = re.compile(
    r"\b(?:so|thus|therefore|hence|corresponds\s+to|matches|which\s+is|that\s+is|it's|it\s+is"
    r"|it\s+must\s+be|i\s+think|i\s+believe|i'd\s+say|i\s+would\s+say)\s*,?\s*",
    re.I,
)
_LINE_LETTER = re.compile(
    r"\s*(?:(?:option|choice)\s+)?(?:\((?P<p>[A-Za-z])\)|\[(?P<b>[A-Za-z])\]"
    r"|(?P<l>[A-Za-z])(?=[.):]|\s+-\s|\s*$|\s+(?:because|since)\b))[.):]?(?P<rest>.*)",
    re.I,
)
_MENTION = re.compile(
    r"\*\*\s*[(\[]?([A-Z])[)\].:]?\s*\*\*|\*\*\s*[(\[]?([A-Z])[)\].:]|[(\[]([A-Z])[)\]]"
)


def _letter_of(match: re.Match[str]) -> tuple[str, bool]:
    """(letter, whether it was bracketed) from a match with groups p, b, l."""
    bracketed = match.group("p") or match.group("b")
    return (bracketed or match.group("l")), bool(bracketed)


class _McExtractor:
    """Reads a letter among ``options``' keys (tiers: see :mod:`.extraction`)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = options
        self.by_text: dict[str, str | None] = {}
        for letter, text in options.items():
            key = _norm(text)
            # Two options with the same normalised text cannot be told apart by text.
            self.by_text[key] = None if key in self.by_text else letter

    def extract(self, raw: str, *, truncated: bool = False) -> Extraction:
        """The answer in ``raw``; ``truncated``: the reply was cut by the token limit."""
        text = _clean(raw)
        unread = unread_lines(text, self.options, truncated=truncated)
        if unread is None:
            return self._read_all(raw, text)
        found = self._read_all(blank_lines(raw, unread.lines), blank_lines(text, unread.lines))
        if found.status is Status.UNPARSEABLE and found.reason == _NO_LETTER:
            return Extraction(None, Status.UNPARSEABLE, unread.reason(), found.method)
        return found

    def _read_all(self, raw: str, text: str) -> Extraction:
        hits = _marker_hits(text, lambda p: self.read(p, strict=False))
        hits += self._verdict_hits(text)
        hits += [
            _Hit(m.end(), 1, _with(r, "conclusion"))
            for m in _CONCLUDE.finditer(text)
            if (r := self.read(text[m.end() : _line_end(text, m.end())], strict=True))
        ]
        decided = _decide(hits) or self._lines(text) or self._whole_text(text)
        return decided or self._last_resort(raw, text)

    def _last_resort(self, raw: str, text: str) -> Extraction:
        """A sole bold/bracketed letter or an option's text in a sentence; they must agree."""
        mention = self._mentions(raw, text)
        said = option_in_sentences(text, self.by_text)
        if said is None:
            return mention
        if mention.status is Status.OK:
            if said.answer in (None, mention.answer):
                return mention
            reason = f"names option {mention.answer} but says the text of option {said.answer}"
            return Extraction(None, Status.UNPARSEABLE, reason, "sentence-text")
        return said if mention.reason == _NO_LETTER else mention

    def option_at(self, phrase: str) -> str | None:
        """The letter of the longest option whose text starts ``phrase`` (on a word boundary)."""
        norm = _norm(phrase)
        found = [k for k in self.by_text if k and (norm == k or norm.startswith(k + " "))]
        return self.by_text[max(found, key=len)] if found else None

    def read(self, phrase: str, *, strict: bool) -> _Read | None:
        """The answer named at the start of ``phrase`` (after a marker), if any.

        ``strict`` (used after weak markers like "so") only accepts a delimited letter such as
        "(B)" or "B." so that "So A cat..." is not answer A."""
        phrase = phrase.lstrip(" \t\"'“”")
        match = _LETTER.match(phrase)
        if match is None:
            letter_option = self.option_at(phrase)
            return _Read(letter_option, method="option-text") if letter_option else None
        letter, bracketed = _letter_of(match)
        rest = phrase[match.end() :]
        if _RULED_OUT.match(rest):
            return None
        if not (bracketed or _DELIMITED.match(rest)):
            # "a red ball", "I think": an article or pronoun, not a letter, unless it is a key
            # letter in capitals ("the answer is B because ...").
            by_text = self.option_at(phrase)
            if by_text is not None:
                return _Read(by_text, method="option-text")
            if strict or letter in "ai" or letter.upper() not in self.options:
                return None
        return self.check(letter.upper(), rest)

    def check(self, letter: str, rest: str) -> _Read:
        """A letter with what follows it: rejected when it is no option, hedged ("A or B"), or
        followed by the exact text of a different option."""
        if letter not in self.options:
            return _Read(None, f"answer {letter} is not one of the options {sorted(self.options)}")
        hedge = _HEDGE.match(rest)
        other = (hedge.group("or") or hedge.group("and") or hedge.group("list")) if hedge else None
        if other in self.options and other != letter:
            return _Read(None, f"hedges between {letter} and {other}")
        clause = _CLAUSE_END.split(re.sub(r"^\s*[.):\-]?\s*", "", rest), maxsplit=1)[0]
        said = self.by_text.get(_norm(clause)) if clause.strip() else None
        if said is not None and said != letter:
            return _Read(
                None, f"answer {letter} but the text of option {said} ({clause.strip()!r})"
            )
        return _Read(letter)

    def _verdict_hits(self, text: str) -> list[_Hit]:
        hits = []
        for m in _VERDICT.finditer(text):
            letter, _ = _letter_of(m)
            if _NEGATED.search(_before(text, m.start())) or _hypothetical(text, m.start()):
                continue
            if letter in self.options:
                hits.append(_Hit(m.start(), 1, _Read(letter, method="verdict")))
        return hits

    def _lines(self, text: str) -> Extraction | None:
        """Lines that start with a letter form: "B.", "(C) blue", "c)", "Option D"."""
        lines = [line for line in text.splitlines() if line.strip()]
        reads: list[tuple[int, _Read, bool]] = []
        for index, line in enumerate(lines):
            match = _LINE_LETTER.fullmatch(line)
            if match is None or _letter_of(match)[0].upper() not in self.options:
                continue
            letter = _letter_of(match)[0].upper()
            bare = not match.group("rest").strip(" .)")
            reads.append((index, self.check(letter, match.group("rest")), bare))
        if not reads:
            return None
        index, last, bare = reads[-1]
        if bare and index == len(lines) - 1:
            return _finish(_with(last, "last-line"))  # a lone letter closing the answer
        letters = sorted({read.answer or "" for _, read, _ in reads} - {""})
        if len(letters) > 1:
            return _finish(_Read(None, f"lists options {', '.join(letters)} without choosing"))
        return _finish(_with(reads[0][1], "line-letter"))

    def _whole_text(self, text: str) -> Extraction | None:
        """The whole answer, or its last line, is exactly one option's text."""
        lines = [line for line in text.splitlines() if line.strip()]
        for candidate in (text, lines[-1] if lines else ""):
            letter = self.by_text.get(_norm(candidate)) if _norm(candidate) else None
            if letter is not None:
                return Extraction(letter, Status.OK, None, "option-text")
        return None

    def _mentions(self, raw: str, text: str) -> Extraction:
        """One distinct bold or bracketed letter and nothing else to go on."""
        letters = {
            g
            for m in _MENTION.finditer(raw)
            if not _RULED_OUT.match(raw, m.end()) and not _NOT_BEFORE.search(raw, 0, m.start())
            for g in m.groups()
            if g in self.options
        }
        hedge = re.search(r"\b([A-Z])\s*,?\s*(?:or|/)\s*(?:option\s+)?\(?([A-Z])\b", text)
        if hedge and {hedge.group(1), hedge.group(2)} <= set(self.options):
            return Extraction(
                None, Status.UNPARSEABLE, f"hedges between {hedge.group(1)} and {hedge.group(2)}"
            )
        if len(letters) == 1 and _REFUSAL.search(text) is None:
            return Extraction(letters.pop(), Status.OK, None, "sole-mention")
        if len(letters) > 1:
            reason = f"mentions options {', '.join(sorted(letters))} without a final answer"
            return Extraction(None, Status.UNPARSEABLE, reason)
        return _nothing(text, _NO_LETTER)
