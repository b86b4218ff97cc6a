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

from lvlmbench.datasets.importers._images import image_name
from lvlmbench.datasets.importers._write import item_id
from lvlmbench.store import Store, iter_items
from lvlmbench.types import BenchmarkItem

__all__ = ["ItemLookup", "image_name", "item_lookup", "normalise_instruction"]

_KEY_META = ("index", "source_key", "question_id", "id", "key")


def normalise_instruction(text: str) -> str:
    """Whitespace-normalised instruction: runs of spaces/newlines become one space."""
    return " ".join(text.split())


def _pair(url_or_file_name: str, instruction: str) -> tuple[str, str]:
    # Case-insensitive on both sides: the dataset CSV and a vote or prediction file may spell
    # one picture with different hosts, schemes or case, and re-typed instructions drift in case.
    return image_name(url_or_file_name).lower(), normalise_instruction(instruction).lower()


def _number(key: str) -> str:
    """``12`` for ``12.0``: pandas writes an integer column holding NaN as floats."""
    text = key.strip()
    return text[:-2] if text.endswith(".0") and text[:-2].lstrip("-").isdigit() else text


def _image_values(item: BenchmarkItem) -> set[str]:
    """Every picture an item's meta names: the importers' fields (``image_sources``,
    ``image_urls``, ``file_name``, the raw ``image``/``image_url`` cells, ...) and any other
    field whose name mentions an image or a URL and holds strings."""
    values: set[str] = set()
    for name, value in item.meta.items():
        lowered = name.lower()
        if ("image" not in lowered and "url" not in lowered) or lowered == "image_group":
            continue
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, str) and one.strip() and one != "base64" and len(one) <= 2048:
                values.add(one)
    return values


class ItemLookup:
    """Items of one benchmark indexed by their join columns (built by :func:`item_lookup`)."""

    def __init__(self, benchmark: str, items: Iterable[BenchmarkItem]) -> None:
        self.benchmark = benchmark
        self.items: list[BenchmarkItem] = list(items)
        self._by_id = {item.id: item for item in self.items}
        self._by_index: dict[str, BenchmarkItem] = {}
        self._by_pair: dict[tuple[str, str], list[BenchmarkItem]] = defaultdict(list)
        for item in self.items:
            for field in _KEY_META:
                value = item.meta.get(field)
                if isinstance(value, str | int) and not isinstance(value, bool):
                    self._by_index.setdefault(_number(str(value)), item)
            pairs = {_pair(value, item.question) for value in _image_values(item)}
            for pair in sorted(pairs):
                self._by_pair[pair].append(item)

    def __len__(self) -> int:
        return len(self.items)

    def get(self, item_id_: str) -> BenchmarkItem | None:
        """The item with this id, or None."""
        return self._by_id.get(item_id_)

    def by_key(self, key: str | int) -> BenchmarkItem | None:
        """The item imported from the row whose key (id/index/question_id column, else
        ``row-N``/``line-N``) is ``key``."""
        return self._by_id.get(item_id(self.benchmark, str(key).strip()))

    def by_index(self, index: str | int) -> BenchmarkItem | None:
        """The item whose VLMEvalKit/TouchStone ``index``, LLaVA ``question_id`` or row key is
        ``index`` (numbers match whether written as ``12`` or ``12.0``), else the item with
        that row key or id."""
        text = _number(str(index))
        found = self._by_index.get(text)
        if found is None:
            found = self.by_key(text) or self.by_key(str(index))
        return found if found is not None else self._by_id.get(str(index).strip())

    def by_image_and_instruction(
        self, url_or_file_name: str, instruction: str
    ) -> list[BenchmarkItem]:
        """Every item showing that picture (a URL or file name, matched by file name) with that
        instruction (whitespace-normalised; case ignored on both), in store order; VisIT-Bench
        repeats some pairs."""
        return list(self._by_pair.get(_pair(url_or_file_name, instruction), []))


def item_lookup(store: Store, benchmark: str) -> ItemLookup:
    """An :class:`ItemLookup` over the stored items of ``benchmark`` (read once)."""
    return ItemLookup(benchmark, iter_items(store, benchmark))
