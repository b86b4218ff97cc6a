"""Extraction machinery shared by the multiple-choice and true/false readers: the
:class:`Extraction` result, text cleanup, explicit answer markers ("answer is", "I choose",
``\\boxed{}``, JSON) and the hypothetical and negated contexts that void them, refusals, and
how competing pieces of evidence are decided."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from lvlmbench.types import Status

__all__ = ["Extraction"]


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


# Full-width letters and CJK punctuation ("答案：（Ｃ）。") read like their ASCII forms.
_FULL_WIDTH = {
    **{0xFF21 + i: 0x41 + i for i in range(26)},
    **{0xFF41 + i: 0x61 + i for i in range(26)},
    **{ord(a): ord(b) for a, b in zip("（）【】：，。！？；", "()[]:,.!?;", strict=True)},
}


def _clean(text: str) -> str:
    """Markdown emphasis, code ticks, headings and LaTeX \\text{} removed; dashes, full-width
    letters and CJK punctuation unified."""
    text = text.translate(_FULL_WIDTH)
    text = re.sub(r"\\text(?:bf)?\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"(?m)^[ \t]*#+[ \t]*", "", text)
    text = re.sub(r"\*+|__|`+", "", text)
    return text.replace("–", "-").replace("—", "-").replace("’", "'").replace("‘", "'")


_CJK = "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"


def _norm(text: str) -> str:
    """Lowercase words separated by single spaces, without a leading article."""
    # A number keeps its decimal point, so "4.5" never reads as option "4".
    # A CJK character is a word of its own (those scripts put no spaces between words).
    words = re.findall(rf"[0-9]+(?:[.,][0-9]+)*[a-z0-9]*|[a-z0-9]+|{_CJK}", text.lower())
    if words[:1] in (["a"], ["an"], ["the"]) and len(words) > 1:
        words = words[1:]
    return " ".join(words)


_MARKER = re.compile(
    r"(?P<final>\bfinal\s+)?\b(?:answer|choice|option|response|correct\s+one|right\s+one)\s*"
    r"(?:(?:is|would\s+be|should\s+be|will\s+be|must\s+be|seems\s+to\s+be|appears\s+to\s+be)"
    r"\s*:?|:|=|-|>)\s*",
    re.I,
)
# Chinese markers: "答案是 C", "最终答案：C", "正确选项为 B", "选项 C"; not the second half of
# a hedge ("选项A还是选项B").
_CJK_MARKER = re.compile(
    r"(?<!或)(?<!或者)(?<!还是)(?<!還是)(?P<final>最终|最終|最后|最後)?(?:的)?(?:正确|正確)?(?:的)?(?:答案|选项|選項)"
    r"(?:应该|應該|应|應)?[\s是为為:]*"
)
# A heading line "Answer" / "Final answer" with the answer on the next line.
_HEADING = re.compile(r"^[ \t]*(?P<final>final\s+)?answer[ \t]*:?[ \t]*\n\s*", re.I | re.M)
# Words that make the sentence around an answer hypothetical or negated: "if B is correct",
# "neither A nor B is correct".
_HYPOTHETICAL = re.compile(
    r"\b(?:if|whether|unless|assuming|suppose|supposing)\b|如果|假如|假设|假設|若|是否", re.I
)
_NEGATED = re.compile(r"\b(?:none|neither|nor|not|no)\b|[不非没沒无無]", re.I)
_CHOOSE = re.compile(
    r"\b(?:choose|chose|pick|picked|select|selected|go\s+with|going\s+with|opt\s+for)\s+"
    r"|(?:选择|選擇|选|選)(?![项項])\s*",
    re.I,
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
# What may follow a bare letter (mc) or a "right"/"wrong" (tf) for it to count as an answer.
_DELIMITED = re.compile(r"\s*(?:$|[.,;:!?)\]]|-\s)")


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
    found_markers = (*_MARKER.finditer(text), *_HEADING.finditer(text), *_CJK_MARKER.finditer(text))
    markers = [(m, "marker") for m in found_markers]
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
