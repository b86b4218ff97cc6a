"""Which items share a source, read from what the store holds about each item.

Items drawn from one source are correlated (a model that misreads a picture misreads every
question on it), so they form one cluster:

- AutoBench-V: the fine aspect (capability | general aspect | fine aspect, from the unit's
  meta): its units' descriptions and pictures are generated together from one aspect prompt.
- VLMEvalKit CircularEval (MMBench and kin): a question and its rotated copies, whose
  ``index`` is ``base + k · 1,000,000``: the group is ``index mod 1,000,000``.
- MME (VLMEvalKit yes/no rows): the picture (``image_group``/``image_path``, else the image
  hashes); each picture carries two questions.
- VisIT-Bench instances and TouchStone questions are one item each, so the cluster is the item
  (its epochs are already averaged into one score).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lvlmbench.types import BenchmarkItem

__all__ = ["CIRCULAR_STRIDE", "ClusterKey", "cluster_key", "cluster_keys"]

CIRCULAR_STRIDE = 1_000_000
"""VLMEvalKit's offset between a CircularEval question's copies."""


@dataclass(frozen=True)
class ClusterKey:
    kind: str
    """What the cluster is, for the tables: "fine aspect", "circular group", "picture", "item"."""
    key: str


def _index(item: BenchmarkItem) -> int | None:
    value = item.meta.get("index", item.meta.get("source_key"))
    try:
        return int(str(value))
    except ValueError:
        return None


def cluster_key(item: BenchmarkItem) -> ClusterKey:
    """The cluster of one item, from its own record alone."""
    meta = item.meta
    if "fine_aspect" in meta and "unit" in meta:
        parts = (meta.get("capability"), meta.get("general_aspect"), meta.get("fine_aspect"))
        return ClusterKey("fine aspect", "|".join(str(p) for p in parts))
    index = _index(item)
    if index is not None and item.kind == "mc":
        return ClusterKey("circular group", str(index % CIRCULAR_STRIDE))
    if index is not None and item.kind == "tf":
        for field in ("image_group", "image_path"):
            if meta.get(field):
                return ClusterKey("picture", str(meta[field]))
        if item.images:
            return ClusterKey("picture", "+".join(item.images))
    return ClusterKey("item", item.id)


def cluster_keys(items: Sequence[BenchmarkItem]) -> tuple[str, list[str]]:
    """The cluster name of a set of items (its kinds joined, "item" when none is shared) and
    each item's cluster key (prefixed by its kind, so kinds never collide)."""
    keys = [cluster_key(item) for item in items]
    kinds = sorted({k.kind for k in keys})
    return " + ".join(kinds) or "item", [f"{k.kind}:{k.key}" for k in keys]
