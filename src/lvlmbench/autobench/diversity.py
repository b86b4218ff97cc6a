"""Diversity of image descriptions: the paper's semantic graph and the figures that measure it.

In round ``i`` the examiner names a topic word and a few keywords. They become nodes of a
:class:`SemanticGraph` (edges: topic–keyword, and keyword–keyword when they co-occur in a round).
After each round the graph excludes the ``f(i)`` highest-degree nodes, and the next prompt lists
them as words not to use.

Which nodes are excluded is read *per round* (the paper: "after each round, the ``f(i)``
highest-degree nodes are excluded"): the exclusion list is recomputed from the whole graph after
every round rather than grown. A hub word ("city") keeps the highest degree, so it stays
excluded for as long as it dominates; and the prompt lists ``f(i)`` words, not
``f(1) + … + f(i)``, which under accumulation outgrew the scene renderer's vocabulary (one in five
scene-mode descriptions was flagged). ``bans="accumulate"`` keeps the older reading (a banned
word stays banned for good) for comparison.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations, pairwise
from typing import Any, Literal

import networkx as nx
from pydantic import BaseModel

__all__ = [
    "STOP_WORDS",
    "BanPolicy",
    "DiversityFigures",
    "SemanticGraph",
    "content_tokens",
    "diversity_report",
    "exclusion_schedule",
    "jaccard",
    "linear_exclusions",
    "normalise_word",
    "tokens",
]

_STOP = (
    "a an the of and or in on at to for with by from as is are be its it their this that these "
    "those into onto over under vs versus between among each"
)
STOP_WORDS = frozenset(_STOP.split())
"""Function words ignored by the set-based comparisons (aspect names, Jaccard similarity)."""

_TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """Lowercase word tokens (letters and digits; punctuation separates words)."""
    return _TOKEN.findall(text.lower())


def content_tokens(text: str) -> list[str]:
    """:func:`tokens` without stop-words."""
    return [t for t in tokens(text) if t not in STOP_WORDS]


def normalise_word(word: str) -> str:
    """The graph's node name for a topic or keyword: lowercase tokens joined by one space."""
    return " ".join(tokens(word))


BanPolicy = Literal["per-round", "accumulate"]
"""How exclusions evolve: recomputed after every round, or added to the ones before."""


def linear_exclusions(i: int) -> int:
    """The paper's simple exclusion schedule ``f(i) = i``."""
    return i


class SemanticGraph:
    """Topic and keyword graph with degree-based exclusions.

    ``f`` maps the 1-based round number to how many more nodes to ban after that round.
    With ``enabled=False`` the graph still records every round (so its statistics can be
    reported) but bans nothing: the "without the graph" condition of the diversity experiment.
    ``bans`` chooses the reading of the exclusions (see the module's docstring).
    """

    def __init__(
        self,
        f: Callable[[int], int] = linear_exclusions,
        *,
        enabled: bool = True,
        bans: BanPolicy = "per-round",
    ) -> None:
        self.f = f
        self.enabled = enabled
        self.bans = bans
        self.graph: Any = nx.Graph()
        self.rounds = 0
        """Rounds recorded so far (the ``i`` of the last :meth:`add_round`)."""
        self._banned: list[str] = []

    @property
    def banned(self) -> list[str]:
        """Banned words in the order they were banned."""
        return list(self._banned)

    def is_banned(self, word: str) -> bool:
        """Whether ``word`` (normalised) is banned."""
        return normalise_word(word) in self._banned

    def add_round(self, topic: str, keywords: Sequence[str]) -> list[str]:
        """Record one round's topic and keywords, then exclude ``f(i)`` nodes (per round: the
        ``f(i)`` top nodes replace the list; accumulating: ``f(i)`` more are added).

        Returns the words newly banned by this round (empty when disabled).
        """
        self.rounds += 1
        words = _unique([normalise_word(topic), *(normalise_word(k) for k in keywords)])
        words = [w for w in words if w]
        if not words:
            return []
        head = words[0] if normalise_word(topic) else None
        for word in words:
            self._touch(word, is_topic=word == head)
        rest = words[1:] if head else words
        pairs = [(head, w) for w in rest] if head else []
        pairs += list(combinations(rest, 2))
        for a, b in pairs:
            if self.graph.has_edge(a, b):
                self.graph[a][b]["weight"] += 1
            else:
                self.graph.add_edge(a, b, weight=1)
        if not self.enabled:
            return []
        count = max(0, self.f(self.rounds))
        if self.bans == "per-round":
            before = set(self._banned)
            self._banned = self._top_nodes(count, exclude=())
            return [w for w in self._banned if w not in before]
        newly = self._top_nodes(count, exclude=self._banned)
        self._banned.extend(newly)
        return newly

    def _touch(self, word: str, *, is_topic: bool) -> None:
        if word not in self.graph:
            self.graph.add_node(word, uses=0, topic_uses=0)
        node = self.graph.nodes[word]
        node["uses"] += 1
        node["topic_uses"] += int(is_topic)

    def _top_nodes(self, count: int, exclude: Sequence[str]) -> list[str]:
        """The ``count`` highest-degree nodes not in ``exclude``.

        Ties are common (one round makes a clique, where every node has the same degree), so
        they break by weighted degree, then by how often the word was used, then topics first
        (the topic is the theme the ban is meant to move away from), then alphabetically so the
        result never depends on insertion order.
        """
        skip = set(exclude)
        candidates = [n for n in self.graph.nodes if n not in skip]

        def rank(node: str) -> tuple[int, int, int, int, str]:
            data = self.graph.nodes[node]
            return (
                -int(self.graph.degree(node)),
                -int(self.graph.degree(node, weight="weight")),
                -int(data["uses"]),
                -int(data["topic_uses"]),
                node,
            )

        return sorted(candidates, key=rank)[:count]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the store (the schedule ``f`` is code and is not stored)."""
        return {
            "enabled": self.enabled,
            "bans": self.bans,
            "rounds": self.rounds,
            "banned": list(self._banned),
            "nodes": [[n, dict(d)] for n, d in self.graph.nodes(data=True)],
            "edges": [[a, b, int(d["weight"])] for a, b, d in self.graph.edges(data=True)],
        }

    @classmethod
    def from_dict(
        cls, data: dict[str, Any], f: Callable[[int], int] = linear_exclusions
    ) -> SemanticGraph:
        """Rebuild a graph written by :meth:`to_dict` (for resuming a run)."""
        # Graphs stored before the policy was recorded accumulated their bans.
        bans: BanPolicy = "per-round" if data.get("bans") == "per-round" else "accumulate"
        graph = cls(f, enabled=bool(data["enabled"]), bans=bans)
        graph.rounds = int(data["rounds"])
        graph._banned = [str(w) for w in data["banned"]]
        for name, attrs in data["nodes"]:
            graph.graph.add_node(name, **attrs)
        for a, b, weight in data["edges"]:
            graph.graph.add_edge(a, b, weight=weight)
        return graph


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


class DiversityFigures(BaseModel):
    """How varied a set of descriptions is (report with and without the graph)."""

    count: int
    """Number of texts measured."""
    distinct_1: float
    """Unique unigrams / all unigrams over all texts (higher = more diverse)."""
    distinct_2: float
    """Unique bigrams / all bigrams over all texts (higher = more diverse)."""
    mean_jaccard: float | None
    """Mean pairwise Jaccard similarity of the texts' content-word sets (lower = more
    diverse); None with fewer than two texts."""
    topic_entropy: float | None
    """Shannon entropy (bits) of the topic distribution; None when no topics were given."""


def diversity_report(texts: Sequence[str], topics: Sequence[str] | None = None) -> DiversityFigures:
    """Distinct-1/2, mean pairwise Jaccard and (given topics) topic entropy of ``texts``.

    Distinct-n counts every token, stop-words included, as is usual for the measure; the
    Jaccard similarity compares content words only, since shared articles and prepositions say
    nothing about whether two scenes differ.
    """
    token_lists = [tokens(t) for t in texts]
    unigrams = [t for toks in token_lists for t in toks]
    bigrams = [pair for toks in token_lists for pair in pairwise(toks)]
    sets = [set(content_tokens(t)) for t in texts]
    pair_count = len(texts) * (len(texts) - 1) // 2
    # Summed pair by pair in the same order as ever (the figure stays bit for bit), without
    # listing the n²/2 pairs first: 720 texts make 258,840 of them per benchmark.
    total = sum(jaccard(a, b) for a, b in combinations(sets, 2))
    mean_jaccard = total / pair_count if pair_count else None
    return DiversityFigures(
        count=len(texts),
        distinct_1=_ratio(len(set(unigrams)), len(unigrams)),
        distinct_2=_ratio(len(set(bigrams)), len(bigrams)),
        mean_jaccard=mean_jaccard,
        topic_entropy=None if topics is None else _entropy([normalise_word(t) for t in topics]),
    )


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets count as identical (1.0)."""
    shared = len(a & b)
    union = len(a) + len(b) - shared  # no union set built: this runs n²/2 times per report
    return shared / union if union else 1.0


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _entropy(labels: Sequence[str]) -> float:
    counts = Counter(labels)
    total = sum(counts.values())
    # Written as a sum of positive terms so a single topic gives 0.0, not -0.0.
    return sum(c / total * math.log2(total / c) for c in counts.values()) if total else 0.0


_SCHEDULE = re.compile(r"(\d*)\s*\*?\s*i|(\d+)")


def exclusion_schedule(spec: str) -> Callable[[int], int]:
    """The exclusion schedule ``f`` named by ``spec``: ``i`` (the paper's f(i) = i), ``2i``
    (any whole multiple of i) or a whole number (the same count after every round).
    ValueError names the expected forms."""
    match = _SCHEDULE.fullmatch(spec.strip().lower())
    if match is None:
        raise ValueError(f"exclusion schedule {spec!r}: expected i, a multiple such as 2i, or N")
    factor, constant = match.groups()
    if constant is not None:
        count = int(constant)
        return lambda i: count
    scale = int(factor) if factor else 1
    return lambda i: scale * i
