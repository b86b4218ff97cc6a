"""Stage 3–4: difficulty-graded image descriptions, made diverse by the semantic graph.

Descriptions for one (fine aspect, level) are written in rounds, one per round. In round ``i``
the examiner returns a topic word, 3–6 keywords and the description; topic and keywords go into
the :class:`~lvlmbench.autobench.diversity.SemanticGraph`, which then bans its ``f(i)``
highest-degree nodes, and every later prompt lists the banned words. Rounds are therefore
sequential; a graph shared between calls (say, one per level across all aspects) works too,
because each round reads the bans at the moment its prompt is written.

Each round is a distinct sample: temperature 0.8 with ``epoch`` = the round number, so the
cache keeps one entry per round and a re-run replays the same samples.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from lvlmbench.autobench._drafts import Description
from lvlmbench.autobench._results import StageResult, writer_messages
from lvlmbench.autobench.diversity import SemanticGraph, normalise_word
from lvlmbench.models import ModelClient
from lvlmbench.prompts import load_prompt, render_prompt
from lvlmbench.types import GenerationConfig, Status

__all__ = [
    "DESCRIPTION_TEMPERATURE",
    "DIFFICULTY_GUIDE",
    "LEVELS",
    "Description",
    "DescriptionReply",
    "Level",
    "description_config",
    "write_descriptions",
]

Level = Literal["easy", "medium", "hard"]
LEVELS: tuple[Level, ...] = ("easy", "medium", "hard")

DIFFICULTY_GUIDE: Mapping[str, str] = {
    level: load_prompt(f"autobench/difficulty_{level}.md").strip() for level in LEVELS
}
"""What makes an image easy, medium or hard (the paper's factors: background complexity,
number of elements and their relations, texture detail); the text lives in prompt files."""

DESCRIPTION_TEMPERATURE = 0.8
"""Sampling temperature for descriptions: rounds must differ, so they are sampled."""

_SEED_STRIDE = 100_003
"""Spaces the provider seeds of different run seeds apart, so (seed, round) pairs never meet."""


class DescriptionReply(BaseModel):
    """The examiner's reply in one round."""

    topic: str = Field(min_length=1, max_length=40)
    """One topic word (or a short two-word term) for the scene's theme."""
    keywords: list[str] = Field(min_length=3, max_length=6)
    """The scene's main elements, 3 to 6 distinct words."""
    description: str = Field(min_length=20, max_length=2000)
    """The image description."""

    @field_validator("topic")
    @classmethod
    def _short_topic(cls, value: str) -> str:
        if not normalise_word(value):
            raise ValueError("the topic must contain a word")
        if len(value.split()) > 3:
            raise ValueError("the topic must be one word or a short term of at most 3 words")
        return value.strip()

    @field_validator("keywords")
    @classmethod
    def _distinct_keywords(cls, value: list[str]) -> list[str]:
        words = [normalise_word(k) for k in value]
        if not all(words):
            raise ValueError("every keyword must contain a word")
        if len(set(words)) != len(words):
            raise ValueError("keywords must be distinct")
        return [k.strip() for k in value]


def _mentions(phrase: str, banned: str) -> bool:
    """Whether ``phrase`` uses the banned word: equal, or containing all its tokens."""
    words, ban = normalise_word(phrase).split(), normalise_word(banned).split()
    return bool(ban) and all(w in words for w in ban)


def _violations(reply: DescriptionReply, banned: list[str]) -> list[str]:
    found = [
        f"topic {reply.topic!r} uses banned word {b!r}" for b in banned if _mentions(reply.topic, b)
    ]
    found += [
        f"keyword {k!r} uses banned word {b!r}"
        for k in reply.keywords
        for b in banned
        if _mentions(k, b)
    ]
    return found


def _banned_block(words: list[str]) -> str:
    if not words:
        return ""
    return render_prompt("autobench/description_banned.md", words=", ".join(words))


def description_config(round_: int, seed: int) -> GenerationConfig:
    """Sampling settings of one round: its own epoch and its own provider seed.

    The provider seed varies with the round too: without the graph every round's prompt is the
    same, and a server that honours seeds would otherwise return one sample ``count`` times.
    """
    return GenerationConfig(
        temperature=DESCRIPTION_TEMPERATURE,
        max_tokens=700,
        epoch=round_,
        seed=seed * _SEED_STRIDE + round_,
    )


async def write_descriptions(
    examiner: ModelClient,
    capability: str,
    general: str,
    fine: str,
    guideline: str,
    level: str,
    count: int,
    graph: SemanticGraph | None,
    *,
    seed: int = 0,
    max_reasks: int = 2,
) -> list[StageResult[Description]]:
    """``count`` descriptions of ``fine`` at ``level``, one per round, in round order.

    A failed round is a failed result in the list (the graph then learns nothing from it);
    ``graph=None`` writes without the diversity mechanism.
    """
    if level not in DIFFICULTY_GUIDE:
        raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    results: list[StageResult[Description]] = []
    for round_ in range(1, count + 1):
        shown = graph.banned if graph is not None else []
        messages = writer_messages(
            "autobench/description.md",
            capability=capability,
            general=general,
            fine=fine,
            guideline=guideline,
            level=level,
            difficulty_guide=DIFFICULTY_GUIDE[level],
            banned=_banned_block(shown),
        )
        config = description_config(round_, seed)
        reply = await examiner.generate_json(messages, DescriptionReply, config, max_reasks)
        if reply.value is None:
            results.append(StageResult.failure(reply.status, str(reply.reason), reply.attempts))
            continue
        value = reply.value
        if graph is not None:
            graph.add_round(value.topic, value.keywords)
        description = Description(
            text=value.description,
            topic=value.topic,
            keywords=value.keywords,
            round=round_,
            banned_words_shown=shown,
            violations=_violations(value, shown),
        )
        results.append(StageResult(description, Status.OK, None, reply.attempts))
    return results
