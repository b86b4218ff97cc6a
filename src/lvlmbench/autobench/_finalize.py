"""The last stage: accepted units → position-balanced items, plus the generation report."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Any

from lvlmbench.autobench._backend import AspectPlan, QuestionDraft
from lvlmbench.autobench.balance import ChoiceDraft, balance_positions, letter_counts
from lvlmbench.ids import content_id
from lvlmbench.store import Store, get_artifact, put_benchmark, put_items
from lvlmbench.types import BenchmarkItem

if TYPE_CHECKING:
    from lvlmbench.autobench.pipeline import GenerateSettings

__all__ = ["finalize_benchmark", "generation_report"]


def _item(
    benchmark: str, unit: dict[str, Any], options: dict[str, str], answer: str
) -> BenchmarkItem:
    question = QuestionDraft.model_validate(unit["question"])
    meta = dict(unit["meta"])
    accepted = unit["history"][-1]
    meta.update(
        {
            "errors": unit["errors"],
            "alignment": unit["score"],
            "attempts": len(unit["history"]),
            "decision": accepted["decision"],
            "check_method": accepted["method"],
            **({"key_check": unit["key_check"]} if "key_check" in unit else {}),
            **unit["extra"],
        }
    )
    meta.pop("checked", None)  # internal to the self-check
    return BenchmarkItem(
        id=content_id("autobench", benchmark, meta["unit"]),
        benchmark=benchmark,
        question=question.text,
        kind=question.kind,
        images=[unit["image"]],
        options=options,
        answer=answer,
        caption=unit["description"],
        category=meta["capability"],
        meta=meta,
    )


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def generation_report(units: list[dict[str, Any]]) -> dict[str, Any]:
    """Self-check figures over all units: rejection and regeneration rates, drops, reasons."""
    renders = [h for u in units for h in u["history"] if "score" in h]
    rejected = sum(h["decision"] == "reject" for h in renders)
    accepted = [u for u in units if u["status"] == "accepted"]
    reasons = Counter(
        h.get("reason") or h["decision"]
        for u in units
        for h in u["history"]
        if h["decision"] not in ("accept", "accept_with_errors")
    )
    return {
        "units": len(units),
        "accepted": len(accepted),
        "dropped": len(units) - len(accepted),
        "renders": len(renders),
        "rejected_renders": rejected,
        "rejection_rate": _rate(rejected, len(renders)),
        "regeneration_rate": _rate(sum(len(u["history"]) > 1 for u in units), len(units)),
        "accepted_with_errors": sum(
            u["history"][-1]["decision"] == "accept_with_errors" for u in accepted
        ),
        "mean_alignment": _rate(sum(u["score"] for u in accepted), len(accepted)),
        "failure_reasons": dict(reasons.most_common(10)),
    }


def _diversity(units: list[dict[str, Any]]) -> dict[str, Any] | None:
    try:
        from lvlmbench.autobench.diversity import diversity_report
    except ImportError:  # pragma: no cover - the module ships with the package
        return None
    texts = [u["description"] for u in units if u["status"] == "accepted"]
    return diversity_report(texts).model_dump() if texts else None


def finalize_benchmark(
    store: Store,
    settings: GenerateSettings,
    plan: AspectPlan,
    unit_keys: list[str],
    examiner: str,
    wall_s: float,
) -> dict[str, Any]:
    """Balance answer positions over the accepted units, store the items and the benchmark."""
    name = settings.benchmark
    units = [u for k in unit_keys if (u := get_artifact(store, name, "units", k)) is not None]
    accepted = [u for u in units if u["status"] == "accepted"]
    choice = [u for u in accepted if u["question"]["kind"] == "mc"]
    drafts = [
        ChoiceDraft(u["question"]["correct"], list(u["question"]["distractors"])) for u in choice
    ]
    arranged = dict(
        zip((id(u) for u in choice), balance_positions(drafts, settings.seed), strict=True)
    )
    items = []
    for unit in accepted:
        if unit["question"]["kind"] == "mc":
            options, answer = arranged[id(unit)]
        else:
            options, answer = {}, unit["question"]["correct"]
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
    }
    put_benchmark(store, name, "autobench", report)
    return report
