"""Items parsed once per process, looked up by their stored JSON.

A run reads a benchmark's items many times: once per examinee, once per accuracy table, once
per report section. Parsing was a sixth of the demo's main-process CPU (~27 µs an item of the
generated benchmarks, whose facts make ~5 KB of JSON each); a lookup by the stored text and a
shallow copy take ~5 µs. Keyed by the exact text, a changed item is parsed afresh: nothing
stale can come back. Each caller gets its own copy, so one that reassigns a field changes
nobody else's item (nested values are shared: items are read, never edited in place).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from lvlmbench.types import BenchmarkItem

__all__ = ["parse_item"]

# The most recently read items kept: the demo's five benchmarks hold 3,600. A parsed generated
# item takes ~25 KB, so this bounds the memo near 100 MB; a scan over more items than this
# simply parses them, as before.
_LIMIT = 4096
_parsed: OrderedDict[str, BenchmarkItem] = OrderedDict()
_lock = threading.Lock()  # reports and runs read items from worker threads too


def parse_item(data: str) -> BenchmarkItem:
    """The item stored as ``data`` (JSON), parsed at most once while it stays recent."""
    with _lock:
        item = _parsed.get(data)
        if item is not None:
            _parsed.move_to_end(data)
    if item is None:
        item = BenchmarkItem.model_validate_json(data)
        with _lock:
            _parsed[data] = item
            if len(_parsed) > _LIMIT:
                _parsed.popitem(last=False)
    return item.model_copy()
