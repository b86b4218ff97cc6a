"""One item as a transcript, like ``inspect view``: per response the messages as sent, the raw
reply, how the answer was read, and what the call cost; plus the neighbours for paging.

The messages are rebuilt with the runner's own builder (:func:`lvlmbench.runner.item_messages`),
and a model's ``--system-prompt`` (stored once by the digest its identity carries) is put first
as the client puts it, so the page shows exactly what the examinee was sent for that variant,
images as digests the page serves as thumbnails. The raw provider output is read from the
cache row the response names (responses stored before the key was recorded say "not
recorded").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lvlmbench.models import (
    GenerationSettings,
    ModelSpec,
    RegistryError,
    redact_text,
    resolve_model,
)
from lvlmbench.runner import VARIANTS, ItemUnavailable, item_messages
from lvlmbench.store import Store, benchmark_item_ids, cached_call, system_prompt
from lvlmbench.types import BenchmarkItem, ImagePart, Message, ModelOutput, Response, TextPart

__all__ = [
    "CallRecord",
    "SentMessage",
    "SentPart",
    "Transcript",
    "item_neighbours",
    "sent_messages",
    "transcripts",
]


@dataclass(frozen=True)
class SentPart:
    """One part of a sent message: text, or an image by its digest."""

    kind: str
    """``text`` or ``image``."""
    text: str = ""
    digest: str = ""


@dataclass(frozen=True)
class SentMessage:
    """One message as the examinee received it."""

    role: str
    parts: list[SentPart]


@dataclass(frozen=True)
class CallRecord:
    """The cached output of the call behind a response."""

    text: str
    finish_reason: str | None
    raw_json: str | None
    """The provider's response body, pretty-printed (secrets were masked before caching)."""
    created_at: float


@dataclass
class Transcript:
    """One response to an item with everything needed to read it."""

    response: Response
    outcome: str | None
    messages: list[SentMessage] = field(default_factory=list)
    messages_note: str = ""
    """Why no messages are shown (empty when they are)."""
    call: CallRecord | None = None
    call_note: str = ""
    """Why no raw output is shown (empty when it is)."""


def _as_sent(messages: list[Message]) -> list[SentMessage]:
    sent = []
    for message in messages:
        parts = []
        for part in message.content:
            if isinstance(part, TextPart):
                parts.append(SentPart("text", text=part.text))
            elif isinstance(part, ImagePart):
                parts.append(SentPart("image", digest=part.sha256()))
        sent.append(SentMessage(message.role, parts))
    return sent


def built_messages(store: Store, item: BenchmarkItem, variant: str) -> tuple[list[Message], str]:
    """The messages the runner builds for ``item`` under ``variant`` (before a model's own
    system prompt is put first), or an empty list and why they cannot be shown."""
    if variant not in VARIANTS:
        return [], f"variant {variant!r} is not built by the runner's message builder"
    try:
        return item_messages(store, variant)(item), ""
    except ItemUnavailable as exc:
        return [], f"never sent: {exc}"


def sent_messages(store: Store, item: BenchmarkItem, variant: str) -> tuple[list[SentMessage], str]:
    """The messages the runner sends for ``item`` under ``variant``, or an empty list and why
    they cannot be shown."""
    built, note = built_messages(store, item, variant)
    return _as_sent(built), note


def _call_record(store: Store, response: Response) -> tuple[CallRecord | None, str]:
    if _answers_in_process(response.model):
        return None, "the reply above is the whole output: this examinee answers in-process"
    key = response.cache_key
    if key is None:
        return None, "not recorded (answered before cache keys were stored, or imported)"
    row = cached_call(store, key)
    if row is None:
        return None, "not in the cache (failed calls are not cached)"
    output = ModelOutput.model_validate_json(row.output)
    raw = json.dumps(output.raw, indent=2, ensure_ascii=False) if output.raw else None
    # Masked again, like the client's cache reads: a row from an older store may predate it.
    shown = CallRecord(
        redact_text(output.text),
        output.finish_reason,
        None if raw is None else redact_text(raw),
        row.created_at,
    )
    return shown, ""


def _answers_in_process(model: str) -> bool:
    """Whether ``model`` names a free provider (``baseline/…``): it makes no model call, so
    nothing of it is cached and its reply is all there is (a stored name that is no spec, an
    imported player, is not one)."""
    try:
        return resolve_model(model).free
    except RegistryError:
        return False


def _system_digest(model: str) -> str | None:
    """The ``system=sha256:…`` a model identity carries when ``--system-prompt`` was set."""
    return ModelSpec.read(model).options.get("system")


def _with_system_prompt(
    store: Store, model: str, messages: list[Message], prompts: dict[str, str | None]
) -> tuple[list[Message], str | None]:
    """``messages`` as the client sent them to ``model``: its ``--system-prompt`` put first the
    way the client puts it (read from the store by the digest in the identity), and the digest
    when the store does not hold that prompt (a run from before prompts were kept)."""
    digest = _system_digest(model)
    if digest is None or not messages:  # nothing sent: the page says why instead
        return messages, None
    if digest not in prompts:
        prompts[digest] = system_prompt(store, digest)
    text = prompts[digest]
    if text is None:
        return messages, digest
    return GenerationSettings(system=text).messages(messages), None


def _missing_prompt_note(digest: str) -> SentMessage:
    note = (
        f"[system prompt {digest} (--system-prompt): its text is not in this store, which was "
        "written before prompts were kept; running the same command again records it]"
    )
    return SentMessage("system", [SentPart("text", text=note)])


def transcripts(
    store: Store, item: BenchmarkItem, answers: list[tuple[Response, str | None]]
) -> list[Transcript]:
    """A transcript per (response, outcome); messages are built once per variant."""
    by_variant: dict[str, tuple[list[Message], str]] = {}
    prompts: dict[str, str | None] = {}
    out = []
    for response, result in answers:
        if response.variant not in by_variant:
            by_variant[response.variant] = built_messages(store, item, response.variant)
        built, note = by_variant[response.variant]
        sent, missing = _with_system_prompt(store, response.model, built, prompts)
        messages = _as_sent(sent)
        if missing is not None:
            messages = [_missing_prompt_note(missing), *messages]
        call, call_note = _call_record(store, response)
        out.append(Transcript(response, result, messages, note, call, call_note))
    return out


def item_neighbours(
    store: Store, benchmark: str, item_id: str, within: list[str] | None = None
) -> dict[str, Any]:
    """The previous and next item ids (None at either end) and the item's position (1-based)
    of ``total``: among ``within`` (the browser's filtered ids) when it holds the item, else in
    benchmark order."""
    if within is not None and item_id in within:
        ids = within
    else:
        ids = benchmark_item_ids(store, benchmark)
    at = ids.index(item_id) if item_id in ids else -1
    return {
        "previous": ids[at - 1] if at > 0 else None,
        "next": ids[at + 1] if 0 <= at < len(ids) - 1 else None,
        "position": at + 1,
        "total": len(ids),
    }
