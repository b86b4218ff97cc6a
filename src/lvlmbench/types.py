"""Records shared by every part of lvlmbench.

Everything that is stored or sent to a model is a pydantic model here, so one definition serves
validation, the store's JSON columns and the CLI's ``--json`` output.
"""

from __future__ import annotations

import hashlib
import io
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

__all__ = [
    "BOTH_ORDERS",
    "TASK_NAME",
    "BenchmarkItem",
    "Content",
    "GenerationConfig",
    "ImagePart",
    "Judgment",
    "Message",
    "ModelOutput",
    "Response",
    "Role",
    "Status",
    "TextPart",
    "Usage",
]

Role = Literal["system", "user", "assistant"]


class Status(StrEnum):
    """Outcome of a model call, response or judgment. Only ``ok`` counts in metrics."""

    OK = "ok"
    REFUSED = "refused"
    UNPARSEABLE = "unparseable"
    TRUNCATED = "truncated"
    """The reply was cut by the token limit and no answer could be read from what came back
    (a truncated reply whose answer was read stays ok, with ``Response.truncated`` set)."""
    ERROR = "error"


class TextPart(BaseModel):
    """A piece of text inside a message."""

    model_config = ConfigDict(frozen=True)
    type: Literal["text"] = "text"
    text: str
    """The text itself."""


class ImagePart(BaseModel):
    """An image inside a message: raw encoded bytes or a file path, never both required.

    Providers call :meth:`read_bytes` and encode as their API wants (a base64 data URL for
    OpenAI-compatible servers). The cache key uses :meth:`sha256`, so the same picture sent from
    two different paths is one cache entry.
    """

    model_config = ConfigDict(frozen=True)
    type: Literal["image"] = "image"
    path: str | None = None
    """File the image is read from, if it came from disk."""
    data: bytes | None = Field(default=None, repr=False, exclude=True)
    """Encoded image bytes (PNG/JPEG/...), if it came from memory."""
    _digest: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _needs_a_source(self) -> ImagePart:
        if self.path is None and self.data is None:
            raise ValueError("an image part needs a path or data")
        return self

    @classmethod
    def from_path(cls, path: str | Path, sha256: str | None = None) -> ImagePart:
        """An image part that reads ``path`` lazily. Pass ``sha256`` when the file's hash is
        already known (the store's content-addressed images): the cache key then needs no read."""
        part = cls(path=str(path))
        part._digest = sha256
        return part

    @classmethod
    def from_bytes(cls, data: bytes) -> ImagePart:
        """An image part over already encoded bytes."""
        return cls(data=data)

    @classmethod
    def from_pil(cls, image: Any, fmt: str = "PNG") -> ImagePart:
        """An image part from a PIL image, encoded losslessly as PNG by default."""
        buffer = io.BytesIO()
        image.save(buffer, format=fmt)
        return cls(data=buffer.getvalue())

    def read_bytes(self) -> bytes:
        """The encoded bytes; raises ``OSError`` naming the path when it cannot be read."""
        if self.data is not None:
            return self.data
        assert self.path is not None
        return Path(self.path).read_bytes()

    def sha256(self) -> str:
        """Content hash of the encoded bytes (computed once)."""
        if self._digest is None:
            self._digest = hashlib.sha256(self.read_bytes()).hexdigest()
        return self._digest

    def media_type(self) -> str:
        """MIME type guessed from the magic bytes (PNG, JPEG, GIF, WEBP)."""
        head = self.read_bytes()[:12]
        if head.startswith(b"\x89PNG"):
            return "image/png"
        if head.startswith(b"\xff\xd8"):
            return "image/jpeg"
        if head.startswith(b"GIF8"):
            return "image/gif"
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return "image/webp"
        return "application/octet-stream"


Content = Annotated[TextPart | ImagePart, Field(discriminator="type")]


class Message(BaseModel):
    """One chat turn: a role and an ordered list of text and image parts."""

    model_config = ConfigDict(frozen=True)
    role: Role
    """Who speaks: system, user or assistant."""
    content: list[Content]
    """Parts in the order the model should see them."""

    @classmethod
    def user(cls, *parts: str | ImagePart) -> Message:
        """A user message from strings and image parts."""
        return cls(role="user", content=[_as_part(p) for p in parts])

    @classmethod
    def system(cls, text: str) -> Message:
        """A system message."""
        return cls(role="system", content=[TextPart(text=text)])

    @classmethod
    def assistant(cls, text: str) -> Message:
        """An assistant message (for few-shot turns and re-asks)."""
        return cls(role="assistant", content=[TextPart(text=text)])

    def text(self) -> str:
        """The text parts joined by newlines (images left out)."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))

    def images(self) -> list[ImagePart]:
        """The image parts in order."""
        return [p for p in self.content if isinstance(p, ImagePart)]


def _as_part(part: str | ImagePart) -> TextPart | ImagePart:
    return TextPart(text=part) if isinstance(part, str) else part


class GenerationConfig(BaseModel):
    """Every generation parameter that can change a model's output (all part of the cache key)."""

    model_config = ConfigDict(frozen=True)
    temperature: float = 0.0
    """Sampling temperature; 0 means greedy."""
    max_tokens: int = 512
    """Upper bound on generated tokens."""
    top_p: float | None = None
    """Nucleus sampling mass, if the provider supports it."""
    seed: int | None = None
    """Provider-side sampling seed, if supported."""
    stop: tuple[str, ...] = ()
    """Stop sequences."""
    json_schema: dict[str, Any] | None = None
    """Ask for JSON that validates against this schema (structured output)."""
    epoch: int = 0
    """Which repetition of a generation this is (``evaluate --epochs``); any epoch but 0 is its
    own cache entry, at temperature 0 too (providers are not deterministic even there), so
    re-runs reproduce the same samples."""
    params: dict[str, Any] | None = None
    """Provider-specific body fields passed through unvalidated (``--param key=value``):
    merged into an OpenAI-compatible body, Anthropic's body, Google's ``generationConfig``."""


class Usage(BaseModel):
    """Token counts reported by the provider (0 when unknown)."""

    input_tokens: int = 0
    """Prompt tokens."""
    output_tokens: int = 0
    """Generated tokens."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


class ModelOutput(BaseModel):
    """What one model call produced, success or failure."""

    text: str = ""
    """Generated text (empty on failure)."""
    usage: Usage = Field(default_factory=Usage)
    """Token usage of this call."""
    latency_s: float = 0.0
    """Wall time of the successful attempt, seconds."""
    finish_reason: str | None = None
    """Provider's finish reason (stop, length, ...)."""
    status: Status = Status.OK
    """ok, refused, unparseable or error."""
    reason: str | None = None
    """Why the status is not ok."""
    raw: dict[str, Any] | None = None
    """The provider's response body, for the record (never contains request headers)."""
    cached: bool = False
    """True when this came from the cache and no request was made."""
    attempts: int = 1
    """How many requests were made (retries included); 0 for a cache hit."""

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.status is Status.OK


TASK_NAME = "task_name"
"""The meta key an importer stores an item's sub-task under (read it with
:attr:`BenchmarkItem.task_name`)."""


class BenchmarkItem(BaseModel):
    """One test item: images, a prompt and what a right answer is."""

    id: str
    """Content id, stable across runs (hash of the defining fields)."""
    benchmark: str
    """Name of the benchmark this item belongs to."""
    question: str
    """Question or instruction shown to the examinee."""
    kind: Literal["mc", "tf", "open"] = "open"
    """mc: options A-D and a letter key; tf: key "true"/"false"; open: judged against
    ``reference``."""
    images: list[str] = Field(default_factory=list)
    """sha256 hashes of the item's images in the store's image directory."""
    options: dict[str, str] = Field(default_factory=dict)
    """Multiple-choice options by letter; empty for open-ended items."""
    answer: str | None = None
    """Key: the correct letter (mc), "true"/"false" (tf), or None (open)."""
    reference: str | None = None
    """Reference answer for open-ended items."""
    caption: str | None = None
    """Description of the image (instruction-conditioned caption or AutoBench-V description)."""
    category: str | None = None
    """Capability, ability or instruction family."""
    meta: dict[str, Any] = Field(default_factory=dict)
    """Anything else: aspect, difficulty, sub-task, errors, source row."""

    @property
    def task_name(self) -> str | None:
        """The item's sub-task (TouchStone's ``task_name`` column), None when it has none."""
        value = self.meta.get(TASK_NAME)
        return str(value) if value else None


class Response(BaseModel):
    """An examinee's answer to one item."""

    item_id: str
    """Which item."""
    model: str
    """Examinee spec, e.g. ``openai/gpt-4o``."""
    text: str
    """Raw answer text."""
    extracted: str | None = None
    """Answer extracted for scoring (a letter, true/false), if applicable."""
    status: Status = Status.OK
    """ok unless the call failed or the answer could not be extracted."""
    reason: str | None = None
    """Why the status is not ok."""
    variant: str = "default"
    """Evaluation condition (default, no-image, keys-at-A, ...)."""
    usage: Usage = Field(default_factory=Usage)
    """Tokens spent."""
    latency_s: float = 0.0
    """Seconds the call took."""
    extracted_by: str | None = None
    """Who read ``extracted``/``status`` from the text: None for the extraction rules, else the
    spec of the LLM extractor (``evaluate --extract-with``) that read an answer the rules
    left unparseable, or found none in it (status stays unparseable then)."""
    rule_reason: str | None = None
    """Why the rules could not read the answer, kept when an LLM extractor read it."""
    cache_key: str | None = None
    """Key of the model call in the store's cache, where its raw output lies (None: an answer
    that made no call, or one stored before the key was recorded)."""
    cached: bool | None = None
    """Whether the answer was replayed from the cache instead of requested (None: unknown)."""
    cost_usd: float | None = None
    """What the call cost at the client's price per million tokens (None: no price known)."""
    truncated: bool = False
    """The reply was cut by the token limit (finish reason length / max_tokens / MAX_TOKENS);
    status says whether an answer could still be read from it."""
    epoch: int = 0
    """Which of ``evaluate --epochs K`` samples this is (0 for a single run)."""


BOTH_ORDERS = "both"
"""A judgment's ``order`` when its verdict is a judge's own combination of both presentation
orders (a tie when they disagree), stored as one row: there are no per-order rows to combine."""


class Judgment(BaseModel):
    """A judge's verdict on one or two responses."""

    item_id: str
    """Which item."""
    judge: str
    """Judge spec (model or metric)."""
    protocol: str
    """pairwise, score, hallucination, metric:<name>, human."""
    model_a: str
    """First (or only) model judged."""
    model_b: str | None = None
    """Second model for pairwise/score protocols."""
    verdict: str | None = None
    """Pairwise: a, b or tie."""
    score_a: float | None = None
    """Score of model_a, when the protocol scores."""
    score_b: float | None = None
    """Score of model_b, when the protocol scores."""
    order: str = "ab"
    """Presentation order: ab or ba; :data:`BOTH_ORDERS` for one verdict already combined over
    the two orders (FastChat's GPT-4 pair judgments, as its files give them)."""
    status: Status = Status.OK
    """ok, unparseable, refused or error; non-ok judgments are never scored."""
    reason: str | None = None
    """Why the status is not ok."""
    rationale: str | None = None
    """The judge's raw text."""
    sequence: int | None = None
    """Where this verdict falls in the order the battles were fought: its row in an imported
    vote or battle file, numbered after every earlier import's (None: no order recorded, such
    as a judge run's own rows). Online Elo in the order fought replays them by it."""
    repeat: int = 0
    """A person's n-th further vote on the same pair of the same item (0: their first): a
    vote file can hold one annotator's repeat votes, which stay that annotator's, each
    stored."""
    epoch: int = 0
    """Which epoch's answers this judges (``judge --epochs K``: sample k of each examinee,
    judged as its own unit; 0 for a single run, whose rows and ids are what they always were)."""
