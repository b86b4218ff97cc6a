"""Choice items (multiple choice with lettered options, true/false): the prompt an examinee sees,
its inverse, and reading the chosen answer back out of free text.

Extraction never guesses. It looks for evidence in this order and stops at the first tier that
has any:

1. explicit answers: a JSON ``{"answer": ...}``, ``\\boxed{...}``, "answer is / Answer: / final
   answer", "B is correct", "I choose B", "so (B)"; the letter may also be given as the option's
   text ("The answer is blue"). The *last* one wins, except that a "final answer" outranks the
   rest (models reconsider, and the conclusion is what they mean). Hypothetical ("if the answer
   is B, ...") and negated ("neither A nor B is correct", "I would not choose A", "(A) is
   wrong") mentions are no answers;
2. (mc) lines that start with a letter form ("B.", "(C) blue", "c)", "Option B"): one distinct
   letter, or a lone letter on the last line; (tf) a leading or lone "Yes"/"False."/...;
3. (mc) the whole answer, or its last line, is one option's text (normalised: case, punctuation,
   a leading article); (tf) "true"/"false" words, "not true" read as false, when they all agree;
4. (mc) exactly one distinct bold or bracketed letter ("**B**", "(B)"), not ruled out, and no
   refusal.

An answer that hedges ("A or B"), names a letter that is no option, pairs a letter with another
option's text ("(C) blue" when blue is B), lists several options without choosing, refuses, or
is empty is UNPARSEABLE with a reason: never mapped to a letter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from lvlmbench.prompts import load_prompt, render_prompt
from lvlmbench.types import BenchmarkItem, Status

__all__ = [
    "ChoiceKind",
    "Extraction",
    "ParsedChoice",
    "extract_choice",
    "parse_choice_prompt",
    "render_choice_prompt",
    "score_choice",
]

ChoiceKind = Literal["mc", "tf"]
_TEMPLATES: dict[ChoiceKind, str] = {"mc": "eval/choice_mc.md", "tf": "eval/choice_tf.md"}
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class ParsedChoice:
    """A choice prompt read back from message text."""

    question: str
    options: dict[str, str]
    """Options by letter; empty for true/false."""
    kind: ChoiceKind


@dataclass(frozen=True)
class Extraction:
    """The answer read from a model's text, or why there is none."""

    answer: str | None
    """A letter (mc), "true"/"false" (tf), or None when unparseable."""
    status: Status
    """OK or UNPARSEABLE."""
    reason: str | None = None
    """Why the answer could not be read (None when OK)."""
    method: str = "none"
    """Which rule decided: json, boxed, marker, final-marker, line-letter, option-text, ..."""


# ---------------------------------------------------------------------------------------------
# Prompt rendering and parsing


def render_choice_prompt(item: BenchmarkItem) -> str:
    """The text shown to an examinee for an mc or tf item (from the prompt files).

    Options are listed in letter order, one per line as "A. text", whitespace inside an option
    collapsed so each stays on its line. Raises ValueError for open items, an empty question,
    or mc options whose letters are not A, B, C, ... in sequence.
    """
    question = item.question.strip()
    if not question:
        raise ValueError(f"item {item.id}: empty question")
    if item.kind == "tf":
        return render_prompt(_TEMPLATES["tf"], question=question).strip()
    if item.kind != "mc":
        raise ValueError(f"item {item.id} is {item.kind!r}; only mc and tf have choice prompts")
    keys = sorted(item.options)
    if not keys or keys != list(_LETTERS[: len(keys)]):
        raise ValueError(f"item {item.id}: options must be lettered A, B, C, ...; got {keys}")
    lines = "\n".join(f"{k}. {' '.join(item.options[k].split())}" for k in keys)
    return render_prompt(_TEMPLATES["mc"], question=question, options=lines).strip()


def _pieces(kind: ChoiceKind) -> list[str]:
    # The literal text around the placeholders, so parsing follows the prompt file if it changes.
    return re.split(r"\{(?:question|options)\}", load_prompt(_TEMPLATES[kind]).strip())


def _question_before(text: str, head: str) -> str | None:
    # Text before the prompt (a description the runner put first) stays part of the question.
    question = text.rsplit(head, 1)[-1] if head else text
    return question.strip() or None


_OPTION_LINE = re.compile(r"([A-Z])\. (.*)")


def _parse_mc(body: str) -> ParsedChoice | None:
    head, between, tail = _pieces("mc")
    if not body.endswith(tail):
        return None
    lines = body[: len(body) - len(tail)].split("\n")
    options: dict[str, str] = {}
    # Read option lines bottom-up until "A."; a question that itself ends in "D. ..." lines is
    # still split right because the letters must count down to A without a gap.
    while lines and "A" not in options:
        match = _OPTION_LINE.fullmatch(lines.pop())
        if match is None:
            return None
        letter, text = match.groups()
        if options and ord(letter) != ord(min(options)) - 1:
            return None
        options[letter] = text
    rest = "\n".join(lines) + "\n" if lines else ""  # up to where the "A." line starts
    if "A" not in options or not rest.endswith(between):
        return None
    question = _question_before(rest[: len(rest) - len(between)], head)
    return ParsedChoice(question, dict(sorted(options.items())), "mc") if question else None


def _parse_tf(body: str) -> ParsedChoice | None:
    head, tail = _pieces("tf")
    if not body.endswith(tail):
        return None
    question = _question_before(body[: len(body) - len(tail)], head)
    return ParsedChoice(question, {}, "tf") if question else None


def parse_choice_prompt(text: str) -> ParsedChoice | None:
    """The question, options and kind of a prompt made by :func:`render_choice_prompt`, or None
    when ``text`` does not end with one (open-ended prompts). Text before the prompt (e.g. an
    image description) comes back as part of the question."""
    body = text.strip()
    return _parse_mc(body) or _parse_tf(body)


def score_choice(item: BenchmarkItem, extraction: Extraction) -> bool | None:
    """Whether the extracted answer is the key; None when nothing could be extracted."""
    if item.kind == "open":
        raise ValueError(f"item {item.id} is open-ended; it is judged, not scored by key")
    if extraction.status is not Status.OK or extraction.answer is None or item.answer is None:
        return None
    return extraction.answer.strip().lower() == item.answer.strip().lower()


# ---------------------------------------------------------------------------------------------
# Extraction machinery shared by mc and tf


@dataclass(frozen=True)
class _Read:
    """What one piece of evidence says: an answer, or a problem that makes it unusable."""

    answer: str | None
    problem: str | None = None
    method: str = ""


@dataclass(frozen=True)
class _Hit:
    pos: int
    rank: int
    read: _Read


# A phrase reader turns the text after a marker into a _Read, or None when it names nothing.
_Reader = Callable[[str], _Read | None]


def _clean(text: str) -> str:
    """Markdown emphasis, code ticks, headings and LaTeX \\text{} removed; dashes unified."""
    text = re.sub(r"\\text(?:bf)?\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"(?m)^[ \t]*#+[ \t]*", "", text)
    text = re.sub(r"\*+|__|`+", "", text)
    return text.replace("–", "-").replace("—", "-").replace("’", "'").replace("‘", "'")


def _norm(text: str) -> str:
    """Lowercase words separated by single spaces, without a leading article."""
    # A number keeps its decimal point, so "4.5" never reads as option "4".
    words = re.findall(r"[0-9]+(?:[.,][0-9]+)*[a-z0-9]*|[a-z0-9]+", text.lower())
    if words[:1] in (["a"], ["an"], ["the"]) and len(words) > 1:
        words = words[1:]
    return " ".join(words)


_MARKER = re.compile(
    r"(?P<final>\bfinal\s+)?\b(?:answer|choice|option|response|correct\s+one|right\s+one)\s*"
    r"(?:(?:is|would\s+be|should\s+be|will\s+be|must\s+be|seems\s+to\s+be|appears\s+to\s+be)"
    r"\s*:?|:|=|-|>)\s*",
    re.I,
)
# A heading line "Answer" / "Final answer" with the answer on the next line.
_HEADING = re.compile(r"^[ \t]*(?P<final>final\s+)?answer[ \t]*:?[ \t]*\n\s*", re.I | re.M)
# Words that make the sentence around an answer hypothetical or negated: "if B is correct",
# "neither A nor B is correct".
_HYPOTHETICAL = re.compile(r"\b(?:if|whether|unless|assuming|suppose|supposing)\b", re.I)
_NEGATED = re.compile(r"\b(?:none|neither|nor|not|no)\b", re.I)
_CHOOSE = re.compile(
    r"\b(?:choose|chose|pick|picked|select|selected|go\s+with|going\s+with|opt\s+for)\s+", re.I
)
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_JSON = re.compile(r"\{[^{}]*\}")
_JSON_KEYS = ("answer", "final_answer", "choice", "option", "letter", "prediction", "response")
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:cannot|can't|can\s+not|am\s+unable|'m\s+unable|am\s+not\s+able|don't\s+know)"
    r"|i'm\s+(?:sorry|unable|not\s+able)|unable\s+to\s+(?:determine|see|view|answer|tell)"
    r"|(?:cannot|can't|impossible\s+to|not\s+possible\s+to)\s+(?:be\s+)?(?:determine|tell|see)"
    r"|as\s+an\s+ai|no\s+image|not\s+enough\s+information|insufficient\s+information"
    r"|none\s+of\s+the\s+(?:options|above|choices)|i\s+apologi[sz]e)",
    re.I,
)


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _before(text: str, pos: int, stops: str = ".!?\n") -> str:
    """The text from the last sentence (or, with ",;" in ``stops``, clause) start to ``pos``."""
    start = max(text.rfind(c, 0, pos) for c in stops) + 1
    return text[start:pos]


def _hypothetical(text: str, pos: int) -> bool:
    # Clause scope: "If the answer is B, ..." is no answer, "Even if it looks blue, the answer
    # is C" is one.
    return bool(_HYPOTHETICAL.search(_before(text, pos, ".!?\n,;")))


def _marker_hits(text: str, read: _Reader) -> list[_Hit]:
    """Explicit answers after "answer is", "I choose", inside \\boxed{} or a JSON answer."""
    hits: list[_Hit] = []
    markers = [(m, "marker") for m in (*_MARKER.finditer(text), *_HEADING.finditer(text))]
    markers += [(m, "choose") for m in _CHOOSE.finditer(text)]
    for m, method in markers:
        if _hypothetical(text, m.start()) or (
            method == "choose" and _NEGATED.search(_before(text, m.start(), ".!?\n,;"))
        ):
            continue  # "if the answer is B, ...", "I would not choose A"
        found = read(text[m.end() : _line_end(text, m.end())])
        if found is not None:
            final = method == "marker" and bool(m.group("final"))
            hits.append(
                _Hit(m.end(), 1 + final, _with(found, "final-" + method if final else method))
            )
    for m in _BOXED.finditer(text):
        found = read(m.group(1))
        if found is not None:
            hits.append(_Hit(m.start(), 1, _with(found, "boxed")))
    for m in _JSON.finditer(text):
        value = _json_answer(m.group(0))
        found = read(value) if value is not None else None
        if found is not None:
            hits.append(_Hit(m.start(), 1, _with(found, "json")))
    return hits


def _json_answer(blob: str) -> str | None:
    try:
        data = json.loads(blob)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    lowered = {str(k).lower(): v for k, v in data.items()}
    for key in _JSON_KEYS:
        value = lowered.get(key)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int):
            return str(value)
    return None


def _with(read: _Read, method: str) -> _Read:
    return _Read(read.answer, read.problem, read.method or method)


def _decide(hits: list[_Hit]) -> Extraction | None:
    if not hits:
        return None
    best = max(hits, key=lambda h: (h.rank, h.pos))
    return _finish(best.read)


def _finish(read: _Read) -> Extraction:
    if read.problem is not None or read.answer is None:
        return Extraction(None, Status.UNPARSEABLE, read.problem or "no answer", read.method)
    return Extraction(read.answer, Status.OK, None, read.method)


def _nothing(text: str, fallback: str) -> Extraction:
    refusal = _REFUSAL.search(text)
    if refusal is not None:
        return Extraction(None, Status.UNPARSEABLE, f"refusal or non-answer: {refusal.group(0)!r}")
    return Extraction(None, Status.UNPARSEABLE, fallback)


def extract_choice(text: str, kind: ChoiceKind, options: Mapping[str, str]) -> Extraction:
    """The answer in ``text`` for an mc item (a letter among ``options``' keys) or a tf item
    ("true"/"false"); UNPARSEABLE with a reason when there is no single clear answer."""
    if kind not in ("mc", "tf"):
        raise ValueError(f"extract_choice reads mc or tf answers, not {kind!r}")
    if not _clean(text).strip():  # nothing, or only markdown ("**", "```")
        return Extraction(None, Status.UNPARSEABLE, "empty answer")
    if kind == "tf":
        return _extract_tf(_clean(text))
    keys = {k.strip().upper(): v for k, v in options.items()}
    if not keys:
        return Extraction(None, Status.UNPARSEABLE, "multiple-choice item without options")
    return _McExtractor(keys).extract(text)


# ---------------------------------------------------------------------------------------------
# Multiple choice

_LETTER = re.compile(
    r"(?:either\s+)?(?:(?:option|choice|letter)\s+)?"
    r"(?:\((?P<p>[A-Za-z])\)|\[(?P<b>[A-Za-z])\]|(?P<l>[A-Za-z])(?![A-Za-z0-9']))",
    re.I,
)
_DELIMITED = re.compile(r"\s*(?:$|[.,;:!?)\]]|-\s)")
# "B or C" always hedges; "B and C" / "B, C" only when the second letter ends the phrase, so that
# "B, A is wrong" keeps B.
_HEDGE = re.compile(
    r"\s*[.)\]]?\s*,?\s*(?:(?:or|/)\s*(?:option\s+)?[(\[]?(?P<or>[A-Z])(?![\w'])"
    r"|(?:and|&|,)\s*(?:option\s+)?[(\[]?(?P<and>[A-Z])[)\]]?(?=\s*(?:$|[.;!?])))"
)
# "so (A) is wrong": a letter named only to be ruled out.
_RULED_OUT = re.compile(
    r"\s*[.)\]]?\s*(?:is|are|was|seems)\s+(?:\w+ly\s+)?(?:not|wrong|incorrect|false|unlikely"
    r"|eliminated|ruled\s+out)\b",
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
    """Reads a letter among ``options``' keys (see the module docstring for the tiers)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = options
        self.by_text: dict[str, str | None] = {}
        for letter, text in options.items():
            key = _norm(text)
            # Two options with the same normalised text cannot be told apart by text.
            self.by_text[key] = None if key in self.by_text else letter

    def extract(self, raw: str) -> Extraction:
        text = _clean(raw)
        hits = _marker_hits(text, lambda p: self.read(p, strict=False))
        hits += self._verdict_hits(text)
        hits += [
            _Hit(m.end(), 1, _with(r, "conclusion"))
            for m in _CONCLUDE.finditer(text)
            if (r := self.read(text[m.end() : _line_end(text, m.end())], strict=True))
        ]
        decided = _decide(hits) or self._lines(text) or self._whole_text(text)
        return decided or self._mentions(raw, text)

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
        other = (hedge.group("or") or hedge.group("and")) if hedge else None
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
        hedge = re.search(r"\b([A-Z])\s*(?:or|/)\s*(?:option\s+)?\(?([A-Z])\b", text)
        if hedge and {hedge.group(1), hedge.group(2)} <= set(self.options):
            return Extraction(
                None, Status.UNPARSEABLE, f"hedges between {hedge.group(1)} and {hedge.group(2)}"
            )
        if len(letters) == 1 and _REFUSAL.search(text) is None:
            return Extraction(letters.pop(), Status.OK, None, "sole-mention")
        if len(letters) > 1:
            reason = f"mentions options {', '.join(sorted(letters))} without a final answer"
            return Extraction(None, Status.UNPARSEABLE, reason)
        return _nothing(text, "no option letter or option text found")


# ---------------------------------------------------------------------------------------------
# True / false

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
