"""The helpers every provider shares (models.providers): error objects of JSON error bodies,
PNG re-encoding, the missing-key error and key scrubbing."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from lvlmbench.models import ErrorKind, ProviderError
from lvlmbench.models.providers import (
    HttpResponse,
    error_payload,
    require_key,
    scrub_key,
    to_png,
)


def _response(body: object | bytes) -> HttpResponse:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return HttpResponse(400, {}, content)


def test_error_payload_reads_the_error_object_and_nothing_else() -> None:
    error = {"code": "content_policy_violation", "message": "no"}
    assert error_payload(_response({"error": error})) == error
    assert error_payload(_response({"error": "a string"})) == {}
    assert error_payload(_response(b"<html>bad gateway</html>")) == {}
    assert error_payload(_response(b"\xff\xfe")) == {}
    # A list-wrapped error (Google front ends) is read only where the provider asks for it.
    wrapped = _response([{"error": error}])
    assert error_payload(wrapped) == {}
    assert error_payload(wrapped, unwrap_list=True) == error
    assert error_payload(_response([]), unwrap_list=True) == {}


def test_to_png_re_encodes_what_pillow_reads() -> None:
    buffer = io.BytesIO()
    Image.new("RGB", (3, 2), (1, 2, 3)).save(buffer, format="BMP")
    png = to_png(buffer.getvalue())
    assert png is not None and png.startswith(b"\x89PNG")
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (3, 2) and image.getpixel((0, 0)) == (1, 2, 3)
    assert to_png(b"not an image") is None


def test_require_key_only_for_the_hosted_api() -> None:
    require_key("x/m", "", hosted=False, hint="h")  # a local server needs no key
    require_key("x/m", "k" * 20, hosted=True, hint="h")
    with pytest.raises(ProviderError, match="x/m: no API key") as raised:
        require_key("x/m", "", hosted=True, hint="set X_KEY")
    assert raised.value.kind is ErrorKind.FATAL and raised.value.hint == "set X_KEY"


@pytest.mark.parametrize(
    ("status", "hint"),
    [(401, "check the API key in X_KEY"), (403, None), (404, "check the name"), (500, None)],
)
def test_scrub_key_masks_the_key_and_hints_by_status(status: int, hint: str | None) -> None:
    key = "sk-secret-value-1234567890"
    exc = ProviderError(f"x/m: HTTP {status}: bad key {key}", ErrorKind.FATAL, status_code=status)
    scrubbed = scrub_key(exc, key, "X_KEY", not_found_hint="check the name")
    assert key not in str(scrubbed.args[0]) and f"HTTP {status}" in str(scrubbed.args[0])
    assert scrubbed.hint == hint
