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
from typing import Any

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._encoded_images import EncodedImages, base64_text
from lvlmbench.models._hf_batch import Batcher
from lvlmbench.models._http import (
    HttpClient,
    HttpError,
    HttpResponse,
    classify_response,
    parse_retry_after,
    post_json,
    probe,
    redact,
    redact_json,
)
from lvlmbench.models._options import DIFFUSERS_OPTIONS, OPENAI_IMAGE_OPTIONS, parse_image_price
from lvlmbench.models._secrets import read_secret

__all__ = [
    "DIFFUSERS_OPTIONS",
    "OPENAI_IMAGE_OPTIONS",
    "Batcher",
    "EncodedImages",
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
    "redact",
    "redact_json",
    "require_key",
    "scrub_key",
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


def bearer_headers(key: str) -> dict[str, str]:
    """JSON request headers with ``Authorization: Bearer`` when there is a key (a local
    OpenAI-compatible server may need none)."""
    headers = {"content-type": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    return headers


def scrub_key(
    exc: ProviderError,
    key: str,
    key_env: str,
    *,
    auth_codes: tuple[int, ...] = (401,),
    not_found_hint: str | None = None,
) -> ProviderError:
    """``exc`` without the key in its message, with a hint naming where the key comes from
    (an ``auth_codes`` status) or what a 404 means for this provider."""
    exc.args = (redact(str(exc.args[0]), [key]),)
    if exc.status_code in auth_codes:
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
