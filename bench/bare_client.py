"""The floor a client can reach against the fake server: bare aiohttp, bodies built before the
clock starts, C requests in flight, nothing stored or parsed beyond the status.

Measured in the same run as lvlmbench, against a fresh server process with the same seeded
latencies, it separates what the server and the loopback cost (the floor's distance from the
ideal) from what lvlmbench adds (lvlmbench / floor).
"""

from __future__ import annotations

import asyncio
import base64
import json
import time

import aiohttp

__all__ = ["bare_floor", "chat_bodies"]


def chat_bodies(n: int, pictures: list[bytes] | None = None) -> list[bytes]:
    """``n`` distinct chat requests, each with one of ``pictures`` (JPEG) when given."""
    urls = [f"data:image/jpeg;base64,{base64.b64encode(p).decode()}" for p in pictures or []]
    bodies = []
    for i in range(n):
        content: list[dict[str, object]] = [{"type": "text", "text": f"Question {i}? A B C D"}]
        if urls:
            content.append({"type": "image_url", "image_url": {"url": urls[i % len(urls)]}})
        message = {"role": "user", "content": content}
        body = {"model": "fake", "messages": [message], "max_tokens": 16}
        bodies.append(json.dumps(body).encode())
    return bodies


async def bare_floor(base_url: str, bodies: list[bytes], concurrency: int) -> float:
    """Wall seconds to send every body with ``concurrency`` in flight."""
    url = f"{base_url}/chat/completions"
    headers = {"Content-Type": "application/json", "Authorization": "Bearer bench"}
    pending = iter(bodies)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            for body in pending:
                async with session.post(url, data=body, headers=headers) as response:
                    await response.read()
                    if response.status != 200:
                        raise RuntimeError(f"floor client: HTTP {response.status}")

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started
