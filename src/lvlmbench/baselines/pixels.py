"""``baseline/pixels``: a weak but real vision examinee built from pixel statistics.

It looks at the image the way a very simple model might: every pixel is named after the nearest
colour of a fixed palette, blobs of one colour are counted, their centres located, and overall
brightness and warmth measured. Options are then scored by what those statistics support:

- a colour named in an option that does not appear in the image counts against it;
- "how many ..." options are compared with the number of blobs of the colours the question
  names;
- "where is A compared with B" options are compared with the direction from B's blob to A's;
- time-of-day options are compared with brightness and warmth.

Where no statistic speaks, it answers like ``baseline/prior`` (words shared with the question).
It is a reference between chance and a real model: accuracy above chance on colour, counting
and lighting aspects and near chance on everything else is what it should show, and how that
falls with difficulty (clutter, occlusion, low light) is readable in any report.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from lvlmbench._memo import Recent
from lvlmbench.choice import ParsedChoice
from lvlmbench.scenes.palette import COLORS, nearest_rows

__all__ = ["Look", "answer_from_pixels", "choose_option", "judge_statement"]

_SIDE = 96
"""The image is looked at as a _SIDE x _SIDE grid of pixels (nearest-neighbour)."""
_MIN_BLOB = 6
"""Blobs smaller than this many grid pixels are noise (edges, rain streaks, text)."""
_PRESENT = 0.003
"""Share of the grid a colour needs to count as present."""
_NAMES = list(COLORS)
_RGB = np.array([COLORS[n] for n in _NAMES], dtype=np.int32)
_NUMBER_WORDS = {"zero": 0, "none": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_NUMBER_WORDS |= {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_DIRECTIONS = ("left", "right", "above", "below")
_TIMES = {"night": ("night", "dark"), "dusk": ("sunset", "dusk", "evening"), "day": ("day",)}


def _colours_in(text: str) -> list[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return [w if w != "grey" else "gray" for w in words if w in COLORS or w == "grey"]


def _number_in(text: str) -> int | None:
    digits = re.findall(r"\d+", text)
    if digits:
        return int(digits[0])
    words = [w for w in re.findall(r"[a-z]+", text.lower()) if w in _NUMBER_WORDS]
    return _NUMBER_WORDS[words[0]] if words else None


@dataclass
class Look:
    """Pixel statistics of one image: palette names per grid pixel, brightness, warmth."""

    names: NDArray[np.uint8]
    """Index into the palette of every grid pixel (_SIDE x _SIDE; one byte each, so that the
    looks a worker keeps stay small)."""
    brightness: float
    """Mean luminance, 0-255."""
    warmth: float
    """Mean red minus blue, -255..255."""
    _blobs: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)

    @classmethod
    def of(cls, png: bytes) -> Look:
        """Statistics of an encoded image."""
        with Image.open(io.BytesIO(png)) as opened:
            grid = opened.convert("RGB").resize((_SIDE, _SIDE), Image.Resampling.NEAREST)
        rgb = np.asarray(grid, dtype=np.int32)
        luminance = rgb @ np.array([0.299, 0.587, 0.114])
        warmth = rgb[:, :, 0] - rgb[:, :, 2]
        names = nearest_rows(rgb, _RGB).astype(np.uint8)
        return cls(names, float(luminance.mean()), float(warmth.mean()))

    @cached_property
    def background(self) -> set[str]:
        """Colours covering over a quarter of the image's border: the backdrop, not things."""
        border = np.concatenate(
            [self.names[0], self.names[-1], self.names[:, 0], self.names[:, -1]]
        )
        counts = np.bincount(border, minlength=len(_NAMES))
        return {_NAMES[i] for i in np.flatnonzero(counts > len(border) / 4)}

    def share(self, colour: str) -> float:
        """Fraction of the grid named ``colour``."""
        return float(np.count_nonzero(self.names == _NAMES.index(colour))) / self.names.size

    def present(self, colour: str) -> bool:
        """Whether ``colour`` covers enough of the image to be a thing in it."""
        return self.share(colour) >= _PRESENT

    def blobs(self, colour: str) -> list[tuple[int, float, float]]:
        """(size, centre row, centre column) of each 4-connected blob of ``colour``."""
        if colour not in self._blobs:
            self._blobs[colour] = _components(self.names == _NAMES.index(colour))
        return self._blobs[colour]

    def time_of_day(self) -> str:
        """One of night, dusk or day: night light is dim or blue, dusk light orange."""
        if self.brightness < 70 or self.warmth < -30:
            return "night"
        return "dusk" if self.warmth > 40 else "day"


def _components(mask: NDArray[np.bool_]) -> list[tuple[int, float, float]]:
    """(size, centre row, centre column) of each 4-connected blob of at least _MIN_BLOB cells,
    in the order of each blob's first cell in reading order.

    A breadth-first search over a flat Python list: indexing numpy arrays one cell at a time
    cost several times as much as the search itself."""
    height, width = mask.shape
    flat: list[bool] = mask.ravel().tolist()
    seen = [False] * len(flat)
    found = []
    for start in np.flatnonzero(mask).tolist():
        if seen[start]:
            continue
        seen[start] = True
        queue, cells = deque([start]), []
        while queue:
            cell = queue.popleft()
            cells.append(cell)
            row, col = divmod(cell, width)
            for neighbour, inside in (
                (cell + width, row + 1 < height),
                (cell - width, row > 0),
                (cell + 1, col + 1 < width),
                (cell - 1, col > 0),
            ):
                if inside and flat[neighbour] and not seen[neighbour]:
                    seen[neighbour] = True
                    queue.append(neighbour)
        if len(cells) >= _MIN_BLOB:
            rows = sum(cell // width for cell in cells)
            cols = sum(cell % width for cell in cells)
            found.append((len(cells), rows / len(cells), cols / len(cells)))
    return found


def _direction(look: Look, subject: str, reference: str) -> str | None:
    """Where the biggest ``subject`` blob lies relative to the biggest ``reference`` blob."""
    a, b = look.blobs(subject), look.blobs(reference)
    if not a or not b:
        return None
    _, ar, ac = max(a)
    _, br, bc = max(b)
    if abs(ac - bc) >= abs(ar - br):
        return "right" if ac > bc else "left"
    return "below" if ar > br else "above"


def _option_score(question: str, option: str, look: Look) -> float:
    score = 0.0
    for colour in _colours_in(option):
        score += 1.0 if look.present(colour) else -1.0
    asked = _colours_in(question)
    number = _number_in(option)
    if number is not None and question.lower().startswith("how many"):
        targets = [c for c in asked if c not in look.background] or [
            c for c in _NAMES if c not in look.background
        ]
        counted = sum(len(look.blobs(c)) for c in dict.fromkeys(targets))
        score -= abs(number - counted)
    said = [d for d in _DIRECTIONS if d in option.lower()]
    if said and len(asked) >= 2:
        score += 2.0 if _direction(look, asked[0], asked[-1]) == said[0] else 0.0
    for time, words in _TIMES.items():
        if any(w in option.lower() for w in words):
            score += 1.0 if look.time_of_day() == time else -1.0
    return score


def choose_option(parsed: ParsedChoice, look: Look, fallback: str) -> str:
    """The letter whose option the pixel statistics support best; ties go to ``fallback`` when
    it is among the best, else to the earliest letter."""
    scores = {
        letter: _option_score(parsed.question, text, look)
        for letter, text in parsed.options.items()
    }
    best = max(scores.values())
    tied = [letter for letter in sorted(scores) if scores[letter] == best]
    return fallback if fallback in tied else tied[0]


def judge_statement(statement: str, look: Look) -> bool:
    """True unless a colour the statement names is missing from the image."""
    return all(look.present(c) for c in _colours_in(statement))


_looks: Recent[bytes, Look] = Recent(1024)
"""Looks a worker process keeps (about 9 KB each). An experiment asks about every image of a
benchmark again, once per re-keyed copy; decoding a scene is most of a look's cost."""


def look_at(png: bytes) -> Look:
    """The look of ``png``, kept for the next question about the same picture."""
    return _looks.get(hashlib.blake2b(png, digest_size=16).digest(), lambda: Look.of(png))


def answer_from_pixels(parsed: ParsedChoice, png: bytes, fallback: str) -> str:
    """The reply to a choice prompt from the image (runs in a worker process)."""
    look = look_at(png)
    if parsed.kind == "tf":
        return "true" if judge_statement(parsed.question, look) else "false"
    return f"Answer: {choose_option(parsed, look, fallback)}"
