"""The bounded memo behind the pixels baseline's looks and the store's parsed items."""

from __future__ import annotations

from collections.abc import Callable

from lvlmbench._memo import Recent


def test_a_value_is_made_once_and_the_least_recently_used_goes_first() -> None:
    made: list[str] = []

    def maker(key: str) -> Callable[[], str]:
        def make() -> str:
            made.append(key)
            return key.upper()

        return make

    recent: Recent[str, str] = Recent(2)
    assert recent.get("a", maker("a")) == "A"
    assert recent.get("b", maker("b")) == "B"
    assert recent.get("a", maker("a")) == "A"  # kept, and now the most recent
    recent.get("c", maker("c"))  # over the size: "b", the least recently used, goes
    assert recent.get("a", maker("a")) == "A"
    assert recent.get("b", maker("b")) == "B"  # made again
    assert made == ["a", "b", "c", "b"]
