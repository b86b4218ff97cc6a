"""The benchmark record: a benchmark's definition as stored, its ``data`` typed per kind.

Who writes a benchmark decides what its ``data`` holds: AutoBench-V's generation report
(kind ``autobench``), the position-bias experiment's re-keyed copy (``autobench-rekeyed``), the
open-ended demo's settings (``open``), an importer's sources (the format's name as the kind).
Every model tolerates rows written before a field existed (fields default) and keeps keys it
does not name (``extra="allow"``), so every store written so far opens, and a row read and
written again is unchanged.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

__all__ = [
    "AUTOBENCH_KIND",
    "OPEN_KIND",
    "REKEYED_KIND",
    "BenchmarkData",
    "GenerationBudget",
    "GenerationPlan",
    "GenerationReport",
    "GenerationSpend",
    "ImportedData",
    "OpenEndedData",
    "OpenEndedSettings",
    "PromptTruncation",
    "RekeyedCopy",
    "StoredBenchmark",
]

AUTOBENCH_KIND = "autobench"
"""Kind of a benchmark AutoBench-V generated."""
REKEYED_KIND = "autobench-rekeyed"
"""Kind of the position-bias experiment's re-keyed copies."""
OPEN_KIND = "open"
"""Kind of the open-ended demo's benchmark."""

JsonObject = dict[str, JsonValue]


class _Data(BaseModel):
    """What every kind's ``data`` shares: frozen, and keys of other versions kept as they are."""

    model_config = ConfigDict(extra="allow", frozen=True)

    def as_json(self) -> JsonObject:
        """The JSON stored: the fields given (or read) and the keys kept, nothing defaulted."""
        dumped: JsonObject = self.model_dump(mode="json", exclude_unset=True)
        return dumped


class GenerationPlan(_Data):
    """The aspect plan as the report keeps it (autobench's ``AspectPlan`` dumped, its fields in
    the same order, so the report's JSON reads as it was written)."""

    capability: str | None = None
    aspects: list[JsonObject] = Field(default_factory=list)
    """The planned aspects (capability, general, fine, guideline, ...)."""
    problems: list[str] = Field(default_factory=list)
    note: str | None = None
    """Why the capability's plan is thinner than asked (shown in the report), if it is."""


class GenerationSpend(_Data):
    """The money section of a budgeted generation's report, in USD (estimates say so)."""

    cap_usd: float | None = None
    used_usd: float = 0.0
    generation_usd: float = 0.0
    examiner_usd: float = 0.0
    images_usd: float = 0.0
    examinees_usd: float = 0.0
    unit_mean_usd: float | None = None
    """A unit's mean cost; None before any unit was costed."""
    full_estimate_usd: float | None = None
    """The full plan's cost, an estimate."""


class GenerationBudget(_Data):
    """The budget section of a budgeted generation's report (full-plan figures are estimates)."""

    units_built: int = 0
    units_planned: int = 0
    rounds: int = 0
    budget: int | None = None
    """The request budget, if one was given."""
    stopped_by_budget: bool = False
    calls: int = 0
    generation_calls: int = 0
    examinee_calls: int = 0
    calls_per_unit: float | None = None
    calls_full_estimate: int | None = None
    calls_saved_estimate: int | None = None
    strata: list[str] = Field(default_factory=list)
    strata_share_gap: float = 0.0
    money: GenerationSpend | None = None


class PromptTruncation(_Data):
    """Descriptions longer than the text-to-image model's text encoder reads (CLIP: 77
    tokens): those items' images were drawn from a cut prompt."""

    encoder: str = ""
    """The tokenizer that reads the most of a prompt, e.g. ``tokenizer (CLIPTokenizer)``."""
    limit: int = 0
    """Its limit in tokens."""
    truncated: int = 0
    """Items whose description is longer."""
    items: int = 0
    """Items measured."""
    longest: int = 0
    """The longest description, in tokens."""
    units: list[str] = Field(default_factory=list)
    """The first few truncated units' keys (to look at)."""


class GenerationReport(_Data):
    """``autobench``: the generation report ``lvlmbench generate`` stores with the benchmark."""

    settings: JsonObject = Field(default_factory=dict)
    """The generation settings (seeds included), as ``GenerateSettings`` dumps them."""
    examiner: str | None = None
    plan: GenerationPlan | None = None
    self_check: JsonObject | None = None
    key_check: JsonObject | None = None
    diversity: JsonObject | None = None
    answer_letters: dict[str, int] | None = None
    answer_letters_by_level: dict[str, dict[str, int]] | None = None
    truth_by_level: dict[str, dict[str, int]] | None = None
    items: int | None = None
    wall_s: float | None = None
    budget: GenerationBudget | None = None
    """A budgeted run's figures (money, rounds), when it was one."""
    prompt_truncation: PromptTruncation | None = None
    """The descriptions measured by the text-to-image model's tokenizer (None: not measured)."""
    warnings: list[str] = Field(default_factory=list)
    """What the benchmark should be read with (a cut prompt, an examiner also an examinee)."""

    @property
    def guidelines(self) -> bool:
        """Whether the examiner wrote with the guidelines (on unless turned off)."""
        return self.settings.get("guidelines") is not False


class RekeyedCopy(_Data):
    """``autobench-rekeyed``: which benchmark this is a copy of, every key moved to ``target``."""

    source: str = ""
    target: str = ""
    """A letter (every key there) or ``even`` (spread again)."""
    seed: int = 0


class OpenEndedSettings(_Data):
    """What the open-ended demo's benchmark was built from (a different one is rebuilt)."""

    seed: int = 0
    per_aspect: int = 1
    capabilities: list[str] = Field(default_factory=list)
    image: int = 0
    """The images' side in pixels."""
    limit: int | None = None


class OpenEndedData(_Data):
    """``open``: the open-ended demo's provenance and settings."""

    source: str | None = None
    settings: OpenEndedSettings | None = None
    items: int | None = None


class ImportedData(_Data):
    """Any other kind: an imported benchmark (the kind is its format) or one made by hand."""

    format: str | None = None
    sources: list[str] = Field(default_factory=list)
    """The file names imported into it, sorted."""
    items: int | None = None


BenchmarkData = GenerationReport | RekeyedCopy | OpenEndedData | ImportedData

_DATA_BY_KIND: dict[str, type[_Data]] = {
    AUTOBENCH_KIND: GenerationReport,
    REKEYED_KIND: RekeyedCopy,
    OPEN_KIND: OpenEndedData,
}


def _data_type(kind: str) -> type[_Data]:
    return _DATA_BY_KIND.get(kind, ImportedData)


class StoredBenchmark(BaseModel):
    """One row of the benchmarks table; ``data``'s type follows ``kind``."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: str
    data: BenchmarkData = Field(default_factory=ImportedData)
    created_at: float = 0.0

    @model_validator(mode="before")
    @classmethod
    def _typed_by_kind(cls, values: Any) -> Any:
        """The kind, not the shape, says which model ``data`` is (every field may be absent, and
        so may ``data``: the kind's record with nothing set)."""
        if isinstance(values, dict) and isinstance(values.get("data", {}), dict):
            kind = str(values.get("kind", ""))
            return {**values, "data": _data_type(kind).model_validate(values.get("data", {}))}
        return values

    @model_validator(mode="after")
    def _kind_matches(self) -> Self:
        wanted = _data_type(self.kind)
        if type(self.data) is not wanted:
            raise ValueError(
                f"benchmark {self.name!r} of kind {self.kind!r} needs {wanted.__name__} data, "
                f"not {type(self.data).__name__}"
            )
        return self
