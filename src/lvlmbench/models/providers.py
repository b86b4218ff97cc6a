"""What a provider module (chat or text-to-image) builds on: the HTTP transport, error
classification, secrets, the image back-ends' option tables, and the small helpers every
provider needs once (PNG re-encoding, images encoded once per content, the error object of a
JSON error body).

Providers outside :mod:`lvlmbench.models` (the image back-ends) import these names from here,
never from the private modules behind them.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._encoded_images import EncodedImages, base64_text
from lvlmbench.models._endpoint import Endpoint, split_credentials
from lvlmbench.models._hf_batch import Batcher
from lvlmbench.models._http import (
    HttpClient,
    HttpError,
    HttpResponse,
    classify_response,
    parse_retry_after,
    post_json,
    probe,
)
from lvlmbench.models._options import DIFFUSERS_OPTIONS, OPENAI_IMAGE_OPTIONS, parse_image_price
from lvlmbench.models._secrets import read_secret, redact_data, redact_text, register_secret

__all__ = [
    "DIFFUSERS_OPTIONS",
    "OPENAI_IMAGE_OPTIONS",
    "Batcher",
    "EncodedImages",
    "Endpoint",
    "ErrorKind",
    "HttpClient",
    "HttpError",
    "HttpResponse",
    "ProviderError",
    "base64_text",
    "bearer_headers",
    "classify_response",
    "error_payload",
    "hosted_key",
    "parse_image_price",
    "parse_retry_after",
    "post_json",
    "probe",
    "read_secret",
    "redact_data",
    "require_key",
    "scrub_key",
    "split_credentials",
    "to_png",
]


def require_key(spec: str, key: str, *, hosted: bool, hint: str) -> None:
    """Raise the FATAL "no API key" error of ``spec`` when it calls the provider's own hosted
    API (``hosted``) without a key; a local or proxy endpoint may need none."""
    if hosted and not key:
        raise ProviderError(f"{spec}: no API key", ErrorKind.FATAL, hint=hint)


def hosted_key(spec: str, api_key_env: str, *, hosted: bool, hint: str) -> str:
    """The key in ``api_key_env`` (registered as a secret), after :func:`require_key`."""
    key = read_secret(api_key_env)
    require_key(spec, key, hosted=hosted, hint=hint)
    return key


def bearer_headers(key: str, auth: Mapping[str, str] | None = None) -> dict[str, str]:
    """JSON request headers with ``Authorization: Bearer`` when there is a key (a local
    OpenAI-compatible server may need none). ``auth``: the basic-auth header of credentials
    written into the base URL (:func:`split_credentials`), sent instead of the key: one
    request carries one ``Authorization``, and the user named these for this endpoint."""
    headers = {"content-type": "application/json"}
    if auth:
        headers.update(auth)
    elif key:
        headers["authorization"] = f"Bearer {key}"
    return headers


def scrub_key(
    exc: ProviderError,
    key: str,
    key_env: str,
    *,
    auth_codes: tuple[int, ...] = (401,),
    not_found_hint: str | None = None,
    url_credentials: bool = False,
) -> ProviderError:
    """``exc`` with ``key`` and every other secret masked in its message as
    :func:`~lvlmbench.models.redact_text` masks them (a server's words in it were masked when it
    was made, where a short key stands as a word), with a hint naming where the key comes from
    (an ``auth_codes`` status) or what a 404 means for this provider. ``url_credentials``: the
    base URL carries a user and password, which a 401 is then about."""
    register_secret(key)  # read with read_secret, so already known; a key from elsewhere too
    exc.args = (redact_text(str(exc.args[0])),)
    if exc.status_code == 401 and url_credentials:
        exc.hint = "check the user and password written into base_url"
    elif exc.status_code in auth_codes:
        exc.hint = f"check the API key in {key_env}"
    elif not_found_hint is not None and exc.status_code == 404:
        exc.hint = not_found_hint
    return exc


def to_png(data: bytes) -> bytes | None:
    """``data`` re-encoded as PNG, or None when Pillow cannot read it."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            return buffer.getvalue()
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def error_payload(response: HttpResponse, *, unwrap_list: bool = False) -> dict[str, Any]:
    """The ``error`` object of a JSON error body (``{"error": {...}}``), or ``{}``.

    ``unwrap_list``: the body may be a list holding that object first (some Google front ends
    wrap the error so); other providers' list bodies carry no error object.
    """
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    if unwrap_list and isinstance(body, list) and body:
        body = body[0]
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}
