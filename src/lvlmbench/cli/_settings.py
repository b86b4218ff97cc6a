"""Generation settings flags shared by ``evaluate`` and the judge commands.

The flags become options of the model spec they apply to (``--temperature 0.7 -m openai/m`` is
``-m 'openai/m?temperature=0.7'``): the registry checks them, puts those not at their default
into the model's identity (answers under other settings are never reused for each other) and
the model client applies them to every call. On ``evaluate`` they apply to the examinees, on a
judge command to the judge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import BadInput
from lvlmbench.models import (
    EXAMINEE_MAX_TOKENS,
    GenerationSettings,
    parse_param,
    specs_with_settings,
)

__all__ = [
    "EXAMINEE_MAX_TOKENS",
    "MaxTokens",
    "Params",
    "Seed",
    "SystemPrompt",
    "Temperature",
    "TopP",
    "Workers",
    "apply_settings",
    "generation_settings",
    "read_system_prompt",
    "spec_with_flags",
]


_PANEL = "Generation settings"

MaxTokens = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        min=1,
        help=f"Reply token budget (evaluate's default: {EXAMINEE_MAX_TOKENS}; judges keep "
        "their own). Raise it for reasoning models.",
        rich_help_panel=_PANEL,
        show_default=False,
    ),
]
Temperature = Annotated[
    float | None,
    typer.Option(
        "--temperature", min=0.0, help="Sampling temperature (default 0).", rich_help_panel=_PANEL
    ),
]
TopP = Annotated[
    float | None,
    typer.Option(
        "--top-p", min=0.0, max=1.0, help="Nucleus sampling mass.", rich_help_panel=_PANEL
    ),
]
Seed = Annotated[
    int | None,
    typer.Option("--seed", help="Provider-side sampling seed.", rich_help_panel=_PANEL),
]
SystemPrompt = Annotated[
    str | None,
    typer.Option(
        "--system-prompt",
        help="System prompt: text, or @FILE (read from FILE; a plain value naming an existing "
        "file is read too).",
        rich_help_panel=_PANEL,
        show_default=False,
    ),
]
Params = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        help="Provider-specific field KEY=VALUE passed through unvalidated (VALUE read as JSON "
        "when it parses, else text), e.g. reasoning_effort=high; repeatable.",
        rich_help_panel=_PANEL,
        show_default=False,
    ),
]


def read_system_prompt(value: str) -> str:
    """``@FILE`` -> FILE's text (BadInput when it cannot be read); a value that names an
    existing file -> its text; anything else is the prompt itself."""
    if value.startswith("@"):
        path = Path(value[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BadInput(f"--system-prompt {value}: cannot read {path}: {exc}") from None
    else:
        path = Path(value)
        text = path.read_text(encoding="utf-8") if _is_file(path) else value
    if not text.strip():
        raise BadInput(f"--system-prompt {value}: the prompt is empty")
    return text


def _is_file(path: Path) -> bool:
    try:
        return len(str(path)) < 4096 and path.is_file()
    except OSError:  # a long prompt is no file name
        return False


def _parse_params(pairs: list[str]) -> dict[str, object]:
    params: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise BadInput(f"--param {pair!r}: expected KEY=VALUE, e.g. reasoning_effort=high")
        if key in params:
            raise BadInput(f"--param {key!r} is given twice")
        params[key] = parse_param(value)
    return params


def generation_settings(
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    system_prompt: str | None = None,
    params: list[str] | None = None,
) -> GenerationSettings:
    """The flags as one value (BadInput for a malformed ``--param`` or unreadable prompt)."""
    return GenerationSettings(
        temperature=temperature,
        top_p=top_p,
        seed=seed,
        max_tokens=max_tokens,
        system=None if system_prompt is None else read_system_prompt(system_prompt),
        params=_parse_params(params or []),
    )


def apply_settings(specs: list[str], settings: GenerationSettings) -> list[str]:
    """Each provider spec with ``settings`` written in (names that are no provider spec, such
    as imported players, pass unchanged); BadInput when a spec sets one differently."""
    try:
        return specs_with_settings(specs, settings)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def spec_with_flags(
    spec: str,
    max_tokens: int | None,
    temperature: float | None,
    top_p: float | None,
    seed: int | None,
    system_prompt: str | None,
    params: list[str] | None,
) -> str:
    """One spec (a judge's) with the generation-settings flags written in: they apply to that
    model and make its identity, so its verdicts under other settings stay apart."""
    settings = generation_settings(max_tokens, temperature, top_p, seed, system_prompt, params)
    return apply_settings([spec], settings)[0]


# Copies started by the use case (lvlmbench.workflows._copies): each takes leases in the store.
Workers = Annotated[
    int,
    typer.Option(
        "--workers",
        help="Start N local processes of this command on the same store; they split the work "
        "through leases in the store (so do copies started on other hosts) and nothing is "
        "paid twice.",
    ),
]
