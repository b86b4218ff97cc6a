"""Stage 1: hierarchical aspects — ``n`` general aspects, then ``m`` fine aspects under each.

Duplicates across aspects are the failure this stage exists to avoid. Two names are duplicates
when their normalised forms (lowercase, punctuation and stop-words removed, simple plurals
stripped) are equal or their token sets have Jaccard similarity ≥ 0.8. All names — general and
fine, across every general aspect — form one pool, so a fine aspect may not repeat its own
general aspect or another branch's fine aspect either.

A duplicate or a short count is re-asked (naming the duplicates), at most ``max_reasks`` times;
after that the unique aspects are kept and the shortfall is written to
:attr:`AspectTree.problems`. Names are never invented to fill a gap.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pydantic import BaseModel, Field, field_validator

from lvlmbench.autobench._results import writer_messages
from lvlmbench.autobench.diversity import content_tokens, jaccard, tokens
from lvlmbench.models import ModelClient
from lvlmbench.prompts import render_prompt
from lvlmbench.types import GenerationConfig, Message

__all__ = [
    "DUPLICATE_JACCARD",
    "AspectDraft",
    "AspectList",
    "AspectTree",
    "FineAspect",
    "GeneralAspect",
    "normalise_name",
    "write_aspects",
]

DUPLICATE_JACCARD = 0.8
"""Token-set Jaccard similarity from which two aspect names count as duplicates."""

_CONFIG = GenerationConfig(temperature=0.0, max_tokens=1200)


class AspectDraft(BaseModel):
    """One aspect as the examiner writes it."""

    name: str = Field(min_length=1, max_length=120)
    """Short name (a few words)."""
    description: str = Field(min_length=1, max_length=600)
    """One line saying what the aspect tests."""

    @field_validator("name", "description")
    @classmethod
    def _stripped(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be blank")
        return value


class AspectList(BaseModel):
    """The examiner's reply: a list of aspects."""

    aspects: list[AspectDraft] = Field(min_length=1)


class FineAspect(AspectDraft):
    """A fine-grained aspect: one specific criterion under a general aspect."""


class GeneralAspect(AspectDraft):
    """A general aspect of the capability and the fine aspects written under it."""

    fine: list[FineAspect] = Field(default_factory=list)
    """Fine aspects (may be empty when the examiner failed; see ``problems``)."""


class AspectTree(BaseModel):
    """Stage 1's result: the aspect hierarchy and everything that fell short."""

    capability: str
    """The capability the aspects test."""
    general: list[GeneralAspect]
    """General aspects, each with its fine aspects."""
    problems: list[str] = Field(default_factory=list)
    """Shortfalls, truncations and unparseable replies, in the order they happened."""
    calls: int = 0
    """Model calls made (re-asks included)."""

    def fine_aspects(self) -> list[tuple[GeneralAspect, FineAspect]]:
        """Every (general, fine) pair in order."""
        return [(g, f) for g in self.general for f in g.fine]


def _singular(token: str) -> str:
    """Strip a simple English plural ("objects" → "object", "properties" → "property")."""
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("sses", "shes", "ches", "xes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def normalise_name(name: str) -> tuple[str, ...]:
    """Tokens of an aspect name as compared: lowercase, no punctuation, no stop-words, singular.

    A name made only of stop-words keeps them, so it still compares as itself.
    """
    words = content_tokens(name) or tokens(name)
    return tuple(_singular(w) for w in words)


@dataclass
class _NamePool:
    """Every aspect name accepted so far, across the whole tree."""

    names: list[str] = field(default_factory=list)
    _keys: list[tuple[str, ...]] = field(default_factory=list)

    def clash(self, name: str) -> str | None:
        """The accepted name that ``name`` duplicates, if any."""
        key = normalise_name(name)
        for other, other_key in zip(self.names, self._keys, strict=True):
            if key == other_key or jaccard(set(key), set(other_key)) >= DUPLICATE_JACCARD:
                return other
        return None

    def add(self, name: str) -> None:
        self.names.append(name)
        self._keys.append(normalise_name(name))


@dataclass
class _Collected:
    kept: list[AspectDraft] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    calls: int = 0


def _screen(
    drafts: list[AspectDraft], need: int, pool: _NamePool
) -> tuple[list[AspectDraft], list[str], int]:
    """Accept up to ``need`` drafts that duplicate nothing (adding them to ``pool``).

    Returns the accepted drafts, a line per duplicate, and how many unique drafts were surplus.
    """
    accepted: list[AspectDraft] = []
    duplicates: list[str] = []
    surplus = 0
    for draft in drafts:
        other = pool.clash(draft.name)
        if other is not None:
            duplicates.append(f'"{draft.name}" duplicates the existing aspect "{other}"')
        elif len(accepted) < need:
            accepted.append(draft)
            pool.add(draft.name)
        else:
            surplus += 1
    return accepted, duplicates, surplus


async def _collect(
    examiner: ModelClient,
    messages: list[Message],
    want: int,
    pool: _NamePool,
    what: str,
    max_reasks: int,
) -> _Collected:
    """Ask for ``want`` aspects, re-asking for replacements of duplicates and missing ones."""
    out = _Collected()
    history = list(messages)
    duplicates: list[str] = []
    for round_ in range(max_reasks + 1):
        result = await examiner.generate_json(history, AspectList, _CONFIG, max_reasks)
        out.calls += result.attempts
        if result.value is None:
            out.problems.append(f"{what}: no usable reply ({result.status}: {result.reason})")
            break
        drafts, need = result.value.aspects, want - len(out.kept)
        accepted, duplicates, surplus = _screen(drafts, need, pool)
        out.kept.extend(accepted)
        if surplus:
            out.problems.append(
                f"{what}: the examiner gave {len(drafts)} where {need} were asked;"
                f" kept the first {need} unique ones and dropped {surplus}"
            )
        if len(out.kept) == want or round_ == max_reasks:
            break
        issues = [*duplicates, f"{len(out.kept)} unique aspects so far; {want} are needed"]
        reask = render_prompt(
            "autobench/aspects_reask.md",
            issues="\n".join(f"- {line}" for line in issues),
            missing=want - len(out.kept),
            existing=_bullets(pool.names),
        )
        history = [*messages, Message.assistant(result.output.text), Message.user(reask)]
    if len(out.kept) < want:
        still = f"; duplicates in the last reply: {'; '.join(duplicates)}" if duplicates else ""
        out.problems.append(f"{what}: {len(out.kept)} of {want} after re-asks{still}")
    return out


def _bullets(names: list[str]) -> str:
    return "\n".join(f"- {n}" for n in names) if names else "- (none yet)"


async def write_aspects(
    examiner: ModelClient, capability: str, n: int = 4, m: int = 6, *, max_reasks: int = 2
) -> AspectTree:
    """Write ``n`` general aspects of ``capability`` and ``m`` fine aspects under each.

    Fine aspects are written one general aspect at a time, in order, each call told the
    other general aspects and every fine aspect already written, so it can avoid them.
    Never raises for model failures: they end up in :attr:`AspectTree.problems`.
    """
    if n < 1 or m < 1:
        raise ValueError(f"n and m must be at least 1 (got n={n}, m={m})")
    pool = _NamePool()
    tree = AspectTree(capability=capability, general=[])
    first = writer_messages("autobench/aspects_general.md", capability=capability, n=n)
    general = await _collect(examiner, first, n, pool, "general aspects", max_reasks)
    tree.calls += general.calls
    tree.problems.extend(general.problems)
    tree.general = [GeneralAspect(name=g.name, description=g.description) for g in general.kept]
    for aspect in tree.general:
        others = [g for g in tree.general if g is not aspect]
        messages = writer_messages(
            "autobench/aspects_fine.md",
            capability=capability,
            general=aspect.name,
            general_description=aspect.description,
            m=m,
            others=_bullets([f"{g.name}: {g.description}" for g in others]),
            taken=_bullets([f.name for g in others for f in g.fine]),
        )
        what = f"fine aspects of {json.dumps(aspect.name)}"
        fine = await _collect(examiner, messages, m, pool, what, max_reasks)
        tree.calls += fine.calls
        tree.problems.extend(fine.problems)
        aspect.fine = [FineAspect(name=f.name, description=f.description) for f in fine.kept]
    return tree
