"""The OpenAI Images provider against a real local HTTP server that records each request."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from typing import Any

import pytest
from http_fixture import RecordingServer
from PIL import Image
from pngs import solid_image

from lvlmbench.images import ImageClient, ImageRequest, load_image_model
from lvlmbench.models import ErrorKind, ProviderError
from lvlmbench.store import Store
from lvlmbench.types import Status

SECRET = "sk-test-SECRET123"
REQUEST = ImageRequest(prompt="a red square on grey", width=64, height=64, seed=3)
RED = (200, 30, 40)


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def _b64_reply(data: bytes, revised: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"b64_json": base64.b64encode(data).decode()}
    if revised:
        item["revised_prompt"] = revised
    return {"created": 1, "data": [item]}


def _load(server: RecordingServer, model: str = "gpt-image-1", **options: Any) -> Any:
    return load_image_model(f"openai/{model}?base_url={server.url}", **options)


def _decoded(png: bytes | None) -> Image.Image:
    assert png is not None and png.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(png))


async def test_dall_e_request_asks_for_base64(server: RecordingServer) -> None:
    png = solid_image(RED, (64, 64), "PNG")
    server.reply(_b64_reply(png, revised="A red square, centred."))
    model = _load(server, "dall-e-3", quality="hd", style="natural")
    out = await model.generate(REQUEST)
    await model.aclose()

    sent = server.last
    assert (sent.method, sent.path) == ("POST", "/images/generations")
    assert sent.headers["authorization"] == f"Bearer {SECRET}"
    assert sent.json() == {
        "model": "dall-e-3",
        "prompt": "a red square on grey",
        "n": 1,
        "size": "64x64",
        "response_format": "b64_json",
        "quality": "hd",
        "style": "natural",
        "seed": 3,  # a custom base_url: the request's seed is sent
    }
    assert out.status is Status.OK and out.png == png  # already PNG of the right size: as is
    assert out.revised_prompt == "A red square, centred."


async def test_gpt_image_gets_no_response_format_and_jpeg_becomes_png(
    server: RecordingServer,
) -> None:
    server.reply(_b64_reply(solid_image(RED, (64, 64), "JPEG")))
    model = _load(server, "gpt-image-1")
    out = await model.generate(REQUEST)
    await model.aclose()

    body = server.last.json()
    assert "response_format" not in body
    assert "quality" not in body and "style" not in body
    with _decoded(out.png) as image:
        assert image.format == "PNG" and image.size == (64, 64)


async def test_each_redraw_seed_reaches_a_compatible_server(server: RecordingServer) -> None:
    """A deterministic server answers one payload with one picture: a redraw of a rejected
    image is only a new picture if its request differs, so the per-attempt seed is sent."""
    server.reply(_b64_reply(solid_image(RED, (64, 64), "PNG")))
    server.reply(_b64_reply(solid_image(RED, (64, 64), "PNG")))
    model = _load(server)
    await model.generate(REQUEST)
    await model.generate(REQUEST.model_copy(update={"seed": 4}))
    await model.aclose()
    first, second = (r.json() for r in server.requests)
    assert (first["seed"], second["seed"]) == (3, 4)


async def test_seed_can_be_turned_off_and_the_official_api_gets_none(
    server: RecordingServer,
) -> None:
    server.reply(_b64_reply(solid_image(RED, (64, 64), "PNG")))
    model = _load(server, seed="false")
    await model.generate(REQUEST)
    await model.aclose()
    assert "seed" not in server.last.json()
    official = load_image_model("openai/gpt-image-1")  # OpenAI's API rejects unknown fields
    assert official._payload(REQUEST).get("seed") is None
    await official.aclose()


async def test_size_option_overrides_the_request_and_resizes_back(
    server: RecordingServer,
) -> None:
    server.reply(_b64_reply(solid_image(RED, (128, 128), "PNG")))
    model = _load(server, size="128x128")
    out = await model.generate(REQUEST)
    await model.aclose()

    assert server.last.json()["size"] == "128x128"
    with _decoded(out.png) as image:
        assert image.size == (64, 64)
    assert model.cache_identity()["size"] == "128x128"


async def test_url_reply_is_downloaded_without_the_key(server: RecordingServer) -> None:
    png = solid_image(RED, (64, 64), "PNG")
    server.reply({"data": [{"url": f"{server.url}/files/img.png"}]})
    server.reply(png)
    model = _load(server, "dall-e-2")
    out = await model.generate(REQUEST)
    await model.aclose()

    download = server.requests[1]
    assert (download.method, download.path) == ("GET", "/files/img.png")
    assert "authorization" not in download.headers
    assert out.png == png


@pytest.mark.parametrize("code", ["content_policy_violation", "moderation_blocked"])
async def test_content_policy_rejection_is_a_refusal(server: RecordingServer, code: str) -> None:
    error = {
        "message": f"Your request was rejected by the safety system. ({SECRET})",
        "type": "invalid_request_error",
        "code": code,
    }
    server.reply({"error": error}, status=400)
    model = _load(server)
    out = await model.generate(REQUEST)
    await model.aclose()

    assert out.status is Status.REFUSED and out.png is None and not out.ok
    assert out.reason and "safety system" in out.reason and SECRET not in out.reason


@pytest.mark.parametrize(
    ("status", "headers", "kind", "retry_after"),
    [
        (429, {"retry-after": "2"}, ErrorKind.TRANSIENT, 2.0),
        (500, {}, ErrorKind.TRANSIENT, None),
        (400, {}, ErrorKind.FATAL, None),
        (401, {}, ErrorKind.FATAL, None),
    ],
)
async def test_other_errors_are_classified_and_redacted(
    server: RecordingServer,
    status: int,
    headers: dict[str, str],
    kind: ErrorKind,
    retry_after: float | None,
) -> None:
    error = {"message": f"nope {SECRET}", "type": "x", "code": "invalid_size"}
    server.reply({"error": error}, status=status, headers=headers)
    model = _load(server)
    with pytest.raises(ProviderError) as caught:
        await model.generate(REQUEST)
    await model.aclose()

    exc = caught.value
    assert (exc.kind, exc.status_code, exc.retry_after) == (kind, status, retry_after)
    assert SECRET not in str(exc)
    if status == 401:
        assert exc.hint and "OPENAI_API_KEY" in exc.hint


async def test_garbled_image_is_transient(server: RecordingServer) -> None:
    server.reply(_b64_reply(b"not an image at all"))
    model = _load(server)
    with pytest.raises(ProviderError) as caught:
        await model.generate(REQUEST)
    await model.aclose()
    assert caught.value.kind is ErrorKind.TRANSIENT


def test_missing_key_for_the_default_endpoint_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        load_image_model("openai/gpt-image-1")


def test_cache_identity_changes_with_quality_but_not_timeout(server: RecordingServer) -> None:
    plain = _load(server, timeout=3).cache_identity()
    assert plain == {"provider": "openai", "model": "gpt-image-1", "base_url": server.url}
    assert _load(server, timeout=99).cache_identity() == plain
    assert _load(server, quality="high").cache_identity() != plain


async def test_image_client_serves_the_second_request_from_the_cache(
    server: RecordingServer, tmp_path: Any
) -> None:
    server.reply(_b64_reply(solid_image(RED, (64, 64), "JPEG")))
    store = Store.open(str(tmp_path / "s.db"))
    client = ImageClient(_load(server), store)

    first = await client.generate(REQUEST)
    second = await client.generate(REQUEST)
    await client.aclose()

    assert first.ok and first.attempts == 1 and not first.cached
    assert second.cached and second.attempts == 0
    assert second.png == first.png
    assert len(server.requests) == 1
