"""An LLM reads the answers the extraction rules left unparseable (``evaluate --extract-with``).

Only responses the rules (or another extractor) could not read are asked about, with the
question, the options and the reply, never the image: the extractor reports what the reply
chose, not what is right. Its reply is structured JSON, one of the option letters (or
true/false) or "none". A read answer is stored on the response with ``extracted_by`` set to
the extractor's spec and the rules' reason kept in ``rule_reason``, so accuracy tables count
LLM reads apart from rule reads; "none" leaves the response unparseable (also marked, so it
is not asked again). Calls go through the :class:`ModelClient` (cached), and a re-run asks
nothing twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel, Field

from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.store import Store, iter_benchmark_responses, iter_items, put_responses
from lvlmbench.types import BenchmarkItem, GenerationConfig, Message, Response, Status

__all__ = ["NO_ANSWER", "ExtractorSummary", "extract_unparseable", "extractor_choices"]

NO_ANSWER = "none"
_CONFIG = GenerationConfig(max_tokens=64)
_BATCH = 64
"""Responses asked about, then stored, at a time: an interrupted run keeps what it read."""


class _ExtractorReply(BaseModel):
    answer: str = Field(description='An option letter, "true"/"false", or "none".')


@dataclass
class ExtractorSummary:
    """What one extraction pass did."""

    extractor: str
    asked: int = 0
    """Unparseable responses sent to the extractor."""
    read: int = 0
    """Of those, answers it read (now ok, counted as LLM reads)."""
    no_answer: int = 0
    """Replies of "none", a choice that is no option, a refusal or no valid JSON: still
    unparseable (and not asked again)."""
    failed: int = 0
    """Calls that failed (errors): left as they were, asked again on the next run."""
    already: int = 0
    """Unparseable responses this extractor had read before (not asked again)."""


def extractor_choices(item: BenchmarkItem) -> list[str]:
    """What the extractor may answer for ``item``: its option letters (or true/false), none."""
    if item.kind == "tf":
        return ["true", "false", NO_ANSWER]
    return [*sorted(k.strip().upper() for k in item.options), NO_ANSWER]


def _messages(item: BenchmarkItem, reply: str) -> list[Message]:
    choices = extractor_choices(item)
    if item.kind == "tf":
        options = "\n".join(choices[:2])
    else:
        options = "\n".join(f"{k.strip().upper()}. {v}" for k, v in sorted(item.options.items()))
    prompt = render_prompt(
        "eval/extract_answer.md",
        question=item.question,
        options=options,
        reply=reply,
        choices=", ".join(f'"{c}"' for c in choices),
    )
    return [Message.user(prompt)]


def _pending(
    store: Store,
    benchmark: str,
    models: Iterable[str] | None,
    variant: str,
    summary: ExtractorSummary,
) -> Iterator[tuple[BenchmarkItem, Response]]:
    items = {i.id: i for i in iter_items(store, benchmark) if i.kind in ("mc", "tf")}
    wanted = set(models) if models is not None else None
    where = {"variant": variant, "status": Status.UNPARSEABLE.value}
    for response in iter_benchmark_responses(store, benchmark, **where):
        item = items.get(response.item_id)
        if item is None or (wanted is not None and response.model not in wanted):
            continue
        if not response.text.strip():
            continue  # nothing to read: the rules' "empty answer" stands
        if response.extracted_by == summary.extractor:
            summary.already += 1
            continue
        yield item, response


def _updated(
    response: Response,
    item: BenchmarkItem,
    answer: str | None,
    extractor: str,
    problem: str | None = None,
) -> Response:
    """The response as the extractor read it (``problem``: why its reply held no answer);
    the rules' reason kept in ``rule_reason``."""
    rule_reason = response.rule_reason if response.extracted_by else response.reason
    normal = (answer or "").strip()
    normal = normal.lower() if item.kind == "tf" else normal.upper()
    allowed = extractor_choices(item)[:-1]
    if normal in allowed:
        status, extracted, reason = Status.OK, normal, None
    else:
        if problem is not None:
            shown = problem
        elif normal.lower() in ("", NO_ANSWER):
            shown = "read no answer"
        else:
            shown = f"answered {answer!r}, which is no choice"
        status, extracted, reason = Status.UNPARSEABLE, None, f"extractor {extractor} {shown}"
    return response.model_copy(
        update={
            "status": status,
            "extracted": extracted,
            "reason": reason,
            "extracted_by": extractor,
            "rule_reason": rule_reason,
        }
    )


async def _read_one(
    client: ModelClient, item: BenchmarkItem, response: Response, summary: ExtractorSummary
) -> Response | None:
    result = await client.generate_json(_messages(item, response.text), _ExtractorReply, _CONFIG)
    if result.status is Status.ERROR:
        summary.failed += 1
        return None
    answer = result.value.answer if result.value is not None else None
    problem = None if result.value is not None else f"gave no usable reply ({result.reason})"
    updated = _updated(response, item, answer, client.spec, problem)
    if updated.status is Status.OK:
        summary.read += 1
    else:
        summary.no_answer += 1
    return updated


async def extract_unparseable(
    store: Store,
    benchmark: str,
    client: ModelClient,
    *,
    models: Iterable[str] | None = None,
    variant: str = "default",
) -> ExtractorSummary:
    """Ask ``client`` about every unparseable response of ``models`` (all when None) on
    ``benchmark``'s choice items and store what it reads (see the module docstring)."""
    summary = ExtractorSummary(client.spec)
    pending = list(_pending(store, benchmark, models, variant, summary))
    for start in range(0, len(pending), _BATCH):
        batch = pending[start : start + _BATCH]
        summary.asked += len(batch)
        results = await asyncio.gather(
            *(_read_one(client, item, response, summary) for item, response in batch)
        )
        put_responses(store, [r for r in results if r is not None])
    return summary
