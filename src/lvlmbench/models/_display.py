"""Short names for model identities on screen, still telling apart two that share one.

An identity such as ``openai/m?base_url=http://127.0.0.1:8001/v1&max_tokens=64`` is exact but
long; tables show ``openai/m``, and only when two identities in one table would both read
``openai/m`` is a suffix added, made of what differs between them (``openai/m (127.0.0.1:8001)``,
``openai/m (max_tokens=64)``, ``openai/m (default)``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

# The digest a model identity shows for a system prompt (the same text, the same digest).
from lvlmbench.ids import is_text_digest, text_digest
from lvlmbench.models._registry import ModelSpec

__all__ = ["display_name", "display_names", "spec_label"]

LABEL_WORDS = 6
"""Words of a system prompt a spec's label keeps (then its digest)."""
LABEL_CHARS = 48
"""At most this many characters of those words."""


def display_name(identity: str) -> str:
    """``identity`` without its options (``openai/m?base_url=...`` -> ``openai/m``)."""
    return ModelSpec.read(identity).label or identity


def _options(identity: str) -> dict[str, str]:
    return dict(ModelSpec.read(identity).options)


def _endpoint(url: str, others: list[str]) -> str:
    """The host of ``url``, or the URL without its scheme when hosts alone do not differ."""
    host = urlsplit(url).netloc
    hosts = {urlsplit(o).netloc for o in others}
    if len(hosts) == len(set(others)):
        return host or url
    return url.split("://", 1)[-1]


def _suffixes(identities: list[str]) -> dict[str, str]:
    options = {i: _options(i) for i in identities}
    keys = sorted({k for o in options.values() for k in o})
    differing = [k for k in keys if len({o.get(k) for o in options.values()}) > 1]
    urls = [o["base_url"] for o in options.values() if "base_url" in o]
    suffixes: dict[str, str] = {}
    for identity, opts in options.items():
        parts = []
        for key in differing:
            if key not in opts:
                continue
            value = opts[key]
            parts.append(_endpoint(value, urls) if key == "base_url" else f"{key}={value}")
        suffixes[identity] = ", ".join(parts) or "default"
    return suffixes


def display_names(identities: Iterable[str]) -> dict[str, str]:
    """identity -> what to show: the short name, with a suffix in parentheses only where two
    identities in ``identities`` share a short name."""
    groups: dict[str, list[str]] = defaultdict(list)
    for identity in dict.fromkeys(identities):
        groups[display_name(identity)].append(identity)
    shown: dict[str, str] = {}
    for short, members in groups.items():
        if len(members) == 1:
            shown[members[0]] = short
            continue
        for identity, suffix in _suffixes(members).items():
            shown[identity] = f"{short} ({suffix})"
    return shown


def spec_label(spec: str) -> str:
    """``spec`` as a progress line shows it: the options readable (not URL-encoded), and a
    system prompt given in full (``--system-prompt``, a whole file perhaps) cut to its first
    words and the digest the model's identity shows (``system="You are a careful…"
    (sha256:1a2b…)``), so the line stays one line and names the same prompt as the tables."""
    base, sep, query = spec.partition("?")
    if not sep:
        return spec
    shown = []
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key == "system" and not is_text_digest(value):
            value = f'"{_first_words(value)}" ({text_digest(value)})'
        shown.append(f"{key}={value}")
    return f"{base}?{'&'.join(shown)}"


def _first_words(text: str) -> str:
    words = text.split()
    short = " ".join(words[:LABEL_WORDS])
    if len(short) > LABEL_CHARS:
        short = short[:LABEL_CHARS].rstrip()
    return short if short == " ".join(words) else f"{short}…"
