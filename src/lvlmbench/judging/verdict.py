"""Reading a judge's free text back: pairwise verdicts (numbers: :mod:`.scale`).

Judges are asked to reason first and end with a marked verdict, but real models phrase it in
many ways. Parsing never guesses; it looks for evidence in tiers and stops at the first with any:

1. **labelled** verdicts: ``[[A]]``, ``[[A>B]]``, "Verdict: B", "Final answer: tie", "The winner
   is Response A", "Better response: (b)". The last one wins (models reconsider);
2. **statements**: "Output (a) is better", "I prefer Response B", "B wins", "Both are equally
   good", "Neither is good" (a tie: both bad is no win for either). When statements disagree,
   only those on the last line count; still disagreeing is unparseable;
3. the **last line** alone is a side or a tie ("B", "(a)", "**Tie**").

A bare capital ``A``/``B`` counts as a side; a lowercase one only in a form that cannot be the
article ("(a)", "response a", "Verdict: a"). With no verdict anywhere, an apology or "I cannot
judge/compare ..." is REFUSED, anything else UNPARSEABLE, both with a reason: never a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from lvlmbench.types import Judgment, ModelOutput, Status

__all__ = ["ParsedVerdict", "judged", "parse_verdict"]

PairVerdict = Literal["a", "b", "tie"]
_VERDICTS: dict[str, PairVerdict] = {"a": "a", "b": "b", "tie": "tie"}

_NOUN = r"(?:response|output|answer|assistant|option|candidate|model|reply)"
# A side: "Response A", "output (b)", "(a)", "[[B]]", a bare capital A/B, "the first response".
_SIDE = (
    rf"(?:{_NOUN}\s*\(?\s*(?P<n>[ab12])\s*\)?(?![\w'])"
    r"|\(\s*(?P<p>[ab])\s*\)|\[\[\s*(?P<w>[ab])\s*\]\]|\*\*(?P<s>[ab])\*\*"
    r"|(?<![\w'])(?P<z>[ab])(?![\w'])"
    rf"|(?:the\s+)?(?P<o>first|second)\s+(?:{_NOUN}|one))"
)
_TIE_WORDS = (
    r"(?P<tie>(?:a\s+)?tie\b|draw\b|equal\b|neither\b|none\b|no\s+(?:clear\s+)?winner"
    r"|both\s+(?:\w+\s+)?(?:are\s+)?(?:equal(?:ly)?|bad|poor|wrong|good)|\[\[\s*c\s*\]\])"
)
_LABEL = re.compile(
    r"(?:final\s+|overall\s+|my\s+)?(?:verdict|decision|judge?ment|winner|choice|result"
    r"|final\s+answer|answer(?=\s*:)"
    r"|conclusion|preference|better\s+(?:response|answer|output)|preferred\s+(?:response|output))"
    rf"\s*(?:is\s*|would\s+be\s*)?[:=\-]?\s*[*_\"'`]*\s*(?:{_SIDE}|{_TIE_WORDS})",
    re.IGNORECASE,
)
_ARENA = re.compile(r"\[\[\s*([AB])\s*(>>|>|=|<<|<)\s*([AB])\s*\]\]", re.IGNORECASE)
_BRACKET = re.compile(r"\[\[\s*(?P<w>[ab]|tie|c)\s*\]\]", re.IGNORECASE)
_BETTER = (
    r"(?:(?:is|was|seems|appears|looks|would\s+be|is\s+clearly)\s+(?:(?!not\b|never\b|no\b)\w+\s+)?(?:the\s+)?"
    r"(?:better|superior|preferred|preferable|stronger|winner|best|more\s+(?:helpful|accurate|"
    r"appropriate|relevant|correct))|(?:clearly\s+)?wins)"
)
_STATEMENTS = [
    re.compile(rf"(?<!not\s)(?<!n't\s){_SIDE}\s+{_BETTER}\b", re.IGNORECASE),
    re.compile(
        rf"\b(?:i|we)\s+(?:would\s+|will\s+|must\s+)?(?:prefer|choose|pick|select|go\s+with|"
        rf"favou?r|vote\s+for)\s+{_SIDE}",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?:prefer(?:ence\s+for)?|favou?rs?)\s+{_SIDE}", re.IGNORECASE),
]
_TIE_STATEMENTS = re.compile(
    r"\b(?:it'?s\s+a\s+tie|(?:is|be|call\s+it|declare|as)\s+a\s+tie\b|tie(?=\W*$)|equally\s+(?:good|bad|poor|helpful|valid|"
    r"strong|weak|accurate|correct|wrong|acceptable|matched|effective|inadequate)"
    r"|neither\s+(?:\w+\s+){0,3}(?:is|are|was)\s+(?:\w+\s+)?(?:good|better|correct|acceptable|"
    r"adequate|helpful|accurate|satisfactory|preferable|right)"
    r"|neither\s+(?:\w+\s+){0,2}nor\s+\w+(?:\s+\w+)?\s+is\s+(?:better|preferable|superior)"
    r"|both\s+(?:\w+\s+){0,2}(?:are|were)\s+(?:\w+\s+)?(?:bad|poor|wrong|incorrect|unhelpful|"
    r"inadequate|equally|equivalent|the\s+same|similar\s+in\s+quality|comparable|tied)"
    r"|no\s+clear\s+winner|(?:of\s+)?(?:the\s+)?same\s+quality|equivalent\s+in\s+quality)",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"(?:\bi'?m\s+sorry\b|\bi\s+apologi[sz]e\b|\bas\s+an\s+ai\b|\bi\s+(?:cannot|can'?t|"
    r"am\s+unable\s+to|am\s+not\s+able\s+to|won'?t|will\s+not|must\s+decline\s+to)\s+"
    r"(?:help|assist|comply|provide|evaluate|judge|compare|make|do|determine|choose|decide|"
    r"pick|rate|score|fulfil+|complete))",
    re.IGNORECASE,
)
_HEDGE = re.compile(r"\b[AB]\s+(?:or|and/or)\s+[AB]\b")


@dataclass(frozen=True)
class ParsedVerdict:
    """A pairwise verdict read from text ('a', 'b', 'tie'), or why there is none."""

    verdict: PairVerdict | None
    status: Status
    reason: str | None = None
    method: str = "none"
    """Which tier decided: arena, bracket, label, statement, last-line (or none)."""

    def fields(self) -> dict[str, Any]:
        """What a stored Judgment takes from this parse."""
        return {"verdict": self.verdict, "status": self.status, "reason": self.reason}

    @classmethod
    def of(cls, row: Judgment) -> ParsedVerdict:
        """The verdict a stored row holds (its fields read back, as :meth:`fields` wrote them)."""
        return cls(_VERDICTS.get(row.verdict or ""), row.status, row.reason)


class _Parsed(Protocol):
    def fields(self) -> dict[str, Any]: ...


def judged(base: Judgment, output: ModelOutput, parse: Callable[[str], _Parsed]) -> Judgment:
    """``base`` completed from the judge's reply: the parsed fields (an unreadable reply keeps
    its unparseable status), or the failed call's status and reason."""
    base = base.model_copy(update={"rationale": output.text or None})
    if not output.ok:
        return base.model_copy(update={"status": output.status, "reason": output.reason})
    return base.model_copy(update=parse(output.text).fields())


def _side(match: re.Match[str], text: str) -> PairVerdict | None:
    groups = match.groupdict()
    if groups.get("tie"):
        return "tie"
    for name in ("n", "p", "w", "s"):
        letter = groups.get(name)
        if letter:
            return "a" if letter.lower() in ("a", "1") else "b"
    letter = groups.get("z")
    if letter:
        # a bare letter: only the capital (the lowercase "a" is nearly always the article)
        return letter.lower() if text[match.start("z")] in "AB" else None  # type: ignore[return-value]
    order = groups.get("o")
    if order:
        return "a" if order.lower() == "first" else "b"
    return None


# A list of verdict forms ("end with [[A]], [[B]] or [[tie]]") names the options, chooses none;
# small models often echo the instruction, so such lists are blanked before parsing.
_OPTION_LIST = re.compile(
    r"\[\[[^\[\]]{1,8}\]\](?:\s*(?:,|/|\bor\b|,\s*or\b)\s*\[\[[^\[\]]{1,8}\]\])+", re.IGNORECASE
)


def _blank_option_lists(text: str) -> str:
    return _OPTION_LIST.sub(lambda m: " " * len(m.group(0)), text)


def _labelled(text: str) -> tuple[PairVerdict, str] | None:
    found: list[tuple[int, PairVerdict, str]] = []
    for m in _ARENA.finditer(text):
        left, op, right = m.group(1).upper(), m.group(2), m.group(3).upper()
        if op == "=":
            found.append((m.start(), "tie", "arena"))
        elif left != right:
            winner = left if op.startswith(">") else right
            found.append((m.start(), "a" if winner == "A" else "b", "arena"))
    for m in _BRACKET.finditer(text):
        w = m.group("w").lower()
        found.append((m.start(), "tie" if w in ("tie", "c") else w, "bracket"))  # type: ignore[arg-type]
    for m in _LABEL.finditer(text):
        side = _side(m, text)
        if side is None and m.group("z") and re.match(r"[ \t*_.!)]*(?:$|\n)", text[m.end() :]):
            side = "a" if m.group("z").lower() == "a" else "b"  # "Verdict: a" ends the line
        if side is not None and not _HEDGE.match(text, m.end() - 1):
            found.append((m.start(), side, "label"))
    if not found:
        return None
    _, verdict, method = max(found, key=lambda f: f[0])
    return verdict, method


def _statements(text: str) -> list[tuple[int, PairVerdict]]:
    hits: list[tuple[int, PairVerdict]] = []
    for pattern in _STATEMENTS:
        for m in pattern.finditer(text):
            side = _side(m, text)
            if side is not None:
                hits.append((m.start(), side))
    hits.extend((m.start(), "tie") for m in _TIE_STATEMENTS.finditer(text))
    return sorted(hits)


def _last_line(text: str) -> PairVerdict | None:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    last = re.sub(r"^[\s*_#>`\-]+|[\s*_`.!]+$", "", lines[-1])
    if re.fullmatch(r"(?:it'?s\s+a\s+)?tie|draw|equal", last, re.IGNORECASE):
        return "tie"
    m = re.fullmatch(_SIDE, last, re.IGNORECASE)
    return _side(m, last) if m else None


def parse_verdict(text: str) -> ParsedVerdict:
    """The verdict in a pairwise judge's reply (see the module doc for the rules)."""
    if not text.strip():
        return ParsedVerdict(None, Status.UNPARSEABLE, "empty reply")
    text = _blank_option_lists(text)
    labelled = _labelled(text)
    if labelled is not None:
        return ParsedVerdict(labelled[0], Status.OK, method=labelled[1])
    hits = _statements(text)
    if hits:
        verdicts = {v for _, v in hits}
        if len(verdicts) == 1:
            return ParsedVerdict(hits[0][1], Status.OK, method="statement")
        last_start = text.rstrip().rfind("\n") + 1
        tail = {v for pos, v in hits if pos >= last_start}
        if len(tail) == 1:
            return ParsedVerdict(tail.pop(), Status.OK, method="statement")
        return ParsedVerdict(
            None, Status.UNPARSEABLE, f"conflicting verdicts: {', '.join(sorted(verdicts))}"
        )
    last = _last_line(text)
    if last is not None:
        return ParsedVerdict(last, Status.OK, method="last-line")
    if _REFUSAL.search(text):
        return ParsedVerdict(None, Status.REFUSED, "the judge declined to give a verdict")
    return ParsedVerdict(None, Status.UNPARSEABLE, "no verdict (A, B or tie) found")
