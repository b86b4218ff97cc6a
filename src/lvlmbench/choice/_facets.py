"""The facets choice items are grouped by in accuracy tables, read from item metadata."""

from __future__ import annotations

from collections.abc import Iterable

from lvlmbench.types import BenchmarkItem

__all__ = [
    "GROUPINGS",
    "available_facets",
    "carries_facet",
    "facet_name",
    "facet_value",
    "item_facets",
]

# Facets an accuracy table can be grouped by, all read from item metadata; any other metadata
# column of the benchmark's items (an imported file's `l2-category`, `split`, ...) works too.
GROUPINGS = ("capability", "general_aspect", "fine_aspect", "difficulty")


def item_facets(item: BenchmarkItem) -> dict[str, str]:
    """The grouping facets of an item (missing ones read as "-")."""
    facets = {key: str(item.meta.get(key, "-")) for key in GROUPINGS}
    if item.category and facets["capability"] == "-":
        facets["capability"] = item.category
    return facets


def facet_name(name: str) -> str:
    """The metadata key a facet is stored under: importers store ``l2-category`` as
    ``l2_category``, so both spellings name it."""
    return name.strip().replace("-", "_")


def facet_value(item: BenchmarkItem, name: str) -> str:
    """An item's value of facet ``name`` (a GROUPINGS facet, ``category`` or any metadata
    key; "-" when the item has none)."""
    if name in GROUPINGS:
        return item_facets(item)[name]
    key = facet_name(name)
    value = item.meta.get(key, item.meta.get(name))
    if value is None and key == "category":
        value = item.category
    return "-" if value is None or value == "" else str(value)


def available_facets(items: Iterable[BenchmarkItem]) -> list[str]:
    """The facets these items can be grouped by: GROUPINGS, ``category`` where items have one,
    and every metadata key holding text or numbers."""
    found: set[str] = set()
    for item in items:
        if item.category:
            found.add("category")
        found.update(
            key
            for key, value in item.meta.items()
            if isinstance(value, str | int | float) and not isinstance(value, bool)
        )
    return [*GROUPINGS, *sorted(found - set(GROUPINGS))]


def carries_facet(items: Iterable[BenchmarkItem], name: str) -> bool:
    """Whether some item has a value of facet ``name``: an imported benchmark has no difficulty
    levels, and a group of items without one, "-", would read as a level of its own."""
    return any(facet_value(item, name) != "-" for item in items)
