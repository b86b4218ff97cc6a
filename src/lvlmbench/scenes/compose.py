"""A free-text capability in the built-in world: composed openly from fine aspects, or refused.

The procedural examiner can only draw what its recipes draw. For a capability that is not one
of the built-in names, every content word of the text (after light stemming, generic words such
as "understanding" or "ability" left out) must appear in some built-in fine aspect: in its name,
its general aspect, its capability's name or keywords, or its guideline. Then the benchmark is
composed from the fine aspects that match the most words, and the mapping (which words matched
which aspect) is shown wherever the capability is. If a word matches nothing ("clocks" in
"reading clocks": no recipe draws a clock), the built-in world cannot express the capability and
it is refused, with the command that uses a model examiner instead.

This is the reading of AutoBench-V's on-demand premise for an examiner without a model: a
capability is never silently replaced by another one.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from lvlmbench.scenes.taxonomy import _KEYWORDS, TAXONOMY

__all__ = ["CapabilityRefused", "ComposedAspect", "Composition", "compose_capability"]

_GENERIC_WORDS = (
    "a an the of and or in on at to for with by from as is are be its it one into about "
    "understanding ability abilities capability capabilities capacity skill skills "
    "recognition recognising recognizing perception perceiving visual vision image images "
    "picture pictures scene scenes model models test testing task tasks"
)
_GENERIC = frozenset(_GENERIC_WORDS.split())
"""Words every capability could carry: they say nothing about what must be drawn."""
_SPELLING = {"color": "colour", "colors": "colour", "people": "person", "persons": "person"}
EXAMPLE_EXAMINER = "openai/gpt-4o"
EXAMPLE_IMAGES = "openai/gpt-image-1"
"""Drawn at 1024 (the suggested command says so): OpenAI's gpt-image models draw no smaller."""


class CapabilityRefused(ValueError):
    """The built-in world cannot express this capability (the message says why and what to
    run instead)."""


@dataclass(frozen=True)
class ComposedAspect:
    """A built-in fine aspect chosen for a free-text capability, and the words it matched."""

    capability: str
    general: str
    fine: str
    guideline: str
    matched: tuple[str, ...]


@dataclass(frozen=True)
class Composition:
    """How a free-text capability is composed from built-in fine aspects."""

    requested: str
    words: tuple[str, ...]
    """The capability's content words (stemmed)."""
    aspects: tuple[ComposedAspect, ...]
    """Best match first."""

    def note(self, chosen: Sequence[ComposedAspect] | None = None) -> str:
        """One line for summaries and reports: the aspects ``chosen`` (default: all that
        match) and the words each mentions."""
        used = list(self.aspects if chosen is None else chosen)
        names = ", ".join(f"'{a.fine}' ({'/'.join(a.matched)})" for a in used[:8])
        more = f" and {len(used) - 8} more" if len(used) > 8 else ""
        return (
            f"{self.requested!r} is not a built-in capability: composed from {len(used)} "
            f"built-in fine aspects that mention its words ({', '.join(self.words)}): "
            f"{names}{more}"
        )


def _stem(word: str) -> str:
    word = _SPELLING.get(word, word)
    for suffix in ("ing", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return _SPELLING.get(word, word)


_TOKEN = re.compile(r"[^\W_]+|[^\w\s]+")
"""Words in any script, and runs of other non-space characters (punctuation, symbols)."""


def _tokens(text: str) -> list[str]:
    """The words of ``text`` and its symbols (an emoji, ``€``): every one says something the
    picture must show, so none is dropped unseen; punctuation and operators only separate.
    Words are read in any script: ``[a-z0-9]+`` cut "zählen" into "z" and "hlen" and
    dropped "🙂" from "counting 🙂", silently."""
    tokens = []
    for token in _TOKEN.findall(text.lower()):
        if token[0].isalnum() or any(unicodedata.category(c) in _SYMBOLS for c in token):
            tokens.append(token)
    return tokens


_SYMBOLS = frozenset({"So", "Sc", "Sk"})
"""Unicode categories of symbols that name a thing (emoji, currency, modifiers), unlike the
mathematical ones (``+``, ``<``) and punctuation, which join or separate words."""


def _originals(text: str) -> list[str]:
    return list(dict.fromkeys(w for w in _tokens(text) if w not in _GENERIC))


def content_words(text: str) -> list[str]:
    """Stemmed words (and symbols) of ``text`` that say what must be drawn (generic words
    left out)."""
    return list(dict.fromkeys(_stem(w) for w in _tokens(text) if w not in _GENERIC))


def _own_words(general: str, fine: str, guideline: str) -> set[str]:
    return set(content_words(f"{general} {fine} {guideline}"))


def _capability_words(capability: str) -> set[str]:
    return set(content_words(" ".join([capability, *_KEYWORDS[capability]])))


def _matches(words: list[str]) -> list[ComposedAspect]:
    """Every fine aspect that mentions a word, ranked: most of the capability's words first
    (in the aspect's name, general aspect and guideline, or its capability's name and
    keywords), then most words in the aspect itself; ties keep the taxonomy's order."""
    scored = []
    for capability, generals in TAXONOMY.items():
        broad = _capability_words(capability)
        for general, fines in generals.items():
            for fine, guideline in fines.items():
                own = _own_words(general, fine, guideline)
                matched = tuple(w for w in words if w in own or w in broad)
                mine = sum(w in own for w in words)
                if matched:
                    aspect = ComposedAspect(capability, general, fine, guideline, matched)
                    scored.append((mine, len(matched), aspect))
    scored.sort(key=lambda entry: (-entry[1], -entry[0]))
    return [aspect for _, _, aspect in scored]


def _refusal(text: str, missing: list[str]) -> CapabilityRefused:
    command = (
        f"lvlmbench generate {shlex.quote(text)} --examiner {EXAMPLE_EXAMINER} "
        f"--images {EXAMPLE_IMAGES} --image-size 1024 --mode text"
    )
    return CapabilityRefused(
        f"capability {text!r}: the built-in (procedural) examiner cannot express "
        f"{', '.join(repr(w) for w in missing)} (no built-in fine aspect mentions it); "
        f"use a model examiner, e.g. {command}"
    )


def compose_capability(text: str) -> Composition | None:
    """None for a built-in capability's name; else the composition, or CapabilityRefused
    (an empty text, or a word that no built-in fine aspect mentions)."""
    key = " ".join(text.lower().split())
    if not key:
        raise CapabilityRefused("capability is empty: name the capability to test")
    if key in TAXONOMY:
        return None
    words = content_words(key)
    if not words:
        raise CapabilityRefused(
            f"capability {text!r} names nothing to draw; built-in: {', '.join(TAXONOMY)}"
        )
    ranked = _matches(words)
    covered = {w for m in ranked for w in m.matched}
    missing = [original for original in _originals(key) if _stem(original) not in covered]
    if missing:
        raise _refusal(text, missing)
    return Composition(text, tuple(words), tuple(ranked))
