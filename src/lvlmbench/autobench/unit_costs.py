"""What a generation in rounds costs in money (``generate --budget-usd``): the examiner's tokens
and the images each unit used, at the run's prices, and the examinees' answers to its items.

A unit's record (artifact stage ``costs``, :mod:`.budgeted`) holds the requests it sent when it
was built and what their answers used: the examiner replies' input and output tokens and the
images rendered (one chat client, the examiner, and one image client build a unit). The money is
those at the run's prices (``price=IN,OUT`` on the examiner spec, ``price=USD_PER_IMAGE`` on the
images spec; the procedural examiner and renderer are free), the way ``evaluate --budget-usd``
costs a stored answer at its tokens: a re-run reads the records, so it counts what the units it
finds cost when they were built, pays nothing for them and sizes its rounds as the first run did.

The rounds are :class:`lvlmbench.budget.Spend`'s: a unit is its "item", costed as the dearest
generation cost seen plus each examinee's dearest answer (a probe unit first, then rounds of at
most as many units as were built before, as many as fit in what is left). The plan's requests
are spent before any unit, so they count against the cap but never as a unit's cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lvlmbench.budget import Spend
from lvlmbench.models import RequestMeter
from lvlmbench.store import GenerationSpend

__all__ = ["GENERATION", "GenerationMoney", "GenerationPrices", "UnitUsage"]

GENERATION = "generation"
"""The :class:`Spend` model that stands for a unit's examiner and text-to-image requests (never
an examinee: those are ``provider/name`` identities)."""


@dataclass(frozen=True)
class UnitUsage:
    """What the answers of a unit's (or the plan's) requests used."""

    input_tokens: int = 0
    """Of the examiner's replies."""
    output_tokens: int = 0
    images: int = 0
    """Rendered by the text-to-image model."""

    @classmethod
    def of(cls, meter: RequestMeter) -> UnitUsage:
        return cls(meter.input_tokens, meter.output_tokens, meter.images)

    def record(self) -> dict[str, int]:
        """The fields stored with the unit's requests."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "images": self.images,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> UnitUsage | None:
        """The usage a cost record holds; None for a record written before usage was kept
        (its money is unknown: it costs this run nothing and says nothing about the mean)."""
        if "input_tokens" not in record:
            return None
        return cls(int(record["input_tokens"]), int(record["output_tokens"]), int(record["images"]))


@dataclass(frozen=True)
class GenerationPrices:
    """What the generation's requests cost: the procedural examiner and renderer are free."""

    examiner: tuple[float, float] = (0.0, 0.0)
    """USD per million input and output tokens."""
    image: float = 0.0
    """USD per image rendered."""

    def examiner_usd(self, usage: UnitUsage) -> float:
        price_in, price_out = self.examiner
        return (usage.input_tokens * price_in + usage.output_tokens * price_out) / 1e6

    def images_usd(self, usage: UnitUsage) -> float:
        return usage.images * self.image

    def usd(self, usage: UnitUsage) -> float:
        return self.examiner_usd(usage) + self.images_usd(usage)


@dataclass
class GenerationMoney:
    """The money of one generation in rounds: what the plan, the units and (with ``--until``)
    the examinees' answers cost, in a :class:`Spend` against an optional cap."""

    prices: GenerationPrices
    spend: Spend
    """Models: :data:`GENERATION` and the examinees' identities (fed by the CLI's meter)."""
    examiner_usd: float = 0.0
    """Of the plan and the units counted."""
    images_usd: float = 0.0
    paid_usd: float = 0.0
    """What the examiner and text-to-image requests this run sent cost."""

    @classmethod
    def create(
        cls, prices: GenerationPrices, examinees: Sequence[str], cap_usd: float | None
    ) -> GenerationMoney:
        return cls(prices, Spend([GENERATION, *examinees], cap_usd))

    @property
    def examinees(self) -> list[str]:
        return [m for m in self.spend.models if m != GENERATION]

    def _count(self, usage: UnitUsage) -> float:
        self.examiner_usd += self.prices.examiner_usd(usage)
        self.images_usd += self.prices.images_usd(usage)
        return self.prices.usd(usage)

    def plan(self, usage: UnitUsage | None, paid: UnitUsage) -> None:
        """Count the plan's cost (spent before any unit: never a unit's cost)."""
        if usage is not None:
            self.spend.used_usd += self._count(usage)
        self.paid_usd += self.prices.usd(paid)

    def unit(self, usage: UnitUsage | None, paid: UnitUsage | None) -> None:
        """Count a unit built (``paid``: what it sent in this run) or found stored (None)."""
        if usage is not None:
            self.spend.observe({GENERATION: [self._count(usage)]})
        if paid is not None:
            self.paid_usd += self.prices.usd(paid)

    def live_usd(self, meters: Iterable[RequestMeter]) -> float:
        """What units in flight have used so far."""
        return sum(self.prices.usd(UnitUsage.of(m)) for m in meters)

    def exhausted(self, built: int) -> bool:
        """Whether the cap affords no further unit (``built`` units so far)."""
        return self.spend.cap_usd is not None and self.spend.next_round(1, built) == 0

    def _mean(self, model: str) -> float:
        return self.spend.totals.get(model, 0.0) / max(self.spend.counts.get(model, 0), 1)

    def full_estimate_usd(self, planned: int, built: int, item_share: float) -> float | None:
        """The full plan's cost, an estimate: what was counted, plus the units left at the mean
        unit's generation cost and their items at each examinee's mean answer (None while some
        cost is unseen)."""
        if not self.spend.known:
            return None
        answers = sum(self._mean(m) for m in self.examinees)
        per_unit = self._mean(GENERATION) + item_share * answers
        return self.spend.used_usd + max(planned - built, 0) * per_unit

    def summary(self, planned: int, built: int, item_share: float) -> GenerationSpend:
        """The money section of the generation report (estimates say so)."""
        spend = self.spend
        examinees = sum(spend.totals.get(m, 0.0) for m in self.examinees)
        return GenerationSpend(
            cap_usd=spend.cap_usd,
            used_usd=spend.used_usd,
            generation_usd=self.examiner_usd + self.images_usd,
            examiner_usd=self.examiner_usd,
            images_usd=self.images_usd,
            examinees_usd=examinees,
            unit_mean_usd=self._mean(GENERATION) if spend.counts.get(GENERATION) else None,
            full_estimate_usd=self.full_estimate_usd(planned, built, item_share),
        )
