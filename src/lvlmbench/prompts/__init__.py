"""Prompts live here as files (package data), never as string literals in code."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["load_prompt", "render_prompt"]


@cache
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>`` (e.g. ``common/reask_json.md``)."""
    path = resources.files("lvlmbench.prompts").joinpath(name)
    if not path.is_file():
        raise FileNotFoundError(f"no prompt file lvlmbench/prompts/{name}")
    return path.read_text(encoding="utf-8")


def render_prompt(name: str, **values: object) -> str:
    """A prompt file with ``{placeholders}`` filled in (str.format; literal braces doubled)."""
    return load_prompt(name).format(**values)
