"""Joining prediction rows to stored items by the file's own keys.

One function, :func:`match_predictions`, over the datasets package's shared
:class:`~lvlmbench.datasets.importers.lookup.ItemLookup`: index-keyed rows match the item
imported from the row with that key (its id is ``item_id(benchmark, key)``;
``meta["source_key"]`` and ``meta["index"]`` are checked too, and ``12.0`` matches ``12``);
VisIT-Bench rows match by (picture file name, whitespace-normalised instruction), and a pair
the dataset repeats is matched in file order (the k-th row with that pair answers the k-th
item with it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from lvlmbench.datasets.importers.lookup import ItemLookup
from lvlmbench.datasets.predictions._parse import Prediction
from lvlmbench.types import BenchmarkItem

__all__ = ["match_predictions"]


def match_predictions(
    benchmark: str, items: Iterable[BenchmarkItem], predictions: list[Prediction]
) -> tuple[list[tuple[Prediction, BenchmarkItem]], list[Prediction]]:
    """(prediction, item) pairs and the predictions that match no item, both in file order."""
    lookup = ItemLookup(benchmark, items)
    used: dict[tuple[str, str], int] = defaultdict(int)
    matched: list[tuple[Prediction, BenchmarkItem]] = []
    unmatched: list[Prediction] = []
    for prediction in predictions:
        item: BenchmarkItem | None = None
        if prediction.index is not None:
            item = lookup.by_index(prediction.index)
        elif prediction.image is not None and prediction.instruction is not None:
            candidates = lookup.by_image_and_instruction(prediction.image, prediction.instruction)
            # Rows naming one picture and instruction, however spelt, share one counter.
            pair = candidates[0].id if candidates else ""
            taken = used[(prediction.column, pair)]
            if taken < len(candidates):
                item = candidates[taken]
                used[(prediction.column, pair)] += 1
        if item is None:
            unmatched.append(prediction)
        else:
            matched.append((prediction, item))
    return matched, unmatched
