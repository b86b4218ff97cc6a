"""Short names for model identities on screen, still telling apart two that share one.

An identity such as ``openai/m?base_url=http://127.0.0.1:8001/v1&max_tokens=64`` is exact but
long; tables show ``openai/m``, and only when two identities in one table would both read
``openai/m`` is a suffix added, made of what differs between them (``openai/m (127.0.0.1:8001)``,
``openai/m (max_tokens=64)``, ``openai/m (default)``).

Tables that print a legend of the full identities beside them (the HTML report, the
leaderboard files, the web pages) ask for ``compact`` names: ``provider/name`` (cut in its
middle past 48 characters) and a tag of at most 22 whatever the options
(``openai/qwen2-vl-7b (system=1a2b3c)``, or a hash tag ``openai/m #3fa1`` where what differs
would not fit), so a long spec cannot squeeze the figures' columns or be cut in a chart's
legend.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from urllib.parse import parse_qsl, urlsplit

# The digest a model identity shows for a system prompt (the same text, the same digest).
from lvlmbench.ids import is_text_digest, text_digest
from lvlmbench.models._registry import ModelSpec

__all__ = ["display_name", "display_names", "spec_label"]

LABEL_WORDS = 6
"""Words of a system prompt a spec's label keeps (then its digest)."""
LABEL_CHARS = 48
"""At most this many characters of those words."""
COMPACT_NAME = 48
"""A compact name's ``provider/name`` is cut in its middle beyond this many characters."""
COMPACT_SUFFIX = 20
"""A compact name's distinguishing suffix longer than this is replaced by a hash tag."""
_TAG_HEX = 4
"""Hex digits of a hash tag (more where two identities' tags would coincide)."""


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


def _suffixes(identities: list[str], short: Callable[[str], str] = str) -> dict[str, str]:
    """What differs between ``identities`` (which share a short name), per identity; each
    option's value passed through ``short`` (the endpoint's host is already short)."""
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
            parts.append(_endpoint(value, urls) if key == "base_url" else f"{key}={short(value)}")
        suffixes[identity] = ", ".join(parts) or "default"
    return suffixes


def _short_value(value: str) -> str:
    """An option's value in a compact suffix: a prompt digest's first 6 hex digits, any other
    value over 12 characters cut (uniqueness is checked after, so a cut never merges two)."""
    if is_text_digest(value):
        return value.removeprefix("sha256:")[:6]
    return value if len(value) <= 12 else value[:11] + "…"


def _cut_middle(label: str) -> str:
    if len(label) <= COMPACT_NAME:
        return label
    keep = COMPACT_NAME - 1
    return f"{label[: keep - keep // 3]}…{label[-(keep // 3) :]}"


def _hash_tags(identities: list[str]) -> dict[str, str]:
    """``#`` and the first hex digits of each identity's SHA-256, as many as make them unique
    (the same identity always gets the same tag, whatever else the table holds)."""
    digests = {i: hashlib.sha256(i.encode("utf-8")).hexdigest() for i in identities}
    width = _TAG_HEX
    while len({d[:width] for d in digests.values()}) < len(digests):
        width += 1
    return {i: f"#{d[:width]}" for i, d in digests.items()}


def _compact_suffixes(identities: list[str]) -> dict[str, str]:
    """Readable suffixes where they are short and unique, hash tags otherwise."""
    readable = _suffixes(identities, _short_value)
    unique = len(set(readable.values())) == len(readable)
    if unique and all(len(s) <= COMPACT_SUFFIX for s in readable.values()):
        return {i: f"({s})" for i, s in readable.items()}
    return _hash_tags(identities)


def display_names(identities: Iterable[str], *, compact: bool = False) -> dict[str, str]:
    """identity -> what to show: the short name, with a suffix in parentheses only where two
    identities in ``identities`` share a short name. ``compact`` (for tables with a legend of
    the full identities): a long ``provider/name`` cut in its middle, and a suffix that would
    be long given as a short hash tag instead (see the module's docstring); still unique and
    the same for the same ``identities``."""
    groups: dict[str, list[str]] = defaultdict(list)
    for identity in dict.fromkeys(identities):
        short = display_name(identity)
        groups[_cut_middle(short) if compact else short].append(identity)
    shown: dict[str, str] = {}
    for short, members in groups.items():
        if len(members) == 1:
            shown[members[0]] = short
            continue
        if compact:
            shown.update({i: f"{short} {tag}" for i, tag in _compact_suffixes(members).items()})
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
