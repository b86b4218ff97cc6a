"""Scripted examiners for the AutoBench-V experiments (no network, deterministic)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from lvlmbench.types import GenerationConfig, Message, ModelOutput

BANNED_INTRO = "Do NOT use any of the following words"

# Themes in the examiner's order of preference, each with the elements it likes to draw.
THEMES: dict[str, list[str]] = {
    "city": ["street", "car", "building", "bus", "traffic light", "crowd"],
    "forest": ["tree", "path", "deer", "moss", "stream"],
    "beach": ["sand", "wave", "shell", "umbrella", "gull"],
    "kitchen": ["cup", "plate", "table", "kettle", "spoon"],
    "farm": ["cow", "barn", "hay", "tractor", "fence"],
    "harbour": ["boat", "crane", "pier", "rope", "buoy"],
    "desert": ["dune", "cactus", "camel", "rock", "sun"],
    "library": ["book", "shelf", "lamp", "desk", "globe"],
    "mountain": ["peak", "snow", "goat", "cabin", "cloud"],
    "market": ["stall", "fruit", "basket", "awning", "scale"],
}


def banned_words(messages: list[Message]) -> set[str]:
    """The words the description prompt tells the examiner not to use."""
    lines = messages[-1].text().splitlines()
    for i, line in enumerate(lines):
        if BANNED_INTRO in line and i + 1 < len(lines):
            return {w.strip() for w in lines[i + 1].split(",") if w.strip()}
    return set()


def _draw(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16)


@dataclass
class TopicBiasedExaminer:
    """Writes descriptions that return to "city" ``bias`` of the time unless told not to.

    Without bans the topic is "city" with probability ``bias`` (drawn from the round's seed),
    otherwise a theme drawn uniformly; with bans it takes the drawn theme if allowed, else the
    first allowed theme in preference order, and keywords that are not banned.
    """

    bias: float = 0.7
    spec: str = "fake/topic-biased"
    endpoint: str = "fake://topic-biased"
    calls: list[list[Message]] = field(default_factory=list)

    def cache_identity(self) -> dict[str, object]:
        return {"provider": "fake", "model": self.spec, "bias": self.bias}

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        self.calls.append(messages)
        banned = banned_words(messages)
        draw = _draw(config.seed, config.epoch, messages[-1].text()[:200])
        names = list(THEMES)
        wanted = "city" if (draw % 1000) / 1000 < self.bias else names[draw % len(names)]
        allowed = [t for t in names if t not in banned]
        topic = wanted if wanted not in banned else (allowed[0] if allowed else wanted)
        pool = [k for k in THEMES[topic] if k not in banned] or THEMES[topic]
        start = draw % len(pool)
        keywords = (pool[start:] + pool[:start])[:3]
        text = f"A {topic} scene with a {', a '.join(keywords)}, each clearly visible."
        body = {"topic": topic, "keywords": keywords, "description": text}
        return ModelOutput(text=json.dumps(body))

    async def aclose(self) -> None:
        """Nothing to release."""
