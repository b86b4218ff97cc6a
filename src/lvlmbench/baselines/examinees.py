"""Examinees that need no weights: reference points every benchmark should be read against.

- ``baseline/random``: a uniformly random option (or true/false), chance level;
- ``baseline/prior``: answers from the question text alone, the language-bias probe;
- ``baseline/oracle``: answers with the key it was shown beforehand, the pipeline's upper bound;
- ``baseline/pixels``: a weak vision examinee from pixel statistics (:mod:`.pixels`).

They read the question and options back out of the message text with
:func:`~lvlmbench.choice.parse_choice_prompt`, so they see exactly what a real examinee sees.
Option ``seed`` (default 0) changes the random baseline's draws; replies never depend on
anything but the messages, the seed and the generation epoch, so reruns are identical.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping

from lvlmbench._workers import run_cpu
from lvlmbench.choice import ParsedChoice, parse_choice_prompt, render_choice_prompt
from lvlmbench.models import ErrorKind, ProviderError
from lvlmbench.types import BenchmarkItem, GenerationConfig, ImagePart, Message, ModelOutput, Usage

__all__ = [
    "KNOWN_BASELINES",
    "Baseline",
    "OracleBaseline",
    "PixelsBaseline",
    "PriorBaseline",
    "RandomBaseline",
    "create",
]

ENDPOINT = "local:baseline"
UNKNOWN_REPLY = "I don't know"


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


# Words too common to say what a question is about; the prior ignores them (and every word of
# two letters or fewer).
_STOPWORDS = frozenset(
    _words(
        "the are was were its this that these those what which who how many much does did there "
        "here with and for from image picture photo shown shows show answer option options "
        "letter given choices directly true false describe detail please tell about you can see "
        "write"
    )
)


def _content_words(text: str) -> list[str]:
    """Words that carry meaning, first occurrence order, no repeats."""
    return list(dict.fromkeys(w for w in _words(text) if w not in _STOPWORDS and len(w) > 2))


def _prompt_text(messages: list[Message]) -> str:
    """The last user turn's text: where the question (and any description) is."""
    users = [m for m in messages if m.role == "user"]
    return users[-1].text() if users else ""


def _sentence(words: list[str]) -> str:
    # Open-ended items: a plain statement made of the prompt's own words, so text metrics have
    # something to compare and the reply is reproducible.
    if not words:
        return "The image shows something."
    listed = f"{', '.join(words[:-1])} and {words[-1]}" if len(words) > 1 else words[0]
    return f"The image shows {listed}."


class Baseline(ABC):
    """What every baseline shares: spec, identity, usage accounting, no connections."""

    name = ""
    cacheable = False
    """Deterministic and instant: a cache row per answer would cost more than the answer."""
    usage_counts_images = False
    """Usage counts words only: no image is ever a token here, so a run's check that images
    cost prompt tokens (:mod:`lvlmbench.runner._image_watch`) has nothing to measure."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        suffix = f"?seed={seed}" if seed else ""
        # The seed is part of the spec so two seeds' responses are stored as two examinees.
        self.spec = f"baseline/{self.name}{suffix}"
        self.endpoint = ENDPOINT
        self.closed = False

    def cache_identity(self) -> dict[str, object]:
        return {"provider": "baseline", "model": self.name, "seed": self.seed}

    @abstractmethod
    def reply(self, messages: list[Message], config: GenerationConfig) -> str:
        """The answer text for ``messages``."""

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        started = time.perf_counter()
        text = self.reply(messages, config)
        words_in = sum(len(m.text().split()) for m in messages)
        return ModelOutput(
            text=text,
            usage=Usage(input_tokens=words_in, output_tokens=max(1, len(text.split()))),
            latency_s=time.perf_counter() - started,
            finish_reason="stop",
            raw={"baseline": self.name, "seed": self.seed},
        )

    async def aclose(self) -> None:
        """Nothing to release; marks the model closed."""
        self.closed = True


class RandomBaseline(Baseline):
    """Uniform over the options in the prompt (or true/false); open prompts get a sentence of
    randomly chosen prompt words. Draws are seeded by a hash of the prompt text, the images'
    hashes, the ``seed`` option and the generation epoch."""

    name = "random"

    def _rng(self, messages: list[Message], config: GenerationConfig) -> random.Random:
        # The images are part of the draw: many items share one prompt ("Is it night-time?")
        # and must not all get the same answer.
        shown = "\0".join(_image_hashes(messages))
        text = _prompt_text(messages)
        key = f"{self.seed}\0{config.epoch}\0{text}\0{shown}"
        return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))

    def reply(self, messages: list[Message], config: GenerationConfig) -> str:
        text = _prompt_text(messages)
        rng = self._rng(messages, config)
        parsed = parse_choice_prompt(text)
        if parsed is None:
            words = _content_words(text)
            return _sentence(rng.sample(words, min(3, len(words))))
        if parsed.kind == "tf":
            return rng.choice(("true", "false"))
        return rng.choice(sorted(parsed.options))


class PriorBaseline(Baseline):
    """Answers from the text alone, never the image: how far language priors go.

    Multiple choice: the option sharing the most content words (stopwords and words of two
    letters or fewer left out) with the question; ties go to the longer option text, then to the
    earlier letter. True/false: always "true" (generated statements lean true). Open prompts: the
    first three content words of the prompt in a sentence.
    """

    name = "prior"

    def reply(self, messages: list[Message], config: GenerationConfig) -> str:
        text = _prompt_text(messages)
        parsed = parse_choice_prompt(text)
        if parsed is None:
            return _sentence(_content_words(text)[:3])
        if parsed.kind == "tf":
            return "true"
        return _most_overlapping(parsed)


def _most_overlapping(parsed: ParsedChoice) -> str:
    asked = set(_content_words(parsed.question))

    def score(letter: str) -> tuple[int, int]:
        option = parsed.options[letter]
        return len(asked & set(_content_words(option))), len(option)

    # max() keeps the first of equal scores, and the letters are in order: ties go to the earlier.
    return max(sorted(parsed.options), key=score)


class OracleBaseline(Baseline):
    """Answers with the key: the upper bound of the whole pipeline (extraction included).

    :meth:`prepare` shows it the items; it then recognises each item by its rendered prompt
    (also when a description precedes it) and, if two items share a prompt, by their images.
    It replies "Answer: B" (mc), "true"/"false" (tf) or the reference (open items that have
    one); for a prompt it was not shown, or one whose items disagree, it says "I don't know".
    """

    name = "oracle"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._known: dict[str, list[tuple[tuple[str, ...], str]]] = {}

    def prepare(self, items: Iterable[BenchmarkItem]) -> None:
        """Learn the keys of ``items`` (may be called again for more items)."""
        for item in items:
            learned = _key_of(item)
            if learned is not None:
                prompt, reply = learned
                self._known.setdefault(prompt, []).append((tuple(item.images), reply))

    def _entries(self, text: str) -> list[tuple[tuple[str, ...], str]]:
        # Longest line-aligned suffix first: the prompt is the end of the message, after any
        # description the no-image variant puts before it.
        lines = text.strip().split("\n")
        for start in range(len(lines)):
            entries = self._known.get("\n".join(lines[start:]).strip())
            if entries:
                return entries
        return []

    def reply(self, messages: list[Message], config: GenerationConfig) -> str:
        entries = self._entries(_prompt_text(messages))
        if len({reply for _, reply in entries}) > 1:
            shown = _image_hashes(messages)
            entries = [e for e in entries if shown and e[0] == shown]
        replies = {reply for _, reply in entries}
        return replies.pop() if len(replies) == 1 else UNKNOWN_REPLY


def _key_of(item: BenchmarkItem) -> tuple[str, str] | None:
    """(prompt the examinee sees, what the oracle replies), or None if the item has no key."""
    if item.kind == "open":
        return (item.question.strip(), item.reference) if item.reference else None
    if item.answer is None:
        return None
    try:
        prompt = render_choice_prompt(item)
    except ValueError:
        return None  # malformed options: no examinee sees this prompt either
    return prompt, f"Answer: {item.answer}" if item.kind == "mc" else item.answer.lower()


def _image_hashes(messages: list[Message]) -> tuple[str, ...]:
    parts: list[ImagePart] = [p for m in messages if m.role == "user" for p in m.images()]
    try:
        return tuple(p.sha256() for p in parts)
    except OSError:
        return ()


class PixelsBaseline(PriorBaseline):
    """Looks at the image through colour, blob and brightness statistics (see
    :mod:`lvlmbench.baselines.pixels`); answers like the prior where they say nothing. Without an
    image (the no-image and question-only variants) it is the prior. The pixel work runs in
    the shared worker processes, so several items are looked at in parallel."""

    name = "pixels"

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        # numpy and the palette only when a pixels baseline runs, not on every registry import.
        from lvlmbench.baselines.pixels import answer_from_pixels

        text = _prompt_text(messages)
        parsed = parse_choice_prompt(text)
        images: list[ImagePart] = [p for m in messages if m.role == "user" for p in m.images()]
        if parsed is None or not images:
            return await super().generate(messages, config)
        started = time.perf_counter()
        fallback = _most_overlapping(parsed) if parsed.kind == "mc" else "true"
        try:
            png = images[0].read_bytes()
            reply = await run_cpu(answer_from_pixels, parsed, png, fallback)
        except OSError as exc:  # unreadable file or bytes that are not an image
            raise ProviderError(
                f"baseline/pixels cannot read the image: {exc}", ErrorKind.FATAL, status_code=400
            ) from None
        return ModelOutput(
            text=reply,
            usage=Usage(input_tokens=len(text.split()), output_tokens=len(reply.split())),
            latency_s=time.perf_counter() - started,
            finish_reason="stop",
            raw={"baseline": self.name, "seed": self.seed},
        )


KNOWN_BASELINES: dict[str, type[Baseline]] = {
    "random": RandomBaseline,
    "prior": PriorBaseline,
    "oracle": OracleBaseline,
    "pixels": PixelsBaseline,
}


def create(name: str, options: Mapping[str, str]) -> Baseline:
    """Registry factory: ``baseline/random``, ``baseline/prior``, ``baseline/oracle``,
    ``baseline/pixels``; option
    ``seed`` (an integer, default 0)."""
    cls = KNOWN_BASELINES.get(name)
    if cls is None:
        raise ProviderError(
            f"unknown baseline {name!r}; known: {', '.join(KNOWN_BASELINES)}", ErrorKind.FATAL
        )
    try:
        seed = int(options.get("seed", 0))
    except ValueError:
        raise ProviderError(
            f"baseline/{name}: seed must be an integer, got {options['seed']!r}", ErrorKind.FATAL
        ) from None
    return cls(seed)
