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

__all__ = ["display_name", "display_names"]


def display_name(identity: str) -> str:
    """``identity`` without its options (``openai/m?base_url=...`` -> ``openai/m``)."""
    return identity.partition("?")[0] or identity


def _options(identity: str) -> dict[str, str]:
    return dict(parse_qsl(identity.partition("?")[2], keep_blank_values=True))


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
