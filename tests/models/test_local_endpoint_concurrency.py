"""An OpenAI-compatible server on this machine or a private network (vLLM, SGLang) gets enough
calls in flight to fill its batches; a remote API keeps the default, and --concurrency wins."""

from __future__ import annotations

import asyncio

import pytest
from fake_openai_server import FakeOpenAIServer

from lvlmbench.models import DEFAULT_CONCURRENCY, ModelClient, load_chat_model
from lvlmbench.models.openai import LOCAL_CONCURRENCY, is_local_url
from lvlmbench.types import GenerationConfig, Message


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://localhost:8000/v1", True),
        ("http://127.0.0.1:8000/v1", True),
        ("http://[::1]:30000/v1", True),
        ("http://10.0.3.7:8000/v1", True),
        ("http://192.168.1.20/v1", True),
        ("http://172.16.0.9:8000/v1", True),
        ("http://[fd00::5]:8000/v1", True),
        ("http://vllm.localhost:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://8.8.8.8:8000/v1", False),
        ("http://gpu-box:8000/v1", False),  # a name is not resolved: not known to be local
        ("http://172.32.0.1:8000/v1", False),  # just past 172.16.0.0/12
    ],
)
def test_which_urls_are_local(url: str, local: bool) -> None:
    assert is_local_url(url) is local


def test_the_concurrency_each_endpoint_gets() -> None:
    local = load_chat_model("openai/m?base_url=http://127.0.0.1:8000/v1")
    assert ModelClient(local, None).concurrency == LOCAL_CONCURRENCY == 128
    two = load_chat_model("openai/m?base_url=http://10.0.0.1:8000/v1,http://10.0.0.2:8000/v1")
    assert ModelClient(two, None).concurrency == 2 * LOCAL_CONCURRENCY  # per replica
    assert ModelClient(local, None, concurrency=8).concurrency == 8  # --concurrency wins
    remote = load_chat_model("openai/m?base_url=https://example.com/v1")
    assert ModelClient(remote, None).concurrency == DEFAULT_CONCURRENCY == 16
    mixed = load_chat_model("openai/m?base_url=http://127.0.0.1:8000/v1,https://example.com/v1")
    assert ModelClient(mixed, None).concurrency == 2 * DEFAULT_CONCURRENCY


async def test_a_local_server_sees_its_batch_of_calls_in_flight() -> None:
    """200 calls to a server on 127.0.0.1 that answers after 0.3 s: 128 reach it at once
    (before, 16 did: a vLLM server decoded batches of 16)."""
    with FakeOpenAIServer(latency_s=0.3, concurrency=512) as server:
        client = ModelClient(load_chat_model(f"openai/m?base_url={server.base_url}"), None)
        config = GenerationConfig(max_tokens=4)
        try:
            outputs = await asyncio.gather(
                *(client.generate([Message.user(f"question {i}")], config) for i in range(200))
            )
        finally:
            await client.aclose()
        assert all(output.ok for output in outputs)
        assert server.stats.max_in_flight == LOCAL_CONCURRENCY
