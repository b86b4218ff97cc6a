"""The shared HTTP transport (aiohttp) and the providers' image encoding memo."""

from __future__ import annotations

import asyncio
import io
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai_server import FakeOpenAIServer, Faults
from PIL import Image

from lvlmbench.models import ErrorKind, ProviderError, anthropic, google, load_chat_model
from lvlmbench.models._http import HttpClient, HttpError, HttpTimeout, post_json
from lvlmbench.models.openai import _data_url
from lvlmbench.models.providers import EncodedImages
from lvlmbench.types import GenerationConfig, ImagePart, Message


@pytest.fixture
def png(tmp_path: Path) -> Iterator[Path]:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(buffer, format="PNG")
    path = tmp_path / "a.png"
    path.write_bytes(buffer.getvalue())
    yield path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_a_reply_is_read_whole_with_case_insensitive_headers() -> None:
    with FakeOpenAIServer() as server:
        client = HttpClient(timeout=5)
        reply = await client.post(f"{server.base_url}/chat/completions", json={"messages": []})
        await client.aclose()
    assert reply.status_code == 200
    assert reply.headers["Content-Type"] == reply.headers["content-type"] == "application/json"
    assert reply.json()["choices"][0]["message"]["content"].startswith("Answer: ")


@pytest.mark.parametrize(
    ("faults", "error"),
    [
        (Faults(slow=1.0, slow_s=1.0), HttpTimeout),
        (Faults(truncated=1.0), HttpError),
        (Faults(dropped=1.0), HttpError),
    ],
)
async def test_transport_failures_are_classified(faults: Faults, error: type[Exception]) -> None:
    with FakeOpenAIServer(faults=faults) as server:
        client = HttpClient(timeout=0.2)
        with pytest.raises(error):
            await client.post(f"{server.base_url}/chat/completions", json={"messages": []})
        await client.aclose()


async def test_post_json_names_timeouts_and_unreachable_servers_as_transient() -> None:
    client = HttpClient(timeout=1)
    url = f"http://127.0.0.1:{_free_port()}/v1/chat/completions"
    with pytest.raises(ProviderError, match="cannot reach") as refused:
        await post_json(client, url, {}, headers={}, what="m")
    assert refused.value.kind is ErrorKind.TRANSIENT
    with pytest.raises(ProviderError, match=r"cannot reach .*InvalidURL"):
        await post_json(client, "http://[::1/x", {}, headers={}, what="m")
    await client.aclose()


def test_a_model_serves_calls_under_successive_event_loops() -> None:
    """The CLI may run several asyncio.run()s with one model: each gets a fresh session."""
    with FakeOpenAIServer() as server:
        model = load_chat_model(f"openai/fake?base_url={server.base_url}")
        for _ in range(2):
            out = asyncio.run(model.generate([Message.user("hi")], GenerationConfig()))
            assert out.text.startswith("Answer: ")
        asyncio.run(model.aclose())


def test_an_image_is_read_and_encoded_once_for_every_item_that_shows_it(png: Path) -> None:
    urls = EncodedImages(_data_url)
    first = ImagePart.from_path(png)
    _, url = urls.get(first)
    assert url.startswith("data:image/png;base64,")
    png.unlink()  # reading the file again would fail now
    assert urls.get(ImagePart.from_path(png, sha256=first.sha256()))[1] == url


def test_anthropic_and_google_also_encode_an_image_once(png: Path) -> None:
    first = ImagePart.from_path(png)
    block, part = anthropic._image_block(first), google._image_part(first)
    png.unlink()
    again = ImagePart.from_path(png, sha256=first.sha256())
    assert anthropic._image_block(again) == block
    assert google._image_part(again) == part
    assert block["source"]["media_type"] == part["inline_data"]["mime_type"] == "image/png"


def test_the_memo_stays_within_its_budget() -> None:
    urls = EncodedImages(_data_url, budget=4000)
    parts = [ImagePart.from_bytes(bytes([i]) * 600) for i in range(10)]
    for part in parts:
        assert urls.get(part)[1].startswith("data:application/octet-stream;base64,")
    assert urls._used <= 4000 and 0 < len(urls._texts) < 10
    assert next(reversed(urls._texts)) == parts[-1].sha256()  # the newest is kept
