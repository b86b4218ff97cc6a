"""What one AutoBench-V unit leaves in the store: its attempts, their decisions, the result.

The store keeps these as JSON (stage ``units`` of the benchmark's run); the pipeline and the
finishing stage read and write them only through these types, so a field name or a decision
spelt differently on the two sides is a type error rather than a silently empty column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from lvlmbench.autobench._drafts import CheckRecord, KeyCheck, QuestionDraft

__all__ = ["AcceptedUnit", "AttemptRecord", "Decision", "UnitResult"]


class Decision(StrEnum):
    """How one attempt at a unit ended (the value is what the store and item meta hold)."""

    NO_DRAFT = "no draft"
    NO_IMAGE = "no image"
    REJECT = "reject"
    NO_QUESTION = "no question"
    KEY_MISMATCH = "key mismatch"
    ACCEPT = "accept"
    ACCEPT_WITH_ERRORS = "accept_with_errors"

    @property
    def accepted(self) -> bool:
        """Whether the attempt produced the unit's item."""
        return self in (Decision.ACCEPT, Decision.ACCEPT_WITH_ERRORS)

    @property
    def final(self) -> bool:
        """Whether the unit ends with this attempt whatever attempts are left: a key the
        program still contradicts after its re-asks is not mended by redrawing a good image."""
        return self.accepted or self is Decision.KEY_MISMATCH


@dataclass(frozen=True)
class AttemptRecord:
    """One attempt in a unit's history: how far it got (the self-check's figures once an image
    was checked, the key check once a question was written) and its decision."""

    attempt: int
    decision: Decision
    reason: str | None = None
    image: str | None = None
    """The rendered image's sha256 (set from the self-check on)."""
    score: float | None = None
    errors: tuple[str, ...] | None = None
    method: str | None = None
    key_check: str | None = None
    """The key check's verdict (set once a question was written and checked)."""
    key_reasks: int | None = None
    """How often the question was asked again after a key mismatch (set with the verdict)."""

    def to_json(self) -> dict[str, Any]:
        """The stored form: fields an attempt never reached are absent, not null."""
        out: dict[str, Any] = {"attempt": self.attempt, "decision": self.decision.value}
        optional = {
            "reason": self.reason,
            "image": self.image,
            "score": self.score,
            "errors": None if self.errors is None else list(self.errors),
            "method": self.method,
            "key_check": self.key_check,
            # 0 left out: units stored before re-asks existed read back the same.
            "key_reasks": self.key_reasks or None,
        }
        out.update({k: v for k, v in optional.items() if v is not None})
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AttemptRecord:
        """Read a stored attempt (absent fields are None)."""
        errors = data.get("errors")
        return cls(
            attempt=data["attempt"],
            decision=Decision(data["decision"]),
            reason=data.get("reason"),
            image=data.get("image"),
            score=data.get("score"),
            errors=None if errors is None else tuple(errors),
            method=data.get("method"),
            key_check=data.get("key_check"),
            key_reasks=data.get("key_reasks"),
        )


@dataclass(frozen=True)
class AcceptedUnit:
    """What an accepted unit keeps for its item."""

    image: str
    description: str
    question: QuestionDraft
    errors: list[str]
    score: float
    checks: list[CheckRecord]
    key_check: KeyCheck | None
    """None only for units stored before keys were checked."""
    extra: dict[str, Any]


@dataclass(frozen=True)
class UnitResult:
    """A finished unit: every attempt, and the accepted result when one was accepted."""

    history: tuple[AttemptRecord, ...]
    accepted: AcceptedUnit | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    """Where the unit sits in the plan (capability, aspects, level, unit key...)."""

    @property
    def status(self) -> Literal["accepted", "dropped"]:
        """Accepted, or dropped after its last attempt."""
        return "accepted" if self.accepted is not None else "dropped"

    @property
    def last(self) -> AttemptRecord:
        """The final attempt (the accepted one for an accepted unit)."""
        return self.history[-1]

    def to_json(self) -> dict[str, Any]:
        """The stored form (the ``units`` artifact)."""
        out: dict[str, Any] = {
            "status": self.status,
            "history": [h.to_json() for h in self.history],
            "meta": self.meta,
        }
        if self.accepted is not None:
            a = self.accepted
            out.update(
                {
                    "image": a.image,
                    "description": a.description,
                    "question": a.question.model_dump(),
                    "errors": a.errors,
                    "score": a.score,
                    "checks": [c.model_dump() for c in a.checks],
                    "extra": a.extra,
                }
            )
            if a.key_check is not None:
                out["key_check"] = a.key_check.model_dump()
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UnitResult:
        """Read a stored unit."""
        history = tuple(AttemptRecord.from_json(h) for h in data["history"])
        accepted = None
        if data["status"] == "accepted":
            key = data.get("key_check")
            accepted = AcceptedUnit(
                image=data["image"],
                description=data["description"],
                question=QuestionDraft.model_validate(data["question"]),
                errors=list(data["errors"]),
                score=data["score"],
                checks=[CheckRecord.model_validate(c) for c in data.get("checks", [])],
                key_check=None if key is None else KeyCheck.model_validate(key),
                extra=dict(data.get("extra", {})),
            )
        return cls(history, accepted, dict(data.get("meta", {})))
