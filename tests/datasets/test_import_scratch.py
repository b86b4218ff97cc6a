"""An import's per-row memory (DiskMap): the same answers in memory and once moved to disk."""

from __future__ import annotations

import pytest

from lvlmbench.datasets.importers import _scratch
from lvlmbench.datasets.importers._scratch import Scratch


@pytest.mark.parametrize("in_memory", [3, 1_000])  # spilled to disk early, and never
def test_disk_map_answers_like_a_dict(monkeypatch: pytest.MonkeyPatch, in_memory: int) -> None:
    monkeypatch.setattr(_scratch, "IN_MEMORY", in_memory)
    with Scratch() as scratch:
        keys = scratch.map("keys")
        # row numbers as values: "5" is a cached one-character string, the same object each
        # time, which must not hide a duplicate
        for row in range(1, 9):
            assert keys.setdefault(f"k{row}", str(row)) is None
        assert keys.setdefault("k5", "5") == "5"
        assert keys.setdefault("k8", "99") == "8"
        keys["extra"] = "x"
        assert (keys.get("extra"), keys.get("nope"), "k1" in keys, "nope" in keys) == (
            "x",
            None,
            True,
            False,
        )
        assert len(keys) == 9
        assert keys.first(4) == ["k1", "k2", "k3", "k4"]
        seen = scratch.map("seen")
        assert seen.setdefault("a") is None and seen.setdefault("a") == ""
        assert len(seen) == 1 and seen.first(5) == ["a"]
