"""How an interval is written, in one place: the CLI tables, the report, the leaderboard files
and the web app print every interval with :func:`format_interval`, name what it was computed
over with :func:`interval_note`, and carry it in JSON with :func:`estimate_fields`, so none can
say it differently from another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lvlmbench.stats.estimate import CLUSTER_BOOTSTRAP, CLUSTERED_T, WILSON, Estimate
from lvlmbench.stats.item_mean import NO_ITEMS, ONE_CLUSTER, WILSON_FLOOR

__all__ = [
    "estimate_fields",
    "format_interval",
    "format_ranks",
    "interval_note",
    "interval_note_of_fields",
]

_METHOD_WORDS = {
    CLUSTERED_T: "t with clusters − 1 df",
    CLUSTER_BOOTSTRAP: "cluster bootstrap",
    WILSON: "Wilson",
    WILSON_FLOOR: "t, widened to Wilson's where narrower",
    ONE_CLUSTER: "the whole range where a cell holds one cluster",
}


def format_interval(
    low: float | None,
    high: float | None,
    *,
    scale: float = 1.0,
    digits: int = 0,
    signed: bool = False,
) -> str:
    """An interval as "low–high" (en dash), each end times ``scale`` with ``digits`` decimals
    (``signed``: a difference, each end with its sign and " … " between, as a dash between
    signs misreads: "-1.2 … +3.5"); "-" when an end is unknown."""
    if low is None or high is None:
        return "-"
    if signed:
        return f"{scale * low:+.{digits}f} … {scale * high:+.{digits}f}"
    return f"{scale * low:.{digits}f}–{scale * high:.{digits}f}"


def format_ranks(low: int, high: int) -> str:
    """A rank interval: "2" when the model holds one rank, "1–3" when it may hold several."""
    return str(low) if low == high else f"{low}–{high}"


def _method_text(method: str) -> str:
    return _METHOD_WORDS.get(method, method)


def interval_note(estimates: Iterable[Estimate]) -> str:
    """What a table's 95 % intervals are, for its footnote: "95 % CI clustered by fine aspect,
    6 clusters per cell (t with clusters − 1 df or Wilson)", "95 % CI over items (Wilson)",
    each cluster kind a table holds ("" for a table without intervals)."""
    return _note(
        (e.cluster, _method_text(e.method), e.n_clusters, e.confidence)
        for e in estimates
        if e.method != NO_ITEMS
    )


def interval_note_of_fields(rows: Iterable[Mapping[str, object]]) -> str:
    """:func:`interval_note` of rows that carry :func:`estimate_fields` (the report's and the
    JSON API's rows); rows without them are skipped."""
    return _note(
        (str(r["cluster"]), _method_text(str(r["estimator"])), clusters, float(confidence))
        for r in rows
        if r.get("estimator", NO_ITEMS) != NO_ITEMS
        and isinstance(clusters := r.get("clusters"), int)
        and isinstance(confidence := r.get("confidence"), float)
    )


def _note(found: Iterable[tuple[str, str, int, float]]) -> str:
    methods: dict[str, set[str]] = {}
    counts: dict[str, list[int]] = {}
    levels = {0.95}
    for cluster, method, n_clusters, confidence in found:
        levels = {confidence}  # one table, one level: the last one says it
        methods.setdefault(cluster, set()).add(method)
        counts.setdefault(cluster, []).append(n_clusters)
    parts = []
    for cluster, used in sorted(methods.items()):
        how = " or ".join(sorted(used))
        if cluster == "item":
            parts.append(f"over items ({how})")
        elif cluster.startswith("item (one "):  # a cell that holds a single cluster
            parts.append(f"over items, a cell within {cluster[6:-1]} ({how})")
        else:
            low, high = min(counts[cluster]), max(counts[cluster])
            span = str(low) if low == high else f"{low}–{high}"
            parts.append(f"clustered by {cluster}, {span} clusters per cell ({how})")
    if not parts:
        return ""
    return f"{100 * levels.pop():.0f}% CI " + "; ".join(parts)


def estimate_fields(estimate: Estimate, scale: float = 1.0) -> dict[str, float | int | str]:
    """An estimate's interval and what it was computed over, as ``--json``, ``summary.json``
    and the leaderboard files carry it beside the figure: ``ci_low``/``ci_high`` (times
    ``scale``), ``items``, ``clusters``, ``cluster`` (what a cluster is), ``estimator``
    (clustered-t, wilson, cluster-bootstrap; "none" over no items), ``confidence`` and
    ``adjustment`` (none: one interval, not adjusted for the table's other cells)."""
    return {
        "ci_low": scale * estimate.low,
        "ci_high": scale * estimate.high,
        "items": estimate.n_items,
        "clusters": estimate.n_clusters,
        "cluster": estimate.cluster,
        "estimator": estimate.method,
        "confidence": estimate.confidence,
        "adjustment": "none",
    }
