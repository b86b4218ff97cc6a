"""OpenAI's Images API (``POST {base_url}/images/generations``) and compatible servers.

Options: ``base_url`` (default https://api.openai.com/v1), ``api_key_env`` (default
OPENAI_API_KEY; a custom base_url may run without a key), ``timeout`` seconds, ``quality`` and
``style`` (sent as given when set), ``size`` (``WxH`` to request instead of the request's own
size, for models that accept only a few sizes; the image is then resized to what was asked),
``seed`` (``true``/``false``: send the request's seed; default true for a custom ``base_url``).

Only the text prompt is used: scene programs are for renderers that draw them exactly. OpenAI's
own API has no seed parameter (it rejects unknown fields), so there the seed only separates cache
entries; compatible servers (LocalAI, diffusers behind a shim) are deterministic per prompt, so
a redraw of a rejected image must carry a new seed or it comes back byte-identical: the seed is
sent to them. A content-policy rejection is a refusal (a value), not an error.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import time
from collections.abc import Mapping
from typing import Any

from lvlmbench.images._api import ImageOutput, ImageRequest
from lvlmbench.models.providers import (
    ErrorKind,
    HttpClient,
    HttpError,
    HttpResponse,
    ProviderError,
    bearer_headers,
    classify_response,
    error_payload,
    hosted_key,
    post_json,
    probe,
    redact_data,
    scrub_key,
    split_credentials,
)
from lvlmbench.types import Status

__all__ = ["OpenAITextToImage", "classify_images", "create"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
# dall-e-2 answers a content-policy hit with content_policy_violation, gpt-image models with
# moderation_blocked.
_REFUSAL_CODES = frozenset({"content_policy_violation", "moderation_blocked"})


class _Refused(ProviderError):
    """A content-policy rejection; :meth:`OpenAITextToImage.generate` turns it into a value."""


def classify_images(
    response: HttpResponse, what: str, unsupported: tuple[str, ...]
) -> ProviderError:
    """:func:`classify_response`, except that content-policy codes become :class:`_Refused`."""
    error = classify_response(response, what, unsupported)
    if error_payload(response).get("code") in _REFUSAL_CODES:
        return _Refused(str(error.args[0]), ErrorKind.FATAL, status_code=response.status_code)
    return error


def _parse_size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", text)
    if not match:
        raise ValueError(f"option size={text!r}: expected WIDTHxHEIGHT, e.g. 1024x1024")
    return int(match.group(1)), int(match.group(2))


def _as_png(data: bytes, size: tuple[int, int], what: str) -> bytes:
    """``data`` as PNG of exactly ``size``; garbled bytes are transient like a garbled reply."""
    if data.startswith(b"\x89PNG") and _png_size(data) == size:
        return data
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            picture = image if image.size == size else image.resize(size, Image.Resampling.LANCZOS)
            buffer = io.BytesIO()
            picture.save(buffer, format="PNG")
            return buffer.getvalue()
    except (UnidentifiedImageError, OSError, ValueError):
        raise ProviderError(
            f"{what}: reply image cannot be decoded ({len(data)} bytes)", ErrorKind.TRANSIENT
        ) from None


def _png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's IHDR chunk, without decoding the image."""
    if len(data) < 24:
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


class OpenAITextToImage:
    """Text-to-image through the OpenAI Images API, one image per request."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str = DEFAULT_KEY_ENV,
        timeout: float = 180.0,
        quality: str | None = None,
        style: str | None = None,
        size: str | None = None,
        send_seed: bool | None = None,
    ) -> None:
        self.name = name
        self.spec = f"openai/{name}"
        # Credentials in the URL are sent as basic auth and never shown, stored or keyed on.
        endpoint = split_credentials(base_url.rstrip("/"))
        self.base_url = endpoint.url
        self._auth = endpoint.auth
        self.endpoint = self.base_url
        self.quality = quality
        self.style = style
        self.size = _parse_size(size) if size else None
        self.send_seed = self.base_url != DEFAULT_BASE_URL if send_seed is None else send_seed
        self._api_key = hosted_key(
            self.spec,
            api_key_env,
            hosted=self.base_url == DEFAULT_BASE_URL,
            hint=f"set {api_key_env}, or pass base_url=... for a local server",
        )
        self._api_key_env = api_key_env
        self._client = HttpClient(timeout)

    def cache_identity(self) -> dict[str, object]:
        identity: dict[str, object] = {
            "provider": "openai",
            "model": self.name,
            "base_url": self.base_url,
        }
        # Unlike timeouts, these change the picture, so they split the cache.
        for key, value in (("quality", self.quality), ("style", self.style)):
            if value is not None:
                identity[key] = value
        if self.size is not None:
            identity["size"] = "{}x{}".format(*self.size)
        return identity

    def _headers(self) -> dict[str, str]:
        return bearer_headers(self._api_key, self._auth)

    def _payload(self, request: ImageRequest) -> dict[str, Any]:
        width, height = self.size or (request.width, request.height)
        payload: dict[str, Any] = {
            "model": self.name,
            "prompt": request.prompt,
            "n": 1,
            "size": f"{width}x{height}",
        }
        # dall-e models answer with a short-lived URL unless asked for base64; gpt-image models
        # always send base64 and reject the field.
        if self.name.startswith("dall-e"):
            payload["response_format"] = "b64_json"
        if self.quality is not None:
            payload["quality"] = self.quality
        if self.style is not None:
            payload["style"] = self.style
        if self.send_seed:
            payload["seed"] = request.seed
        return payload

    async def generate(self, request: ImageRequest) -> ImageOutput:
        started = time.perf_counter()
        try:
            body = await post_json(
                self._client,
                f"{self.base_url}/images/generations",
                self._payload(request),
                headers=self._headers(),
                what=self.spec,
                classify=classify_images,
            )
            # An echoed key masked where it can be: never inside the base64 image (a short key
            # replaced there corrupted every image).
            body = redact_data(body)
            image, revised = await self._first_image(body)
        except _Refused as exc:
            return ImageOutput(
                status=Status.REFUSED,
                reason=str(self._scrub(exc).args[0]),
                latency_s=time.perf_counter() - started,
            )
        except ProviderError as exc:
            raise self._scrub(exc) from None
        return ImageOutput(
            png=_as_png(image, (request.width, request.height), self.spec),
            latency_s=time.perf_counter() - started,
            revised_prompt=revised,
        )

    async def _first_image(self, body: dict[str, Any]) -> tuple[bytes, str | None]:
        """The first image's bytes and revised prompt; fetches ``url`` from servers that
        ignore ``response_format``."""
        data = body.get("data")
        item = data[0] if isinstance(data, list) and data else None
        if not isinstance(item, dict):
            raise ProviderError(f"{self.spec}: reply has no image", ErrorKind.TRANSIENT)
        revised = item.get("revised_prompt")
        revised = str(revised) if revised else None
        if item.get("b64_json"):
            try:
                return base64.b64decode(str(item["b64_json"]), validate=True), revised
            except (binascii.Error, ValueError):
                raise ProviderError(
                    f"{self.spec}: reply image is not valid base64", ErrorKind.TRANSIENT
                ) from None
        if item.get("url"):
            return await self._download(str(item["url"])), revised
        raise ProviderError(f"{self.spec}: reply has no b64_json or url", ErrorKind.TRANSIENT)

    async def _download(self, url: str) -> bytes:
        # No auth header: the URL may point at another host (a CDN), which must not see the key.
        try:
            response = await self._client.get(url)
        except HttpError as exc:
            raise ProviderError(
                f"{self.spec}: image download failed ({exc})", ErrorKind.TRANSIENT
            ) from None
        if response.status_code >= 400:
            raise classify_response(response, f"{self.spec}: image download", ())
        return response.content

    def _scrub(self, exc: ProviderError) -> ProviderError:
        """``exc`` without the key in its message, with hints that fit this provider."""
        return scrub_key(exc, self._api_key, self._api_key_env, url_credentials=bool(self._auth))

    async def check(self) -> None:
        """Preflight: GET {base_url}/models; a server without that route answers 404, which
        still shows it is up."""
        await probe(
            self._client, f"{self.base_url}/models", what=self.spec, headers=self._headers()
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def create(name: str, options: Mapping[str, str]) -> OpenAITextToImage:
    """Registry factory: ``openai/<model>`` with options base_url, api_key_env, timeout,
    quality, style, size, seed."""
    return OpenAITextToImage(
        name,
        base_url=options.get("base_url", DEFAULT_BASE_URL),
        api_key_env=options.get("api_key_env", DEFAULT_KEY_ENV),
        timeout=float(options.get("timeout", 180.0)),
        quality=options.get("quality"),
        style=options.get("style"),
        size=options.get("size"),
        send_seed=None if "seed" not in options else options["seed"] == "true",
    )
