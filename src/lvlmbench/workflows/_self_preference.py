"""An examinee that also wrote the benchmark it is scored on: AutoBench-V's examiner writes the
descriptions, checks the images and writes the questions, so the same model answering them
is judged by its own hand (self-preference, as LLM judges prefer their own answers). The figure
is still computed; it is said, never silent: by ``evaluate`` (the stored examiner) and by
``generate --until ... --model`` (the examiner of this run, stored in the report's warnings)."""

from __future__ import annotations

from collections.abc import Sequence

from lvlmbench.models import ModelSpec, RegistryError, model_identity
from lvlmbench.store import GenerationReport, StoredBenchmark

__all__ = ["examiner_among_examinees", "self_preference"]


def self_preference(bench: StoredBenchmark, examinees: Sequence[str]) -> tuple[str, ...]:
    """A warning per examinee that is the model that wrote ``bench`` (the same provider/name,
    whatever its settings); none for a benchmark no model wrote."""
    report = bench.data
    if not isinstance(report, GenerationReport) or not report.examiner:
        return ()
    # Stored as "<examiner spec> (<mode> mode) + <images spec>" (the procedural one: "procedural").
    writer = _label(report.examiner.split(" + ")[0].split(" (")[0])
    if writer is None:
        return ()
    return tuple(
        f"{model} also wrote {bench.name} (its examiner, {writer}): its figure may favour its "
        "own descriptions and questions (self-preference); compare it with other models' "
        "with care"
        for model in examinees
        if _label(model) == writer
    )


def examiner_among_examinees(
    examiner: str, benchmark: str, examinees: Sequence[str]
) -> tuple[str, ...]:
    """A warning per examinee of a generation in rounds that is its examiner (the same
    provider/name, whatever its settings): it answers the questions it wrote, and the
    ``--until`` decision is taken on its answers."""
    writer = _label(examiner)
    if writer is None or examiner == "procedural":
        return ()
    return tuple(
        f"examinee {_named(model)} is also the examiner ({_named(examiner)}) writing "
        f"{benchmark}: it answers questions it wrote about images it checked, so its figure "
        "and the --until decision may favour it (self-preference); use another examiner or "
        "compare it with care"
        for model in examinees
        if _label(model) == writer
    )


def _named(spec: str) -> str:
    """A model as the store names it (its identity: no secret, no transport option), the
    warning being stored; ``provider/name`` for a spec that does not resolve."""
    try:
        return model_identity(spec)
    except (RegistryError, ValueError):
        return _label(spec) or "?"


def _label(spec: str) -> str | None:
    """``provider/name`` of a spec, or None for a name that is no spec (an imported player)."""
    try:
        return ModelSpec.read(spec).label
    except (RegistryError, ValueError):
        return None
