"""One registry style for every pluggable table: providers, import formats and their parsers,
vote formats, judge protocols, metrics, report sections.

A :class:`Registry` is an ordered mapping of name -> entry with a one-line help per name;
modules register with :meth:`Registry.add` (item assignment and ``del`` act as a dict's, for
tests that patch a table). The CLI
builds its choices from :meth:`Registry.names` *when a command runs*, so an entry registered by
an imported module is offered everywhere without a second list to keep in step (a hand-written
enum beside a table is how ``import -f newformat`` once exited 2). Lookups of unknown names raise
:class:`UnknownName` (a ValueError) naming the known ones; a second entry under a taken name
raises :class:`DuplicateName` unless the caller asks to replace it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from typing import TypeVar

__all__ = ["DuplicateName", "Registry", "UnknownName", "merged_names"]

T = TypeVar("T")


class UnknownName(ValueError):
    """A name no entry of a registry has."""


class DuplicateName(ValueError):
    """A second entry under a name already taken."""


class Registry(MutableMapping[str, T]):
    """Entries by name in registration order; ``kind`` names them in messages
    ("unknown import format 'x'; known: a, b"). Item assignment and ``del`` act as a dict's
    (replace, remove), so tests patch a registry as they would a table."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._help: dict[str, str] = {}

    def add(self, name: str, entry: T, *, help: str = "", replace: bool = False) -> T:
        """Register ``entry`` under ``name`` and return it. A taken name raises DuplicateName
        unless ``replace`` (then the new entry keeps the old one's place)."""
        if not name:
            raise ValueError(f"a {self.kind} needs a name")
        if name in self._entries and not replace:
            raise DuplicateName(f"{self.kind} {name!r} is already registered")
        self._entries[name] = entry
        self._help[name] = help or self._help.get(name, "")
        return entry

    def remove(self, name: str) -> None:
        """Forget ``name`` (tests that register a toy entry clean up with this)."""
        self._entries.pop(name, None)
        self._help.pop(name, None)

    def get_or_raise(self, name: str) -> T:
        """The entry of ``name``; UnknownName listing the known names when there is none."""
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownName(f"unknown {self.kind} {name!r}; known: {self.known()}") from None

    def names(self) -> tuple[str, ...]:
        """Every name, in registration order (the order CLI choices are shown in)."""
        return tuple(self._entries)

    def known(self) -> str:
        """The names, comma-separated, for messages."""
        return ", ".join(self._entries) or "none"

    def help(self, name: str) -> str:
        """The one-line help registered with ``name`` ("" when none)."""
        return self._help.get(name, "")

    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __setitem__(self, name: str, entry: T) -> None:
        self.add(name, entry, replace=True)

    def __delitem__(self, name: str) -> None:
        del self._entries[name]
        self._help.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {self.known()})"


def merged_names(*registries: Mapping[str, object]) -> tuple[str, ...]:
    """The names of several registries in order, each once (choices offered together)."""
    return tuple(dict.fromkeys(name for registry in registries for name in registry))
