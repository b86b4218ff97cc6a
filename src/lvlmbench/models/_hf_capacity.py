"""How many rows a transformers replica decodes at once, and how that number changes: the probe
that sizes ``batch_size=auto`` from the device's memory (:mod:`lvlmbench.models._hf_memory`), the
halving after an out-of-memory error, and the group and refill sizes cut from it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from lvlmbench.models._hf_memory import (
    PROBE_ROWS,
    DeviceMemory,
    rows_for_decoding,
    rows_for_generate,
)
from lvlmbench.models._hf_rows import Decoding, Row

__all__ = ["Capacity", "group_size"]


def group_size(capacity: int, continuous: bool) -> int:
    """Rows prepared (and prefilled) together. A whole batch when rows cannot leave early;
    otherwise an eighth of it, so that a refill waits for few free rows, but at least 16 rows
    (or the whole batch) so that a prefill stays one large forward rather than many small ones."""
    if not continuous:
        return capacity
    return max(min(capacity, 16), math.ceil(capacity / 8))


@dataclass
class Capacity:
    """How many rows a replica decodes at once, and what sized it."""

    rows: int
    limit: int
    """The most ``auto`` may choose (``max_batch_size``), or the fixed batch size."""
    auto: bool
    probing: bool = False
    halvings: int = 0
    """Out-of-memory errors answered by halving."""

    def group(self, continuous: bool) -> int:
        """Rows prepared together at the present batch size."""
        return group_size(self.rows, continuous)

    def refill_rows(self) -> int:
        """Free rows a running batch waits for before it takes new ones: a quarter of it (at
        least a group), so that refills are few and large rather than one small prefill, and
        one copy of the whole cache to merge it, every few steps."""
        return min(self.rows, max(group_size(self.rows, True), self.rows // 4))

    def start_probe(self) -> None:
        """``auto``: the first group is a small probe whose memory sizes the batch."""
        self.rows, self.probing = min(PROBE_ROWS, self.limit), True

    def size_from_prefill(
        self, memory: DeviceMemory, before: int, decoding: Decoding, rows: list[Row]
    ) -> None:
        """After the first prefill: each row's cache at its full length, and the prefill's
        passing memory, against what the device has free."""
        cache = decoding.cache_bytes()
        fits = rows_for_decoding(
            cache_bytes=cache,
            cache_positions=len(decoding) * decoding.length,
            full_positions=decoding.length + max(row.max_tokens for row in rows),
            transient_bytes=memory.peak() - before - cache,
            rows=len(rows),
            group_rows=group_size(self.limit, True),
            free_bytes=memory.free(),
        )
        self._set_auto(fits)

    def size_from_generate(self, memory: DeviceMemory, before: int, group_rows: int) -> None:
        """After the first ``generate`` of a whole group: its peak memory per row."""
        self._set_auto(rows_for_generate(memory.peak() - before, group_rows, memory.free()))

    def halve(self, in_flight: int) -> bool:
        """After an out-of-memory error with ``in_flight`` rows unanswered: half as many rows
        from now on (and no probe); False when a single row did not fit alone, which no
        smaller batch mends."""
        self.probing = False
        if self.rows <= 1 and in_flight <= 1:
            return False
        self.rows = max(1, min(self.rows, in_flight) // 2)
        self.halvings += 1
        return True

    def _set_auto(self, fits: int) -> None:
        self.rows = max(1, min(self.limit, fits))
        self.probing = False
