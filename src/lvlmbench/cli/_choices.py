"""CLI choices read from a registry, never copied into an enum: whatever a registered module
adds (an import format, a judge protocol) is offered in ``--help`` and accepted when given."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import typer

__all__ = ["choice_help", "registry_choice"]


def registry_choice(names: Callable[[], Sequence[str]]) -> Callable[[str], str]:
    """A typer ``parser`` accepting exactly the names ``names()`` gives when the command runs
    (so an entry registered after this module was imported is accepted too); anything else is
    a usage error (exit 2) listing them."""

    def parse(value: str) -> str:
        known = names()
        if value not in known:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(known)}")
        return value

    return parse


def choice_help(text: str, names: Sequence[str]) -> str:
    """``text`` followed by the choices, for an option's ``--help``."""
    return f"{text} One of: {', '.join(names)}."
