"""Lines that are no evidence of a choice: a restated list of the options, and, in a reply cut
by the token limit, an option line that ends it.

Small models often copy the options before (or instead of) answering ("The options are:\\nA.
red\\nB. blue\\nC."). A line that continues an enumerated list of options is a list, not a
choice: without this rule the last line "C." reads as a lone letter, answer C. A run of lines
that each name the next option in key order (A, B, C, ...) and say nothing but that option's
text, whole or cut short, is such a list; so is a single such line for the first option right
after a line announcing the options ("The options are:", "Choices:"). A line that says more
than the option's text ("A. red: no, the ball is blue") is reasoning, not a copy, and no list.

A reply cut by the token limit (``finish_reason=length``) that ends on a line naming one option
("C", "(C)", "C. gre"), or on the start of the next line after one ("A. red" then "Opt"), ends
where a list and an answer look the same: that option line is no evidence either. The extractor
blanks these lines and reads the rest of the reply; when the rest names no answer, the reason
says why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lvlmbench.choice._evidence import _CHOOSE, _MARKER

__all__ = ["Unread", "blank_lines", "unread_lines"]

# A line naming one option: "A. red", "(B) blue", "C)", "- D: yellow", "**A.** red" (after
# cleanup), or a letter cut from its bracket ("(B"). ``rest`` is what follows the letter.
_OPTION_LINE = re.compile(
    r"[ \t]*(?:[-*•+][ \t]+)?(?:(?:option|choice)[ \t]+)?[(\[]?(?P<letter>[A-Za-z])"
    r"(?:[.):\]]|[ \t]+-[ \t]|[ \t]*$)(?P<rest>.*)",
    re.I,
)
# What a cut reply may end on where the next option line was starting: "-", "(", "**", "Opt".
_LINE_START = re.compile(
    r"[ \t]*(?:[-*•+][ \t]*)?[(\[]?[ \t]*"
    r"(?:o(?:p(?:t(?:i(?:o(?:n)?)?)?)?)?|c(?:h(?:o(?:i(?:c(?:e)?)?)?)?)?)?[ \t]*",
    re.I,
)
# A line announcing the options: "The options are:", "Let's look at the choices:".
_INTRO = re.compile(r"\b(?:options?|choices?|alternatives?)\b[^\n]*:[ \t]*$", re.I)


@dataclass(frozen=True)
class Unread:
    """Lines of a reply that are no evidence, and why."""

    lines: frozenset[int]
    """Indexes into ``text.splitlines()``."""
    listed: tuple[str, ...] = ()
    """Letters of restated option lists, in order."""
    cut_letter: str | None = None
    """The option named on the last line of a reply cut by the token limit."""

    def reason(self) -> str:
        """Why nothing was read, when these lines were all the reply had."""
        said = []
        if self.listed:
            said.append(f"restates the options ({', '.join(self.listed)}) without choosing one")
        if self.cut_letter is not None:
            said.append(
                f"cut by the token limit on a line naming option {self.cut_letter}: the start "
                "of a list of options or of an answer, no evidence of either"
            )
        return "; ".join(said)


@dataclass(frozen=True)
class _OptionLine:
    index: int
    letter: str


def _restates(rest: str, option: str) -> bool:
    """Whether ``rest`` says nothing but the option's text, whole or cut short."""
    said = " ".join(rest.lower().split()).strip(" .,;:)]-")
    return option.lower().startswith(said) if said else True


def _option_lines(lines: Sequence[str], options: Mapping[str, str]) -> list[_OptionLine | None]:
    """Per line: the option it restates, or None."""
    out: list[_OptionLine | None] = []
    for index, line in enumerate(lines):
        match = _OPTION_LINE.fullmatch(line)
        letter = match.group("letter").upper() if match else ""
        restated = match is not None and letter in options
        if restated and match is not None:
            option = " ".join(options[letter].split())
            restated = _restates(re.sub(r"^[.):\]\s-]+", "", match.group("rest")), option)
        out.append(_OptionLine(index, letter) if restated else None)
    return out


def _intro(lines: Sequence[str], before: int) -> bool:
    """Whether the last non-blank line before ``before`` announces the options (and gives no
    answer itself: "Of the options, the answer is:" is a marker)."""
    previous = next((lines[i] for i in range(before - 1, -1, -1) if lines[i].strip()), "")
    return bool(_INTRO.search(previous)) and not (
        _MARKER.search(previous) or _CHOOSE.search(previous)
    )


def _runs(lines: Sequence[str], options: Mapping[str, str]) -> list[list[_OptionLine]]:
    """Runs of restating lines whose letters follow the key order, only blank lines between."""
    order = {letter: rank for rank, letter in enumerate(sorted(options))}
    runs: list[list[_OptionLine]] = []
    previous: _OptionLine | None = None
    for line, found in zip(lines, _option_lines(lines, options), strict=True):
        if found is None:
            previous = previous if not line.strip() else None
            continue
        if previous is not None and order[found.letter] == order[previous.letter] + 1:
            runs[-1].append(found)
        else:
            runs.append([found])
        previous = found
    return runs


def _cut_line(lines: Sequence[str], runs: list[list[_OptionLine]]) -> tuple[set[int], str | None]:
    """In a reply cut by the token limit: the option line it ends on, with the partial line
    after it that may begin the next one ("Opt", "(", "-"), and that option's letter."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    ends = {run[-1].index: run[-1].letter for run in runs}
    if filled and filled[-1] in ends:
        return {filled[-1]}, ends[filled[-1]]
    if len(filled) > 1 and filled[-2] in ends and _LINE_START.fullmatch(lines[filled[-1]]):
        return {filled[-2], filled[-1]}, ends[filled[-2]]
    return set(), None


def unread_lines(text: str, options: Mapping[str, str], *, truncated: bool) -> Unread | None:
    """The lines of ``text`` (cleaned) that are no evidence (see the module doc); None when
    every line may be read."""
    lines = text.splitlines()
    first = min(options)
    runs = _runs(lines, options)
    listed: list[_OptionLine] = []
    for run in runs:
        if len(run) > 1 or (run[0].letter == first and _intro(lines, run[0].index)):
            listed += run
    blank = {found.index for found in listed}
    cut_letter = None
    if truncated:
        cut, letter = _cut_line(lines, runs)
        cut_letter = None if cut <= blank else letter
        blank |= cut
    if not blank:
        return None
    return Unread(frozenset(blank), tuple(f.letter for f in listed), cut_letter)


def blank_lines(text: str, indexes: frozenset[int]) -> str:
    """``text`` with the lines at ``indexes`` (of ``text.splitlines()``) emptied, their line
    breaks kept so that every other line keeps its index."""
    out = []
    for index, line in enumerate(text.splitlines(keepends=True)):
        body = line.splitlines()[0] if line.splitlines() else ""
        out.append(line[len(body) :] if index in indexes else line)
    return "".join(out)
