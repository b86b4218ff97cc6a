"""What defines a generated AutoBench-V benchmark: its settings, levels and default name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from lvlmbench.autobench.diversity import exclusion_schedule
from lvlmbench.ids import check_benchmark_name

__all__ = ["DEFAULT_ZETA", "LEVELS", "GenerateSettings", "benchmark_name"]

LEVELS = ("easy", "medium", "hard")
DEFAULT_ZETA: Mapping[str, float] = {"easy": 1.0, "medium": 0.8, "hard": 0.8}
"""Self-check thresholds per level (the paper's): below ζ the image is regenerated. Easy scenes
are simple, so every check must pass; medium and hard scenes hold more elements, so one failure
in five is tolerated (and recorded as an error)."""


def benchmark_name(capability: str, seed: int) -> str:
    """Default benchmark name: the capability as a slug plus the seed."""
    slug = "-".join("".join(c if c.isalnum() else " " for c in capability.lower()).split())
    return f"{slug or 'capability'}-s{seed}"


@dataclass(frozen=True)
class GenerateSettings:
    """Everything that defines a generated benchmark (stored with it)."""

    capability: str
    name: str | None = None
    n: int = 4
    """General aspects (paper: 4)."""
    m: int = 6
    """Fine-grained aspects per general aspect (paper: 6)."""
    per_aspect: int = 10
    """Images per fine aspect and level, ω (paper: 10)."""
    levels: tuple[str, ...] = LEVELS
    seed: int = 0
    zeta: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_ZETA))
    max_attempts: int = 3
    """Renders per unit before it is dropped (the first one included)."""
    k_checks: int = 5
    """Self-check questions per image (alignment = correct / k)."""
    tf_share: float = 0.2
    """Share of true/false questions when a model examiner writes them."""
    diversity_graph: bool = True
    """Semantic-graph exclusion of repeated themes (model examiners' descriptions)."""
    exclusions: str = "i"
    """The graph's schedule f(i): nodes banned after round i (``i``, ``2i`` or a number)."""
    image_size: int = 512
    concurrency: int = 8
    """Units in flight at once."""
    guidelines: bool = True
    """Write a guideline per fine aspect; off for the paper's ablation (Table 4)."""

    @property
    def benchmark(self) -> str:
        """The benchmark's name in the store."""
        return self.name or benchmark_name(self.capability, self.seed)

    def validate(self) -> None:
        """Raise ValueError naming the bad setting."""
        if not self.capability.strip():
            raise ValueError("capability is empty: name the capability to test")
        check_benchmark_name(self.benchmark)
        if min(self.n, self.m, self.per_aspect, self.max_attempts) < 1:
            raise ValueError("n, m, per_aspect and max_attempts must all be at least 1")
        if min(self.concurrency, self.k_checks, self.image_size) < 1:
            # A concurrency of 0 would make every unit wait forever for a slot.
            raise ValueError(
                f"concurrency ({self.concurrency}), k_checks ({self.k_checks}) and image_size "
                f"({self.image_size}) must all be at least 1"
            )
        if not 0 <= self.tf_share <= 1:
            raise ValueError(f"tf_share {self.tf_share}: must be between 0 and 1")
        exclusion_schedule(self.exclusions)  # raises ValueError naming the expected forms
        unknown = [lv for lv in self.levels if lv not in LEVELS]
        if unknown or not self.levels:
            raise ValueError(f"levels {list(self.levels)}: choose from {', '.join(LEVELS)}")
        missing = [lv for lv in self.levels if lv not in self.zeta]
        if missing:
            raise ValueError(f"no threshold ζ for level(s) {missing}")
