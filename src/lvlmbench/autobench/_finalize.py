"""The last stage: accepted units → position-balanced items, plus the generation report."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from lvlmbench.autobench._backend import AspectPlan, KeyCheck
from lvlmbench.autobench._unit import Decision, UnitResult
from lvlmbench.autobench.balance import ChoiceDraft, balance_positions_after, letter_counts
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.ids import content_id
from lvlmbench.store import Store, get_artifact, iter_items, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

__all__ = ["finalize_benchmark", "generation_report", "item_id"]


def _sorted(key: KeyCheck) -> dict[str, Any]:
    # In the stored unit's (sorted) key order, so item rows stay byte for byte what they were.
    return dict(sorted(key.model_dump().items()))


def item_id(benchmark: str, unit_key: str) -> str:
    """The id of the item a unit becomes (the same whenever and however often it is stored)."""
    return content_id("autobench", benchmark, unit_key)


def _item_id(benchmark: str, unit: UnitResult) -> str:
    return item_id(benchmark, unit.meta["unit"])


def _item(benchmark: str, unit: UnitResult, options: dict[str, str], answer: str) -> BenchmarkItem:
    accepted = unit.accepted
    assert accepted is not None  # only accepted units become items
    meta = dict(unit.meta)
    last = unit.last
    meta.update(
        {
            "errors": accepted.errors,
            "alignment": accepted.score,
            "attempts": len(unit.history),
            "decision": last.decision.value,
            "check_method": last.method,
            **({"key_check": _sorted(accepted.key_check)} if accepted.key_check else {}),
            **accepted.extra,
        }
    )
    meta.pop("checked", None)  # internal to the self-check
    question = accepted.question
    return BenchmarkItem(
        id=_item_id(benchmark, unit),
        benchmark=benchmark,
        question=question.text,
        kind=question.kind,
        images=[accepted.image],
        options=options,
        answer=answer,
        caption=accepted.description,
        category=meta["capability"],
        meta=meta,
    )


def _rate(part: float, whole: int) -> float:
    return part / whole if whole else 0.0


def generation_report(units: list[UnitResult]) -> dict[str, Any]:
    """Self-check figures over all units: rejection and regeneration rates, drops, reasons."""
    renders = [h for u in units for h in u.history if h.score is not None]
    rejected = sum(h.decision is Decision.REJECT for h in renders)
    accepted = [u.accepted for u in units if u.accepted is not None]
    reasons = Counter(
        h.reason or h.decision.value for u in units for h in u.history if not h.decision.accepted
    )
    return {
        "units": len(units),
        "accepted": len(accepted),
        "dropped": len(units) - len(accepted),
        "renders": len(renders),
        "rejected_renders": rejected,
        "rejection_rate": _rate(rejected, len(renders)),
        "regeneration_rate": _rate(sum(len(u.history) > 1 for u in units), len(units)),
        "accepted_with_errors": sum(
            u.last.decision is Decision.ACCEPT_WITH_ERRORS for u in units if u.accepted
        ),
        "mean_alignment": _rate(sum(a.score for a in accepted), len(accepted)),
        "failure_reasons": dict(reasons.most_common(10)),
    }


def _diversity(units: list[UnitResult]) -> dict[str, Any] | None:
    try:
        from lvlmbench.autobench.diversity import diversity_report
    except ImportError:  # pragma: no cover - the module ships with the package
        return None
    texts = [u.accepted.description for u in units if u.accepted is not None]
    return diversity_report(texts).model_dump() if texts else None


def _arranged(
    store: Store, name: str, seed: int, choice: list[UnitResult]
) -> dict[int, tuple[dict[str, str], str]]:
    """Options and answer letter of each multiple-choice unit (keyed by ``id``). An item already
    stored keeps its letters (the store keeps the first row of an item anyway, and a benchmark
    built in rounds has examinee answers on it); the others are balanced against them."""
    stored = {item.id: item for item in iter_items(store, name)}
    kept: dict[int, tuple[dict[str, str], str]] = {}
    for unit in choice:
        item = stored.get(_item_id(name, unit))
        if item is not None and item.kind == "mc" and item.answer is not None:
            kept[id(unit)] = (dict(item.options), item.answer)
    new = [u for u in choice if id(u) not in kept]
    drafts = [
        ChoiceDraft(u.accepted.question.correct, list(u.accepted.question.distractors))
        for u in new
        if u.accepted is not None
    ]
    placed = letter_counts(answer for _, answer in kept.values())
    lettered = balance_positions_after(drafts, seed, placed)
    return kept | dict(zip((id(u) for u in new), lettered, strict=True))


def finalize_benchmark(
    store: Store,
    settings: GenerateSettings,
    plan: AspectPlan,
    unit_keys: list[str],
    examiner: str,
    wall_s: float,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Balance answer positions over the accepted units, store the items and the benchmark
    (``extra``: more sections for its report, e.g. a budgeted run's)."""
    name = settings.benchmark
    stored = [get_artifact(store, name, "units", k) for k in unit_keys]
    units = [UnitResult.from_json(u) for u in stored if u is not None]
    accepted = [u for u in units if u.accepted is not None]
    questions = {id(u): u.accepted.question for u in accepted if u.accepted is not None}
    choice = [u for u in accepted if questions[id(u)].kind == "mc"]
    arranged = _arranged(store, name, settings.seed, choice)
    items = []
    for unit in accepted:
        if questions[id(unit)].kind == "mc":
            options, answer = arranged[id(unit)]
        else:
            options, answer = {}, questions[id(unit)].correct
        items.append(_item(name, unit, options, answer))
    put_items(store, items)
    report = {
        "settings": {k: v for k, v in dataclasses.asdict(settings).items()},
        "examiner": examiner,
        "plan": plan.model_dump(mode="json"),
        "self_check": generation_report(units),
        "diversity": _diversity(units),
        "answer_letters": letter_counts([a for _, a in arranged.values()]),
        "items": len(items),
        "wall_s": wall_s,
        **(extra or {}),
    }
    put_benchmark(store, name, "autobench", report)
    return report
