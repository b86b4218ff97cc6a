"""Images on the OpenAI-compatible wire: original bytes and media type from the store, the data
URL built once per image, spliced into the body, and cache keys that did not move."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from http_fixture import RecordingServer
from pngs import solid_image

from lvlmbench.ids import canonical_json
from lvlmbench.models import ModelClient, load_chat_model
from lvlmbench.models._http import dumps_spliced
from lvlmbench.models.openai import encode_messages
from lvlmbench.store import Store
from lvlmbench.types import GenerationConfig, ImagePart, Message


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    with RecordingServer() as srv:
        yield srv


def _completion(text: str = "A") -> dict[str, object]:
    return {
        "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1},
    }


def _image_urls(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [
        part["image_url"]["url"]
        for message in messages
        if isinstance(message["content"], list)
        for part in message["content"]
        if part["type"] == "image_url"
    ]


async def test_a_stored_jpeg_is_sent_as_its_own_bytes(
    server: RecordingServer, tmp_path: Path
) -> None:
    store = Store.open(str(tmp_path / "s.db"))
    jpeg = solid_image((10, 120, 200), (16, 8), "JPEG", quality=90)
    digest = store.put_image(jpeg)
    part = ImagePart.from_path(store.image_path(digest), sha256=digest)
    model = load_chat_model(f"openai/m?base_url={server.url}/v1")
    server.reply(_completion())
    text = 'Which colour? "quoted" and ünïcode'
    out = await model.generate([Message.user(text, part)], GenerationConfig(max_tokens=4))
    await model.aclose()
    assert out.text == "A"
    body = server.last.json()  # the spliced body is valid JSON
    (url,) = _image_urls(body)
    prefix = "data:image/jpeg;base64,"
    assert url.startswith(prefix)
    assert base64.b64decode(url[len(prefix) :]) == jpeg  # not re-encoded as PNG
    assert body["messages"][0]["content"][0] == {"type": "text", "text": text}
    assert b"lvlmbench-image-" not in server.last.body  # no placeholder left behind
    store.close()


async def test_the_data_url_is_built_once_per_image(
    server: RecordingServer, tmp_path: Path
) -> None:
    path = tmp_path / "picture.jpg"
    jpeg = solid_image((1, 2, 3), (16, 8), "JPEG", quality=90)
    path.write_bytes(jpeg)
    digest = hashlib.sha256(jpeg).hexdigest()  # as the store passes it for its images
    model = load_chat_model(f"openai/m?base_url={server.url}/v1")
    sent = []
    for _ in range(2):
        server.reply(_completion())
        part = ImagePart.from_path(path, sha256=digest)
        await model.generate([Message.user("Q?", part, part)], GenerationConfig(max_tokens=4))
        sent.append(_image_urls(server.last.json()))
        # The next request must not read the file again: it is gone, its data URL is not.
        path.unlink(missing_ok=True)
    await model.aclose()
    expected = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()
    assert sent == [[expected, expected], [expected, expected]]


def test_spliced_body_equals_the_plain_encoding() -> None:
    jpeg, other = (
        solid_image((200, 0, 0), (16, 8), "JPEG", quality=90),
        solid_image((0, 200, 0), (16, 8), "JPEG", quality=90),
    )
    messages = [
        Message.system("Be brief."),
        Message.user("Compare", ImagePart.from_bytes(jpeg), ImagePart.from_bytes(other)),
        Message.user("And this one again", ImagePart.from_bytes(jpeg)),
    ]
    splices: dict[str, str] = {}
    payload = {"model": "m", "messages": encode_messages(messages, splices), "max_tokens": 3}
    assert len(splices) == 3
    assert all(len(placeholder) < 80 for placeholder in splices)  # the encoder sees only these
    plain = {"model": "m", "messages": encode_messages(messages), "max_tokens": 3}
    assert json.loads(dumps_spliced(payload, splices)) == plain
    assert (
        dumps_spliced(plain, {})
        == json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode()
    )


def _fixed_png() -> bytes:
    """A 2x1 PNG assembled by hand, so no image library version can change its bytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + bytes([200, 30, 40, 10, 20, 30]))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_cache_key_of_a_fixed_request_is_unchanged() -> None:
    """Stores made before the wire changes must still hit: this key was computed by the code
    before them (lvlmbench at 83f761e) for this exact request."""
    client = ModelClient(load_chat_model("openai/m?base_url=http://127.0.0.1:8000/v1"), None)
    messages = [
        Message.system("Be brief."),
        Message.user("What colour?", ImagePart.from_bytes(_fixed_png())),
    ]
    key = client.cache_key(messages, GenerationConfig(max_tokens=16))
    assert key == "d630eb1f860f601a78c8b1130d0841f93880dc095311d2e4dde4d182dfc5b97e"


def test_canonical_json_writes_what_json_dumps_writes() -> None:
    """Every id and cache key is a hash of this text: the encoder built once must write it
    byte for byte as the json.dumps call it replaced."""
    values: list[object] = [
        {"b": 1, "a": [1.5, None, True, 'é\n"x\u2028'], "c": {"z": 1e300, "y": -0.0}},
        [1, 2, {"when": datetime.date(2020, 1, 2)}],  # default=str
        "plain",
        {"nan": float("nan")},
    ]
    for value in values:
        expected = json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        )
        assert canonical_json(value) == expected
    with pytest.raises(ValueError, match="not JSON compliant"):  # request bodies refuse NaN
        dumps_spliced({"temperature": float("nan")}, {})
