"""``batch_size=auto``: how many rows a replica decodes at once, from what its device has free.

The first group on the device is the probe: the memory it took (its KV cache, and for a
``generate`` call everything else the call held at its peak) is measured per row and the batch
is sized to what fits in ``MEMORY_SHARE`` of the memory free after the weights. The estimate
need not be exact: an out-of-memory error later halves the batch and fails no row.
"""

from __future__ import annotations

from typing import Protocol

import torch

__all__ = [
    "MEMORY_SHARE",
    "PROBE_ROWS",
    "CudaMemory",
    "DeviceMemory",
    "rows_for_decoding",
    "rows_for_generate",
]

PROBE_ROWS = 8
"""Rows of the first group on a device with ``batch_size=auto``: the probe that sizes the batch."""
MEMORY_SHARE = 0.85
"""Share of the device memory free after the weights that ``auto`` plans to use."""


class DeviceMemory(Protocol):
    """What sizing a batch reads of a device's memory (bytes)."""

    def mark(self) -> int:
        """Start measuring a peak; the bytes allocated now."""
        ...

    def peak(self) -> int:
        """The most bytes allocated at once since :meth:`mark`."""
        ...

    def free(self) -> int:
        """Bytes this process could still allocate."""
        ...


class CudaMemory:
    """A CUDA device's memory, as torch's caching allocator sees it."""

    def __init__(self, device: str) -> None:
        self.device = device

    def mark(self) -> int:
        torch.cuda.reset_peak_memory_stats(self.device)
        return int(torch.cuda.memory_allocated(self.device))

    def peak(self) -> int:
        return int(torch.cuda.max_memory_allocated(self.device))

    def free(self) -> int:
        # Free on the card plus what the caching allocator holds unused (it would hand it out).
        free, _total = torch.cuda.mem_get_info(self.device)
        unused = torch.cuda.memory_reserved(self.device) - torch.cuda.memory_allocated(self.device)
        return int(free + unused)


def rows_for_generate(peak_bytes: int, rows: int, free_bytes: int) -> int:
    """Rows one ``generate`` call may take, from a call of ``rows`` rows that held
    ``peak_bytes`` beyond what was allocated before it, with ``free_bytes`` free after it."""
    per_row = max(1.0, peak_bytes / max(1, rows))
    return max(1, int(MEMORY_SHARE * free_bytes // per_row))


def rows_for_decoding(
    *,
    cache_bytes: int,
    cache_positions: int,
    full_positions: int,
    transient_bytes: int,
    rows: int,
    group_rows: int,
    free_bytes: int,
) -> int:
    """Rows a running batch may hold, from a first prefill of ``rows`` rows whose KV cache
    takes ``cache_bytes`` for ``cache_positions`` positions (rows × length) and whose forward
    passed ``transient_bytes`` beyond its cache: each row's cache at ``full_positions`` (its
    prompt and every new token), plus one later prefill of ``group_rows`` rows in flight.
    ``free_bytes`` is what was free beside the cache."""
    per_position = cache_bytes / max(1, cache_positions)
    full_row = max(1.0, per_position * full_positions)
    transient = max(0.0, transient_bytes / max(1, rows))
    budget = MEMORY_SHARE * (free_bytes + cache_bytes) - group_rows * transient
    return max(1, int(budget // full_row))
