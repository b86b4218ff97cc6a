"""HTTP plumbing shared by the API providers: one pooled client, error classification.

Every provider speaks plain HTTP through httpx so that one policy decides what is retried: the
vendor SDKs each carry their own retry loops, which would multiply with ours.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from lvlmbench.models._api import ErrorKind, ProviderError

__all__ = [
    "Classifier",
    "ShardedClient",
    "classify_response",
    "parse_retry_after",
    "post_json",
    "redact",
    "redact_json",
]

Classifier = Callable[[httpx.Response, str, tuple[str, ...]], ProviderError]
"""Turns a non-2xx response into a ProviderError; same arguments as :func:`classify_response`."""

_SHARDS = 8


class ShardedClient:
    """Several httpx clients used in turn, each with its own small connection pool.

    httpcore's pool re-examines every pooled connection for every queued request, so with 64
    requests in flight one shared pool spends ~10 ms of CPU per request on bookkeeping (the
    evaluation runner was CPU-bound at ~100 requests/s against a local server). Eight pools of
    eight connections do the same work at a fraction of the cost.
    """

    def __init__(self, timeout: float, shards: int = _SHARDS) -> None:
        # One TLS context for all shards: loading the CA bundle costs ~0.25 s each time.
        tls = httpx.create_ssl_context()
        self._clients = [
            httpx.AsyncClient(
                verify=tls,
                timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=16),
            )
            for _ in range(shards)
        ]
        self._turn = 0

    async def post(
        self, url: str, *, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> httpx.Response:
        """POST through the next client in turn."""
        self._turn = (self._turn + 1) % len(self._clients)
        return await self._clients[self._turn].post(url, json=json, headers=headers)

    async def get(self, url: str) -> httpx.Response:
        """GET through the next client in turn."""
        self._turn = (self._turn + 1) % len(self._clients)
        return await self._clients[self._turn].get(url)

    async def aclose(self) -> None:
        """Close every connection."""
        for client in self._clients:
            await client.aclose()


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


def redact(text: str, secrets: list[str]) -> str:
    """``text`` with every non-empty secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def redact_json(body: dict[str, Any], secrets: list[str]) -> dict[str, Any]:
    """``body`` with every non-empty secret masked in its strings: a proxy that echoes request
    headers must not put a key into ModelOutput.raw, which the store keeps."""
    text = json.dumps(body)
    if not any(secret and secret in text for secret in secrets):
        return body
    cleaned: dict[str, Any] = json.loads(redact(text, secrets))
    return cleaned


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return response.text[:300]
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)[:300]
        return str(err)[:300]
    return str(body)[:300]


def _is_quota_error(status: int, detail: str) -> bool:
    lowered = detail.lower()
    return status == 429 and ("quota" in lowered or "billing" in lowered or "credit" in lowered)


def classify_response(
    response: httpx.Response, what: str, unsupported: tuple[str, ...] = ()
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
    client: httpx.AsyncClient | ShardedClient,
    url: str,
    payload: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    what: str,
    unsupported: tuple[str, ...] = (),
    classify: Classifier = classify_response,
) -> dict[str, Any]:
    """POST ``payload`` and return the decoded JSON body, or raise a classified ProviderError.

    Connection failures and timeouts are transient; a body that is not a JSON object is
    transient too (a truncated or garbled reply usually comes from an overloaded proxy).
    ``classify`` lets a provider read its own error bodies (Gemini's RetryInfo, OpenAI's
    content-policy codes) on top of :func:`classify_response`.
    """
    try:
        response = await client.post(url, json=payload, headers=dict(headers))
    except httpx.TimeoutException as exc:
        raise ProviderError(
            f"{what}: timed out ({type(exc).__name__})", ErrorKind.TRANSIENT
        ) from None
    except httpx.TransportError as exc:
        raise ProviderError(
            f"{what}: cannot reach {url} ({type(exc).__name__})",
            ErrorKind.TRANSIENT,
            hint="is the server running and the base URL right?",
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
