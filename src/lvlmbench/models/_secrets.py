"""Every secret the process was configured with, and the one place that masks them.

Providers read their keys through :func:`read_secret`, which registers the value (credentials
written into a ``base_url`` are registered when the spec is parsed); the model and image clients
pass every output through :func:`redact_data` / :func:`redact_text` before it is cached, stored
or returned (error messages too), and the CLI masks log records as they are made
(:func:`install_log_redaction`). A server that echoes the key in a reply (a debugging proxy, a
misconfigured gateway) therefore never gets it onto disk, into a report or a log line.

Masking is the second guard, not the first: lvlmbench itself never writes a secret (request
headers are not stored, cache keys and identities leave keys and URL credentials out), so masking
only has to catch what a server echoes. Where it masks depends on how long the secret is:

* A secret of :data:`MIN_SECRET_LENGTH` characters or more is masked wherever it occurs in text,
  except inside base64 payloads (images, audio): there it can only occur by chance, and masking
  would corrupt the payload.
* A shorter one (``OPENAI_API_KEY=x`` for a local server) cannot be told from ordinary words: an
  "x" in an answer is the model's. It is masked only where it can only be a credential: after
  an auth scheme or credential name (``Bearer x``, ``api_key: x``), as a URL's password
  (``://user:x@``), as the value of a credential-named field of a reply (``"x-api-key": "x"``),
  and, in a server's error body (:func:`redact_server_text`), wherever it stands as a word.
"""

from __future__ import annotations

import base64
import logging
import os
import re
import threading
from typing import Any, TypeVar
from urllib.parse import unquote

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "RedactingFilter",
    "basic_token",
    "install_log_redaction",
    "mask_url_credentials",
    "read_secret",
    "redact_data",
    "redact_server_text",
    "redact_text",
    "register_secret",
    "register_url_credentials",
    "registered_secrets",
]

REDACTED = "***"
MIN_SECRET_LENGTH = 8
"""Shorter values are masked only where they can only be credentials (see the module text):
replacing a 3-letter "key" everywhere would corrupt answers and images, and no real API key or
token is that short."""

T = TypeVar("T")

# A run of base64 long enough to be a payload (a data URL's, a b64_json image), not a word or
# a key; a secret inside one is there by chance, and masking it would corrupt the payload.
_PAYLOAD = re.compile(r"([A-Za-z0-9+/]{256,}={0,2})")
# Names of reply fields whose values are credentials (an echoed request header): "x-api-key",
# "Authorization", "access_token", "password"; not "key" or "max_tokens", which answers use.
_CREDENTIAL_FIELD = re.compile(
    r"(?:^|[-_])(?:api[-_]?key|authorization|token|secret|password|passwd)$", re.IGNORECASE
)
# What only a credential follows: an auth scheme and a space (``Bearer x``), a credential's name
# and ``:`` or ``=`` (``api_key: x``, ``"password": "x"``); and, when ``@`` follows the secret,
# a URL's ``user:`` or its ``://`` (``://u:x@``, ``://x@``).
_BEFORE_CREDENTIAL = (
    r"(?i:bearer|basic)\s+|(?i:api[-_ ]?key|token|passw(?:or)?d|secret)[\"']?\s*[:=]\s*[\"']?"
)
_WORD = "A-Za-z0-9"
# A URL's ``user:password@`` (or ``user@``) part; neither may hold an unencoded ``/@`` or space.
_URL_CREDENTIALS = re.compile(r"(?i)(https?://)([^/@\s:?#,]*)(?::([^/@\s]*))?@")

_lock = threading.Lock()
# Longest first, so a secret that contains another is masked whole.
_secrets: tuple[str, ...] = ()
_short: tuple[str, ...] = ()
_short_forms: re.Pattern[str] | None = None
_short_words: re.Pattern[str] | None = None


def register_secret(value: str | None) -> None:
    """Mask ``value`` from now on wherever lvlmbench stores, logs or renders text."""
    global _secrets, _short, _short_forms, _short_words
    if not value or value in _secrets or value in _short:
        return
    with _lock:
        if len(value) >= MIN_SECRET_LENGTH:
            _secrets = tuple(sorted({*_secrets, value}, key=len, reverse=True))
            return
        _short = tuple(sorted({*_short, value}, key=len, reverse=True))
        alternatives = "|".join(re.escape(s) for s in _short)
        _short_forms = re.compile(
            rf"({_BEFORE_CREDENTIAL}|://(?:[^/@\s]*:)?(?=(?:{alternatives})@))"
            rf"({alternatives})(?![{_WORD}])"
        )
        _short_words = re.compile(rf"(?<![{_WORD}])({alternatives})(?![{_WORD}])")


def register_url_credentials(text: str) -> None:
    """Register the credentials of every URL in ``text`` (``scheme://user:password@host``): the
    password as written and decoded, and the basic-auth token made of it, so that none of them
    is ever shown. A URL with a user and no password (``https://TOKEN@host``) has the user as
    its secret."""
    for match in _URL_CREDENTIALS.finditer(text):
        user, password = match.group(2), match.group(3)
        secret = user if password is None else password
        for value in (secret, unquote(secret), basic_token(unquote(user), unquote(password or ""))):
            register_secret(value)


def mask_url_credentials(text: str) -> str:
    """``text`` with the secret of every URL's credentials masked (``http://user:***@host``,
    ``http://***@host``), registered or not: what echoes a spec or URL back to its user."""
    return _URL_CREDENTIALS.sub(_masked_credentials, text)


def _masked_credentials(match: re.Match[str]) -> str:
    if match.group(3) is None:
        return f"{match.group(1)}{REDACTED}@"
    return f"{match.group(1)}{match.group(2)}:{REDACTED}@"


def basic_token(user: str, password: str) -> str:
    """The token of an HTTP basic ``Authorization`` header (base64 of ``user:password``)."""
    return base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def read_secret(env_name: str) -> str:
    """The value of environment variable ``env_name`` ("" when unset), registered as a secret."""
    value = os.environ.get(env_name, "")
    register_secret(value)
    return value


def registered_secrets() -> tuple[str, ...]:
    """The secrets registered so far, short ones included (for tests and diagnostics; never
    print them)."""
    return _secrets + _short


def _mask_long(text: str) -> str:
    if not any(secret in text for secret in _secrets):
        return text
    pieces = _PAYLOAD.split(text)  # odd positions: payloads, left as they are
    for index in range(0, len(pieces), 2):
        for secret in _secrets:
            if secret in pieces[index]:
                pieces[index] = pieces[index].replace(secret, REDACTED)
    return "".join(pieces)


def redact_text(text: str) -> str:
    """``text`` with every registered secret masked: a long one wherever it occurs outside a
    base64 payload, a short one where it can only be a credential (``Bearer x``)."""
    if _secrets:
        text = _mask_long(text)
    if _short_forms is not None and _short_forms.search(text):
        text = _short_forms.sub(rf"\1{REDACTED}", text)
    return text


def redact_server_text(text: str) -> str:
    """What a server wrote about a request it was sent (an error body), masked: a server that
    echoes the key there writes it as a word of its own, so a short secret is masked wherever
    it stands as a word, a long one wherever it occurs."""
    return _mask_words(redact_text(text))


def _mask_words(text: str) -> str:
    """``text`` with each short secret masked wherever it stands as a word."""
    if _short_words is None or not _short_words.search(text):
        return text
    return _short_words.sub(REDACTED, text)


def redact_data(value: T) -> T:
    """``value`` (JSON-like: dicts, lists, strings, numbers) with secrets masked in every string
    as :func:`redact_text` masks them, keys included, and short secrets also in the values of
    credential-named fields (an echoed ``"x-api-key": "x"``). Base64 payloads are left whole.
    Returns the same object when nothing needed masking."""
    if not _secrets and not _short:
        return value
    return _redact_any(value)  # type: ignore[no-any-return]


def _redact_any(value: Any, credential: bool = False) -> Any:
    if isinstance(value, str):
        return _mask_words(redact_text(value)) if credential else redact_text(value)
    if isinstance(value, dict):
        changed = False
        cleaned = {}
        for key, item in value.items():
            named = isinstance(key, str) and _CREDENTIAL_FIELD.search(key) is not None
            new_key, new_item = _redact_any(key), _redact_any(item, named)
            changed = changed or new_key is not key or new_item is not item
            cleaned[new_key] = new_item
        return cleaned if changed else value
    if isinstance(value, list | tuple):
        items = [_redact_any(v, credential) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    return value


class RedactingFilter(logging.Filter):
    """Masks registered secrets in a log record's message (arguments merged in first), and in
    the traceback text of an exception being logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        _redact_record(record)
        return True


def _redact_record(record: logging.LogRecord) -> None:
    if not _secrets:
        return
    message = record.getMessage()
    cleaned = redact_text(message)
    if cleaned != message:
        record.msg, record.args = cleaned, None
    if record.exc_info and record.exc_info[1] is not None:
        # Formatted once here so that handlers reuse the masked text (logging caches exc_text).
        record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))


def install_log_redaction() -> None:
    """Mask registered secrets in every log record the process creates, whatever handler
    (console, file, pytest's capture) receives it. Idempotent."""
    factory = logging.getLogRecordFactory()
    if getattr(factory, "redacting", False):
        return

    def redacting_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        _redact_record(record)
        return record

    redacting_factory.redacting = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(redacting_factory)
