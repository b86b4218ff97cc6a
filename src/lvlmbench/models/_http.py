"""HTTP plumbing shared by the API providers: one pooled client, error classification.

Every provider speaks plain HTTP through :class:`HttpClient` so that one policy decides what is
retried: the vendor SDKs each carry their own retry loops, which would multiply with ours.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import os
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from lvlmbench.ids import compact_json_writer
from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._secrets import redact_server_text

__all__ = [
    "Classifier",
    "HttpClient",
    "HttpConnectError",
    "HttpError",
    "HttpResponse",
    "HttpTimeout",
    "classify_response",
    "dumps_spliced",
    "parse_retry_after",
    "post_json",
    "probe",
]


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A finished HTTP exchange, body read in full."""

    status_code: int
    headers: Mapping[str, str]
    """Case-insensitive."""
    content: bytes
    charset: str | None = None

    @property
    def text(self) -> str:
        """The body as text (undecodable bytes replaced)."""
        return self.content.decode(self.charset or "utf-8", errors="replace")

    def json(self) -> Any:
        """The body decoded as JSON; raises JSONDecodeError or UnicodeDecodeError, also for a
        body nested too deep for the decoder (a hostile server's RecursionError is no crash)."""
        try:
            return json.loads(self.content)
        except RecursionError:
            raise json.JSONDecodeError("JSON nested too deeply", "", 0) from None


class HttpError(Exception):
    """The exchange failed below HTTP: refused or dropped connection, truncated body."""


class HttpConnectError(HttpError):
    """No byte was exchanged: connection refused, unknown host name, invalid URL, TLS handshake
    refused or connect timeout. At the start of a run this means the endpoint is down or
    misnamed; later in a run it is one call's bad luck like any dropped connection."""


class HttpTimeout(HttpError):
    """Waiting for the reply took longer than the client's timeout."""


Classifier = Callable[[HttpResponse, str, tuple[str, ...]], ProviderError]
"""Turns a non-2xx response into a ProviderError; same arguments as :func:`classify_response`."""


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # httpx's context (certifi, SSL_CERT_FILE/SSL_CERT_DIR), as before the move to aiohttp, so
    # that what is trusted did not change. Built once per process: loading the CA bundle costs
    # ~0.25 s, and only when the first https request needs it.
    import httpx

    return httpx.create_ssl_context()


@functools.lru_cache(maxsize=64)
def _env_proxy(origin: str) -> tuple[str | None, aiohttp.BasicAuth | None]:
    # The proxy that HTTP(S)_PROXY / NO_PROXY name for ``origin`` (as httpx honoured them),
    # looked up once per origin: aiohttp's trust_env does it on every request in a thread.
    try:
        proxy, auth = get_env_proxy_for_url(URL(origin))
    except LookupError:
        return None, None
    return str(proxy), auth


@functools.lru_cache(maxsize=256)
def _parsed(url: str) -> URL:
    # Providers post to a handful of URLs; aiohttp would parse the string on every request.
    return URL(url)


def _origin(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


class HttpClient:
    """One aiohttp session per event loop, created on first use.

    aiohttp spends ~0.4 ms of CPU on a request where httpx + httpcore + anyio spent ~2.4 ms
    (measured against the local fake server at 64 in flight); the evaluation runner is bound by
    that CPU once the model server is fast. The session is made lazily because models are built
    before the event loop that uses them runs.
    """

    def __init__(self, timeout: float) -> None:
        # Like httpx's per-operation timeouts: each connect and each wait for bytes, not a total.
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=min(timeout, 10.0), sock_read=timeout
        )
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _current(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            # A session belongs to the loop it was made in; a model reused under a new
            # asyncio.run gets a new one (the old loop's connections died with it).
            if self._session is not None:
                self._session.detach()
            connector = aiohttp.TCPConnector(limit=0)
            self._session = aiohttp.ClientSession(connector=connector, timeout=self._timeout)
            self._loop = loop
        return self._session

    async def post(
        self,
        url: str,
        *,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        splices: Mapping[str, str] | None = None,
    ) -> HttpResponse:
        """POST ``json`` (serialised compactly, as httpx did) and read the whole reply.
        ``splices``: placeholder strings in ``json`` and the JSON-safe text that replaces each
        in the body (see :func:`dumps_spliced`)."""
        body = None if json is None else dumps_spliced(json, splices or {})
        sent = {"content-type": "application/json", **(headers or {})}
        return await self._request("POST", url, body, sent)

    async def get(self, url: str, headers: Mapping[str, str] | None = None) -> HttpResponse:
        """GET ``url`` and read the whole reply."""
        return await self._request("GET", url, None, headers or {})

    async def _request(
        self, method: str, url: str, body: bytes | None, headers: Mapping[str, str]
    ) -> HttpResponse:
        tls: ssl.SSLContext | bool = _tls_context() if url.startswith("https:") else True
        try:
            target = _parsed(url)
        except ValueError:
            raise HttpConnectError("InvalidURL") from None
        proxy, proxy_auth = _env_proxy(_origin(url))
        session = self._current()
        try:
            async with session.request(
                method,
                target,
                data=body,
                headers=headers,
                ssl=tls,
                proxy=proxy,
                proxy_auth=proxy_auth,
            ) as reply:
                content = await reply.read()
                return HttpResponse(reply.status, reply.headers, content, reply.charset)
        except aiohttp.ConnectionTimeoutError as exc:  # before TimeoutError: it is one too
            raise HttpConnectError(type(exc).__name__) from None
        except TimeoutError as exc:  # aiohttp's timeouts subclass it
            raise HttpTimeout(type(exc).__name__) from None
        except (aiohttp.ClientConnectorError, aiohttp.InvalidURL) as exc:
            raise HttpConnectError(_connect_detail(exc)) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise HttpError(type(exc).__name__) from None

    async def aclose(self) -> None:
        """Close every connection."""
        session, self._session = self._session, None
        if session is None or session.closed:
            return
        if self._loop is asyncio.get_running_loop():
            await session.close()
        else:  # made under an event loop that has ended: its connections ended with it
            session.detach()


def _connect_detail(exc: Exception) -> str:
    # The OS's words ("Connection refused", "Name or service not known") say what to fix;
    # aiohttp's own text ("Connect call failed (host, port)") repeats the URL around it.
    cause = getattr(exc, "os_error", None)
    if isinstance(cause, socket.gaierror):
        words = cause.strerror or str(cause)
    elif isinstance(cause, OSError) and cause.errno:
        words = os.strerror(cause.errno)
    else:
        words = str(cause or "")
    return f"{type(exc).__name__}: {words}" if words else type(exc).__name__


# One encoder for every body: json.dumps builds a new one per call when given options.
_ENCODE = compact_json_writer(sort_keys=False, allow_nan=False)


def dumps_spliced(value: Any, splices: Mapping[str, str]) -> bytes:
    """``value`` as compact JSON, with each placeholder string of ``splices`` replaced by its
    text, which must need no JSON escaping (base64, a data URL). The large strings then never
    go through the encoder, which scans every character of every string it writes."""
    body = _ENCODE(value).encode()
    for placeholder, text in splices.items():
        body = body.replace(placeholder.encode(), text.encode(), 1)
    return body


# Status codes that heal by waiting. 408/409 are server-side races; 425 "too early".
_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
_HINTS = {
    401: "check the API key in the environment variable this provider reads",
    403: "the key is not allowed to use this model or endpoint",
    404: "check the model name and the base URL (it usually ends in /v1)",
    402: "the account has no quota or credit left",
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or HTTP date), else None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_detail(response: HttpResponse) -> str:
    """The server's words about a failed request, with any secret it echoed masked: the
    only text of a server's that goes into an error message."""
    return redact_server_text(_error_words(response))[:300]


def _error_words(response: HttpResponse) -> str:
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return response.text[:600]
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)[:600]
        return str(err)[:600]
    return str(body)[:600]


def _is_quota_error(status: int, detail: str) -> bool:
    lowered = detail.lower()
    return status == 429 and ("quota" in lowered or "billing" in lowered or "credit" in lowered)


def classify_response(
    response: HttpResponse, what: str, unsupported: tuple[str, ...] = ()
) -> ProviderError:
    """A ProviderError for a non-2xx response.

    ``unsupported`` lists words that, when named in a 400/422/500 error body, mean the server
    rejected a request feature rather than failed: llama.cpp answers an unknown response_format
    with HTTP 500, which must not be retried as a transient fault.
    """
    status = response.status_code
    detail = _error_detail(response)
    message = f"{what}: HTTP {status}: {detail}"
    if status in (400, 422, 500) and any(w in detail for w in unsupported):
        return ProviderError(message, ErrorKind.UNSUPPORTED, status_code=status)
    if _is_quota_error(status, detail):
        # OpenAI says "insufficient_quota" with a 429; waiting will not refill the account, so
        # it is re-labelled 402 (payment required), which stops the run instead of recording
        # thousands of failed items.
        return ProviderError(message, ErrorKind.FATAL, status_code=402, hint=_HINTS[402])
    if status in _TRANSIENT_STATUS:
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        return ProviderError(
            message, ErrorKind.TRANSIENT, status_code=status, retry_after=retry_after
        )
    return ProviderError(message, ErrorKind.FATAL, status_code=status, hint=_HINTS.get(status))


async def post_json(
    client: HttpClient,
    url: str,
    payload: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    what: str,
    unsupported: tuple[str, ...] = (),
    classify: Classifier = classify_response,
    splices: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """POST ``payload`` and return the decoded JSON body, or raise a classified ProviderError.

    Connection failures and timeouts are transient; a body that is not a JSON object is
    transient too (a truncated or garbled reply usually comes from an overloaded proxy).
    ``classify`` lets a provider read its own error bodies (Gemini's RetryInfo, OpenAI's
    content-policy codes) on top of :func:`classify_response`.
    """
    try:
        response = await client.post(url, json=payload, headers=dict(headers), splices=splices)
    except HttpTimeout as exc:
        raise ProviderError(f"{what}: timed out ({exc})", ErrorKind.TRANSIENT) from None
    except HttpConnectError as exc:
        # Transient here: one refused connection late in a run fails (after retries) only its
        # own item. A server down from the start is caught by the preflight (:func:`probe`),
        # one down for good later by the client's circuit breaker.
        raise ProviderError(
            f"{what}: cannot reach {url} ({exc})",
            ErrorKind.TRANSIENT,
            hint="is the server running and the base URL right?",
        ) from None
    except HttpError as exc:
        raise ProviderError(
            f"{what}: connection lost talking to {url} ({exc})", ErrorKind.TRANSIENT
        ) from None
    if response.status_code >= 400:
        raise classify(response, what, unsupported)
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ProviderError(
            f"{what}: reply is not valid JSON ({len(response.content)} bytes)",
            ErrorKind.TRANSIENT,
            status_code=response.status_code,
        ) from None
    if not isinstance(body, dict):
        raise ProviderError(f"{what}: reply is not a JSON object", ErrorKind.TRANSIENT)
    return body


async def probe(client: HttpClient, url: str, *, what: str, headers: Mapping[str, str]) -> None:
    """The preflight: one cheap GET before a run. Raises a FATAL ProviderError only when no
    connection could be made (refused, unknown host, invalid URL, connect timeout). Any HTTP
    answer, even 404/405 on a server without that route or a 5xx, shows the server is there."""
    try:
        await client.get(url, headers=headers)
    except HttpConnectError as exc:
        raise ProviderError(
            f"{what}: cannot reach {url} ({exc})",
            ErrorKind.FATAL,
            hint="is the server running and the base URL right?",
        ) from None
    except HttpError:
        return  # it accepted the connection: whatever else went wrong, the run will tell
