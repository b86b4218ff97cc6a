"""Finding stored items from the columns other files join on.

Prediction files, vote files and submissions name an item the way the dataset did: by its row
key (``id``/``index``/``question_id``), by VLMEvalKit's ``index``, or, for VisIT-Bench, by the
picture and the instruction (the dataset has no id column, and an (image, instruction) pair can
repeat, so that lookup returns every match). Imported items keep these join columns in their
meta (``source_key``, ``index``, ``image_sources``, ``image_urls``, ``file_name``), and the
item id is derived from the row key, so ``by_key`` also works for items stored before
``source_key`` was recorded.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from lvlmbench.datasets.importers import item_id
from lvlmbench.datasets.importers._images import image_name
from lvlmbench.store import Store, iter_items
from lvlmbench.types import BenchmarkItem

__all__ = ["ItemLookup", "image_name", "item_lookup", "normalise_instruction"]

_IMAGE_META = ("image_sources", "image_urls", "missing_images", "image_aliases", "file_name")


def normalise_instruction(text: str) -> str:
    """Whitespace-normalised instruction: runs of spaces/newlines become one space."""
    return " ".join(text.split())


def _names(item: BenchmarkItem) -> set[str]:
    names: set[str] = set()
    for field in _IMAGE_META:
        value = item.meta.get(field)
        values: Iterable[object] = value if isinstance(value, list) else [value]
        for one in values:
            if isinstance(one, str) and one and one != "base64":
                names.add(image_name(one))
    return names


class ItemLookup:
    """Items of one benchmark indexed by their join columns (built by :func:`item_lookup`)."""

    def __init__(self, benchmark: str, items: Iterable[BenchmarkItem]) -> None:
        self.benchmark = benchmark
        self.items: list[BenchmarkItem] = list(items)
        self._by_id = {item.id: item for item in self.items}
        self._by_index: dict[str, BenchmarkItem] = {}
        self._by_pair: dict[tuple[str, str], list[BenchmarkItem]] = defaultdict(list)
        for item in self.items:
            for field in ("index", "source_key"):
                value = item.meta.get(field)
                if value is not None and str(value) not in self._by_index:
                    self._by_index[str(value)] = item
            instruction = normalise_instruction(item.question)
            for name in _names(item):
                self._by_pair[(name, instruction)].append(item)

    def __len__(self) -> int:
        return len(self.items)

    def by_key(self, key: str | int) -> BenchmarkItem | None:
        """The item imported from the row whose key (id/index/question_id column, else
        ``row-N``/``line-N``) is ``key``."""
        return self._by_id.get(item_id(self.benchmark, str(key).strip()))

    def by_index(self, index: str | int) -> BenchmarkItem | None:
        """The item whose VLMEvalKit/TouchStone ``index`` (or row key) is ``index``; numbers
        match whether written as ``12`` or ``12.0``."""
        text = str(index).strip()
        found = self._by_index.get(text)
        if found is None and text.endswith(".0") and text[:-2].lstrip("-").isdigit():
            found = self._by_index.get(text[:-2])
        return found if found is not None else self.by_key(text)

    def by_image_and_instruction(
        self, url_or_file_name: str, instruction: str
    ) -> list[BenchmarkItem]:
        """Every item showing that picture (a URL or file name, matched by file name) with that
        instruction (whitespace-normalised), in store order; VisIT-Bench repeats some pairs."""
        key = (image_name(url_or_file_name), normalise_instruction(instruction))
        return list(self._by_pair.get(key, []))


def item_lookup(store: Store, benchmark: str) -> ItemLookup:
    """An :class:`ItemLookup` over the stored items of ``benchmark`` (read once)."""
    return ItemLookup(benchmark, iter_items(store, benchmark))
