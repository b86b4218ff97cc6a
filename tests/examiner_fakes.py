"""A scripted AutoBench-V examiner: valid replies to every examiner prompt, per-prompt overrides.

Replies are a pure function of the messages and the generation config (never of call order),
so a pipeline that runs units concurrently gets the same reply for the same call every time,
which is what the store cache assumes of a greedy model.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from fakes import ScriptedModel

from lvlmbench.models import ProviderError
from lvlmbench.types import GenerationConfig, Message, ModelOutput, Usage

__all__ = [
    "Call",
    "Override",
    "ScriptedExaminer",
    "assigned_truth",
    "default_reply",
    "description_colours",
    "description_tag",
    "description_text",
    "prompt_kind",
    "scene_program",
]

COLOURS = ("red", "blue", "green", "yellow", "purple", "orange")
GENERAL = ("Relative position", "Object counting", "Colour naming", "Text reading")
FINE = {
    "Relative position": ("Left and right", "Above and below", "Betweenness"),
    "Object counting": ("Counting circles", "Parity of squares", "Total tally"),
    "Colour naming": ("Primary hues", "Pastel shades", "Dark tones"),
    "Text reading": ("Sign words", "Book titles", "Floating labels"),
}
_KINDS = (
    ("Break this capability down into exactly", "general"),
    ("Break this general aspect down into exactly", "fine"),
    ("Write a short guideline", "guideline"),
    ("Write one description of an image", "description"),
    ("Turn the image description below into a scene program", "scene"),
    ("simple questions that check whether the image", "checks"),
    ("Look at the image and answer the question", "answer"),
    ("Write one multiple-choice question", "mc"),
    ("Write one true/false statement", "tf"),
)


def prompt_kind(messages: list[Message]) -> str:
    """Which examiner prompt a call is (re-asks keep the kind of the first user message)."""
    first = next(m for m in messages if m.role == "user").text()
    for marker, kind in _KINDS:
        if marker in first:
            return kind
    raise AssertionError(f"unexpected prompt: {first[:120]!r}")


def _quoted(text: str) -> str:
    return text.split('"""')[1].strip()


def _field(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    assert match is not None, f"{pattern!r} not in prompt"
    return match.group(1)


def description_colours(description: str) -> tuple[str, str]:
    """The circle's and the square's colour as the scripted descriptions state them."""
    match = re.search(r"A (\w+) circle .* a (\w+) square", description)
    assert match is not None, description
    return match.group(1), match.group(2)


@dataclass(frozen=True)
class Call:
    """One examiner call as an override sees it."""

    kind: str
    messages: list[Message]
    config: GenerationConfig

    @property
    def prompt(self) -> str:
        """The first user message (the stage's prompt)."""
        return next(m for m in self.messages if m.role == "user").text()

    @property
    def reask(self) -> bool:
        """Whether this is a re-ask after an unusable reply."""
        return any(m.role == "assistant" for m in self.messages)

    @property
    def description(self) -> str:
        """The image description quoted in the prompt (scene, checks, question prompts)."""
        return _quoted(self.prompt)


Override = Callable[[Call], str | ProviderError | None]
"""Returns the reply text for a call, an error to raise, or None for the default reply."""


def description_tag(fine: str, level: str, round_: int) -> str:
    """The tag that the default description of (fine aspect, level, round) carries."""
    return hashlib.sha256(f"{fine}|{level}|{round_}".encode()).hexdigest()[:8]


def description_text(tag: str) -> str:
    """The default description carrying ``tag``: a circle and a square in colours from it."""
    first, second = int(tag[:2], 16) % len(COLOURS), int(tag[2:4], 16) % len(COLOURS)
    if second == first:
        second = (first + 1) % len(COLOURS)
    return (
        f"A {COLOURS[first]} circle on the left and a {COLOURS[second]} square on the right, "
        f"on a plain white background (scene {tag})."
    )


def default_reply(call: Call) -> str:
    """A valid reply to any examiner prompt."""
    prompt, kind = call.prompt, call.kind
    if kind == "general":
        n = int(_field(r"exactly (\d+) general aspects", prompt))
        body = [{"name": g, "description": f"Tests {g.lower()}."} for g in GENERAL[:n]]
        return json.dumps({"aspects": body})
    if kind == "fine":
        general = _field(r"One of its general aspects is:\s*\*\*(.+?)\*\*", prompt)
        m = int(_field(r"down into exactly (\d+) fine-grained", prompt))
        fines = [{"name": f, "description": f"Tests {f.lower()}."} for f in FINE[general][:m]]
        return json.dumps({"aspects": fines})
    if kind == "guideline":
        fine = _field(r"Fine-grained aspect: \*\*(.+?)\*\*", prompt)
        return json.dumps({"text": f"Make the {fine.lower()} plain to see in every image."})
    if kind == "description":
        fine = _field(r"Fine-grained aspect: \*\*(.+?)\*\*", prompt)
        level = _field(r"Difficulty level: \*\*(\w+)\*\*", prompt)
        tag = description_tag(fine, level, call.config.epoch)
        text = description_text(tag)
        keywords = [f"k{tag}{i}" for i in range(3)]
        return json.dumps({"topic": f"t{tag}", "keywords": keywords, "description": text})
    if kind == "scene":  # a sampled redraw (epoch > 0) moves the objects down a little
        return json.dumps(scene_program(call.description, call.config.epoch))
    if kind == "checks":
        k = int(_field(r"Write exactly (\d+) simple questions", prompt))
        circle, square = description_colours(call.description)
        elements = [f"the {circle} circle", f"the {square} square", "the white background"]
        checks = [
            {
                "question": f"Is {elements[i % 3]} visible (check {i})?",
                "kind": "yn",
                "options": [],
                "answer": "yes",
                "element": elements[i % 3],
            }
            for i in range(k)
        ]
        return json.dumps({"checks": checks})
    if kind == "answer":
        return "Yes."
    circle, square = description_colours(call.description)
    if kind == "mc":
        wrong = [c for c in COLOURS if c != circle][:3]
        question = {"question": "What colour is the circle?", "kind": "mc", "correct": circle}
        form = {"kind": "color", "subject": {"category": "circle"}}
        return json.dumps({**question, "distractors": wrong, "form": form})
    assert kind == "tf"
    # A statement with the truth value the prompt assigns (true when it assigns none).
    truth = assigned_truth(prompt)
    claim = circle if truth != "false" else square
    statement = {"question": f"The circle is {claim}.", "kind": "tf", "correct": truth or "true"}
    form = {"kind": "color", "subject": {"category": "circle"}, "claim": claim}
    return json.dumps({**statement, "distractors": [], "form": form})


def assigned_truth(prompt: str) -> str | None:
    """The truth value a true/false prompt assigns its statement ("true"/"false"), if any."""
    match = re.search(r"The statement must be \*\*(true|false)\*\*", prompt)
    return None if match is None else match.group(1)


def scene_program(description: str, variant: int = 0) -> dict[str, object]:
    """The scripted examiner's scene for a description: the circle left, the square right, and
    the description's tag written at the top (so every description draws a different image);
    ``variant`` (the sampling epoch of a redraw) moves both objects down by a tenth each."""
    circle, square = description_colours(description)
    tag = _field(r"\(scene (\w+)\)", description)
    y = 0.5 + 0.1 * variant
    return {
        "background": {"kind": "plain", "color": "white"},
        "labels": [{"text": tag, "position": {"x": 0.5, "y": 0.12}}],
        "objects": [
            {"category": "circle", "color": circle, "position": {"x": 0.3, "y": y}, "size": 0.3},
            {"category": "square", "color": square, "position": {"x": 0.7, "y": y}, "size": 0.3},
        ],
    }


@dataclass
class ScriptedExaminer(ScriptedModel):
    """A ScriptedModel whose replies come from :func:`default_reply` unless an override for
    the prompt kind returns text. ``block_after``: calls after that many completed ones never
    return (a run stuck mid-way, for the test to cancel as a kill would)."""

    overrides: dict[str, Override] = field(default_factory=dict)
    block_after: int | None = None
    completed: int = 0
    blocked: int = 0
    kinds: list[str] = field(default_factory=list)
    """The kind of every completed call, in order."""

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        if self.block_after is not None and self.completed >= self.block_after:
            self.blocked += 1
            await asyncio.Event().wait()
        call = Call(prompt_kind(messages), messages, config)
        override = self.overrides.get(call.kind)
        text = override(call) if override is not None else None
        if text is None:
            text = default_reply(call)
        usage = Usage(input_tokens=50, output_tokens=20)
        self.steps.append(ModelOutput(text=text, usage=usage) if isinstance(text, str) else text)
        output = await super().generate(messages, config)
        self.completed += 1
        self.kinds.append(call.kind)
        return output
