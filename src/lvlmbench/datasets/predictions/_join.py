"""Joining prediction rows to stored items by the file's own keys.

One function, :func:`match_predictions`, so the datasets package's shared item lookup can take
its place: index-keyed rows match the item imported from the row with that key (its id is
``item_id(benchmark, key)``; ``meta["source_key"]``/``meta["index"]`` are checked too, and
``12.0`` matches ``12``); VisIT-Bench rows match by (picture file name, whitespace-normalised
instruction), and a pair the dataset repeats is matched in file order (the k-th row with that
pair answers the k-th item with it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

from lvlmbench.datasets.importers import item_id
from lvlmbench.datasets.predictions._parse import Prediction
from lvlmbench.types import BenchmarkItem

__all__ = ["match_predictions"]

_IMAGE_META = ("image_sources", "image_urls", "image_url", "image", "file_name", "image_path")
_INDEX_META = ("source_key", "index")


def _file_name(url_or_path: str) -> str:
    text = url_or_path.strip()
    if "://" in text:
        text = unquote(urlsplit(text).path)
    return text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def _instruction(text: str) -> str:
    return " ".join(text.split())


def _number(key: str) -> str:
    text = key.strip()
    if text.endswith(".0") and text[:-2].lstrip("-").isdigit():
        return text[:-2]
    return text


def _image_names(item: BenchmarkItem) -> set[str]:
    names: set[str] = set()
    for field in _IMAGE_META:
        value = item.meta.get(field)
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, str) and one and one != "base64":
                names.add(_file_name(one))
    return names


class _Items:
    def __init__(self, benchmark: str, items: Iterable[BenchmarkItem]) -> None:
        self.benchmark = benchmark
        self.by_id: dict[str, BenchmarkItem] = {}
        self.by_index: dict[str, BenchmarkItem] = {}
        self.by_pair: dict[tuple[str, str], list[BenchmarkItem]] = defaultdict(list)
        for item in items:
            self.by_id[item.id] = item
            for field in _INDEX_META:
                value = item.meta.get(field)
                if value is not None:
                    self.by_index.setdefault(_number(str(value)), item)
            for name in _image_names(item):
                self.by_pair[(name, _instruction(item.question))].append(item)

    def by_key(self, key: str) -> BenchmarkItem | None:
        key = _number(key)
        found = self.by_index.get(key)
        return found if found is not None else self.by_id.get(item_id(self.benchmark, key))


def match_predictions(
    benchmark: str, items: Iterable[BenchmarkItem], predictions: list[Prediction]
) -> tuple[list[tuple[Prediction, BenchmarkItem]], list[Prediction]]:
    """(prediction, item) pairs and the predictions that match no item, both in file order."""
    lookup = _Items(benchmark, items)
    used: dict[tuple[str, tuple[str, str]], int] = defaultdict(int)
    matched: list[tuple[Prediction, BenchmarkItem]] = []
    unmatched: list[Prediction] = []
    for prediction in predictions:
        item: BenchmarkItem | None = None
        if prediction.index is not None:
            item = lookup.by_key(prediction.index)
        elif prediction.image is not None and prediction.instruction is not None:
            pair = (_file_name(prediction.image), _instruction(prediction.instruction))
            candidates = lookup.by_pair.get(pair, [])
            taken = used[(prediction.column, pair)]
            if taken < len(candidates):
                item = candidates[taken]
                used[(prediction.column, pair)] += 1
        if item is None:
            unmatched.append(prediction)
        else:
            matched.append((prediction, item))
    return matched, unmatched
