"""The last stage: accepted units → position-balanced items, plus the generation report."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from lvlmbench.autobench._backend import AspectPlan, KeyCheck, QuestionDraft
from lvlmbench.autobench._prompt_check import MeasurePrompt, prompt_truncation, truncation_warning
from lvlmbench.autobench._unit import AttemptRecord, Decision, UnitResult
from lvlmbench.autobench.balance import LETTERS, ChoiceDraft, Slot, letter_counts, lettered, spread
from lvlmbench.autobench.settings import GenerateSettings
from lvlmbench.ids import canonical_json, content_id
from lvlmbench.store import (
    AUTOBENCH_KIND,
    GenerationBudget,
    GenerationReport,
    Store,
    get_artifact,
    iter_items,
    put_benchmark,
    put_items,
)
from lvlmbench.types import BenchmarkItem

__all__ = [
    "finalize_benchmark",
    "generation_report",
    "item_id",
    "key_check_report",
    "key_stratum",
]


def _sorted(key: KeyCheck) -> dict[str, Any]:
    # In the stored unit's (sorted) key order, so item rows stay byte for byte what they were
    # (re-asks left out when there were none, as before they existed).
    return dict(sorted(key.model_dump(exclude_defaults=True).items()))


def _form(question: QuestionDraft) -> dict[str, Any]:
    assert question.form is not None
    return question.form.model_dump(mode="json", exclude_none=True)


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
            # The question's form, which the key check evaluated (with the scene program in
            # ``accepted.extra``: every verdict can be re-checked later).
            **({"question_form": _form(accepted.question)} if accepted.question.form else {}),
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


def _render_rejected(h: AttemptRecord) -> bool:
    """A render the self-check rejected (below ζ). Units stored before key mismatches were
    told apart recorded those as "reject" too: their verdict says which they were."""
    return h.decision is Decision.REJECT and h.key_check != "mismatch"


def generation_report(units: list[UnitResult]) -> dict[str, Any]:
    """Self-check figures over all units: rejection and regeneration rates, drops, reasons."""
    renders = [h for u in units for h in u.history if h.score is not None]
    rejected = sum(_render_rejected(h) for h in renders)
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


def key_check_report(units: list[UnitResult]) -> dict[str, int]:
    """The key check's verdicts over every question that reached it (an attempt's last one):
    verified, mismatched (its re-asks used up: the unit was dropped) and not checkable; the
    re-asks, and how many of them ended in a key the program confirms."""
    checked = [h for u in units for h in u.history if h.key_check is not None]
    verdicts = Counter(h.key_check for h in checked)
    return {
        "questions": len(checked),
        "verified": verdicts["verified"],
        "mismatched": verdicts["mismatch"],
        "not_checkable": verdicts["not checkable"],
        "reasks": sum(h.key_reasks or 0 for h in checked),
        "fixed_by_reask": sum(bool(h.key_reasks) and h.key_check == "verified" for h in checked),
        "units_dropped": sum(u.accepted is None and u.last.key_check == "mismatch" for u in units),
    }


def _diversity(units: list[UnitResult]) -> dict[str, Any] | None:
    try:
        from lvlmbench.autobench.diversity import diversity_report
    except ImportError:  # pragma: no cover - the module ships with the package
        return None
    texts = [u.accepted.description for u in units if u.accepted is not None]
    return diversity_report(texts).model_dump() if texts else None


def key_stratum(meta: dict[str, Any]) -> tuple[str, str]:
    """(level, stratum) of a unit or item: its difficulty, and its fine aspect (with the
    general aspect and capability it belongs to, so equal names elsewhere stay apart)."""
    stratum = "|".join(str(meta.get(k)) for k in ("capability", "general_aspect", "fine_aspect"))
    return str(meta.get("difficulty")), stratum


def _arranged(
    store: Store, settings: GenerateSettings, choice: list[UnitResult]
) -> dict[int, tuple[dict[str, str], str]]:
    """Options and answer letter of each multiple-choice unit (keyed by ``id``), spread evenly
    within every level × fine aspect (:func:`~lvlmbench.autobench.balance.spread`). An item
    already stored keeps its letters (the store keeps the first row of an item anyway, and a
    benchmark built in rounds has examinee answers on it); the others are spread around them."""
    name = settings.benchmark
    stored = {item.id: item for item in iter_items(store, name)}
    kept: dict[str, tuple[dict[str, str], str]] = {}
    slots = []
    for unit in choice:
        key = unit.meta["unit"]
        item = stored.get(_item_id(name, unit))
        if item is not None and item.kind == "mc" and item.answer is not None:
            kept[key] = (dict(item.options), item.answer)
        level, stratum = key_stratum(unit.meta)
        slots.append(Slot(key, level, stratum, kept[key][1] if key in kept else None))
    seed = (settings.capability, settings.seed)
    letters = spread(slots, LETTERS, ("letters", *seed))
    out = {}
    for unit in choice:
        key = unit.meta["unit"]
        if key in kept:
            out[id(unit)] = kept[key]
            continue
        question = unit.accepted.question if unit.accepted is not None else None
        assert question is not None  # only accepted units are arranged
        draft = ChoiceDraft(question.correct, list(question.distractors))
        out[id(unit)] = lettered(draft, letters[key], ("options", *seed, key))
    return out


def _by_level(units: list[UnitResult], answers: dict[int, str]) -> dict[str, list[str]]:
    """The keys (letters, or true/false) of each level."""
    levels: dict[str, list[str]] = {}
    for unit in units:
        if id(unit) in answers:
            levels.setdefault(key_stratum(unit.meta)[0], []).append(answers[id(unit)])
    return dict(sorted(levels.items()))


def _truth_counts(units: list[UnitResult]) -> dict[str, dict[str, int]]:
    """How many true/false statements of each level are true and how many false."""
    truths = {
        id(u): u.accepted.question.correct
        for u in units
        if u.accepted is not None and u.accepted.question.kind == "tf"
    }
    return {
        level: {value: found.count(value) for value in ("true", "false")}
        for level, found in _by_level(units, truths).items()
    }


def _warned(
    accepted: list[UnitResult],
    examiner: str,
    warnings: Sequence[str],
    measure: MeasurePrompt | None,
) -> dict[str, Any]:
    """The report's ``prompt_truncation`` (descriptions measured by the text-to-image model's
    tokenizer) and ``warnings``, each left out when there is none, so reports stay as they were."""
    described = [(u.meta["unit"], u.accepted.description) for u in accepted if u.accepted]
    truncation = prompt_truncation(described, measure)
    # The examiner is stored as "<examiner> + <images spec>".
    cut = truncation_warning(truncation, examiner.split(" + ")[-1])
    out: dict[str, Any] = {}
    if truncation is not None:
        out["prompt_truncation"] = truncation.as_json()
    if warnings or cut:
        out["warnings"] = [*warnings, *([cut] if cut else [])]
    return out


def finalize_benchmark(
    store: Store,
    settings: GenerateSettings,
    plan: AspectPlan,
    unit_keys: list[str],
    examiner: str,
    wall_s: float,
    budget: GenerationBudget | None = None,
    *,
    warnings: Sequence[str] = (),
    measure: MeasurePrompt | None = None,
) -> GenerationReport:
    """Balance answer positions over the accepted units, store the items and the benchmark
    (``budget``: a budgeted run's section of its report; ``warnings``: the run's, stored with
    it; ``measure``: the text-to-image model's prompt measure, which finds descriptions its
    text encoder cut); returns the report stored."""
    name = settings.benchmark
    stored = [get_artifact(store, name, "units", k) for k in unit_keys]
    units = [UnitResult.from_json(u) for u in stored if u is not None]
    accepted = [u for u in units if u.accepted is not None]
    questions = {id(u): u.accepted.question for u in accepted if u.accepted is not None}
    choice = [u for u in accepted if questions[id(u)].kind == "mc"]
    arranged = _arranged(store, settings, choice)
    items = []
    for unit in accepted:
        if questions[id(unit)].kind == "mc":
            options, answer = arranged[id(unit)]
        else:
            options, answer = {}, questions[id(unit)].correct
        items.append(_item(name, unit, options, answer))
    put_items(store, items)
    report: dict[str, Any] = {
        "settings": {k: v for k, v in dataclasses.asdict(settings).items()},
        "examiner": examiner,
        "plan": plan.model_dump(mode="json"),
        "self_check": generation_report(units),
        "key_check": key_check_report(units),
        "diversity": _diversity(units),
        "answer_letters": letter_counts([a for _, a in arranged.values()]),
        "answer_letters_by_level": {
            level: letter_counts(found)
            for level, found in _by_level(choice, {k: a for k, (_, a) in arranged.items()}).items()
        },
        "truth_by_level": _truth_counts(accepted),
        "items": len(items),
        "wall_s": wall_s,
    }
    if budget is not None:
        report["budget"] = budget.as_json()
    report |= _warned(accepted, examiner, warnings, measure)
    # Read from its JSON, as the store will keep it (the settings' tuples become lists).
    typed = GenerationReport.model_validate_json(canonical_json(report))
    put_benchmark(store, name, AUTOBENCH_KIND, typed)
    # The same report with its keys in the order written (``generate --json`` prints them so).
    return GenerationReport.model_validate_json(json.dumps(report))
