"""Items parsed once per process, looked up by their stored JSON.

A run reads a benchmark's items many times: once per examinee, once per accuracy table, once
per report section. Parsing was a sixth of the demo's main-process CPU (~27 µs an item of the
generated benchmarks, whose facts make ~5 KB of JSON each); a lookup by the stored text and a
shallow copy take ~5 µs. Keyed by the exact text, a changed item is parsed afresh: nothing
stale can come back. Each caller gets its own copy, so one that reassigns a field changes
nobody else's item (nested values are shared: items are read, never edited in place).
"""

from __future__ import annotations

from lvlmbench._memo import Recent
from lvlmbench.types import BenchmarkItem

__all__ = ["parse_item"]

# The most recently read items kept: the demo's five benchmarks hold 3,600. A parsed generated
# item takes ~25 KB, so this bounds the memo near 100 MB; a scan over more items than this
# simply parses them, as before.
_parsed: Recent[str, BenchmarkItem] = Recent(4096)


def parse_item(data: str) -> BenchmarkItem:
    """The item stored as ``data`` (JSON), parsed at most once while it stays recent."""
    return _parsed.get(data, lambda: BenchmarkItem.model_validate_json(data)).model_copy()
