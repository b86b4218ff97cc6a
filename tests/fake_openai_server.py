"""A local OpenAI-compatible chat server with fixed latency, a concurrency cap and injected faults.

Used by the orchestration benchmarks (``bench/``) and the reliability tests. It speaks plain
HTTP/1.1 with keep-alive on asyncio streams, so one process serves thousands of requests a
second, and it misbehaves on purpose at configurable rates: 429 with Retry-After, 500, replies
slower than the client's timeout, malformed JSON, truncated bodies and dropped connections.
Faults are drawn from a seeded generator, and a prompt that already failed
``max_faults_per_prompt`` times is answered normally, so a client that retries always gets
through eventually.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FakeOpenAIServer", "Faults"]


@dataclass(frozen=True)
class Faults:
    """Probability of each fault per request (they are exclusive; the rest are answered)."""

    rate_limit: float = 0.0
    server_error: float = 0.0
    slow: float = 0.0
    malformed: float = 0.0
    truncated: float = 0.0
    dropped: float = 0.0
    retry_after_s: float = 0.05
    slow_s: float = 5.0
    max_faults_per_prompt: int = 2


@dataclass
class _Stats:
    requests: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    per_prompt: Counter[str] = field(default_factory=Counter)
    answered: Counter[str] = field(default_factory=Counter)


def _answer(prompt: str) -> str:
    letter = "ABCD"[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 4]
    return f"Answer: {letter}"


def _completion(text: str) -> bytes:
    body = {
        "id": "fake",
        "object": "chat.completion",
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23},
    }
    return json.dumps(body).encode()


def _response(status: int, body: bytes, extra: str = "", length: int | None = None) -> bytes:
    reason = {200: "OK", 429: "Too Many Requests", 500: "Internal Server Error"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body) if length is None else length}\r\n{extra}\r\n"
    )
    return head.encode() + body


class FakeOpenAIServer:
    """Run with ``with FakeOpenAIServer(latency_s=0.05, concurrency=64) as server:``; the
    server lives on its own thread and event loop; ``server.base_url`` is the /v1 URL."""

    def __init__(
        self,
        latency_s: float = 0.0,
        concurrency: int = 64,
        faults: Faults | None = None,
        seed: int = 0,
    ) -> None:
        self.latency_s = latency_s
        self.concurrency = concurrency
        self.faults = faults or Faults()
        self.stats = _Stats()
        self._rng = random.Random(seed)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.AbstractServer | None = None
        self._limit: asyncio.Semaphore | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result()
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    async def _start(self) -> None:
        self._limit = asyncio.Semaphore(self.concurrency)
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        assert self._server is not None
        self._server.close()
        # Connections still open (keep-alive, a slow reply) are cancelled here rather than
        # left to die with the loop, which would spray "Event loop is closed" warnings.
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                keep = await self._handle(request, writer)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            self._handlers.discard(task)
            writer.close()

    def _fault(self, prompt: str) -> str | None:
        if self.stats.per_prompt[prompt] > self.faults.max_faults_per_prompt:
            return None
        draw = self._rng.random()
        for name in ("rate_limit", "server_error", "slow", "malformed", "truncated", "dropped"):
            rate = float(getattr(self.faults, name))
            if draw < rate:
                return name
            draw -= rate
        return None

    async def _handle(self, body: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        assert self._limit is not None
        messages = body.get("messages", [])
        prompt = json.dumps(messages[-1] if messages else {}, sort_keys=True)
        self.stats.requests += 1
        self.stats.per_prompt[prompt] += 1
        fault = self._fault(prompt)
        if fault is not None:
            self.stats.faults[fault] += 1
            return await self._misbehave(fault, writer)
        async with self._limit:
            self.stats.in_flight += 1
            self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
            try:
                if self.latency_s:
                    await asyncio.sleep(self.latency_s)
            finally:
                self.stats.in_flight -= 1
        self.stats.answered[prompt] += 1
        writer.write(_response(200, _completion(_answer(prompt))))
        await writer.drain()
        return True

    async def _misbehave(self, fault: str, writer: asyncio.StreamWriter) -> bool:
        if fault == "rate_limit":
            error = json.dumps({"error": {"message": "rate limited", "type": "requests"}})
            retry = f"retry-after: {self.faults.retry_after_s}\r\n"
            writer.write(_response(429, error.encode(), retry))
        elif fault == "server_error":
            writer.write(_response(500, b'{"error": {"message": "boom"}}'))
        elif fault == "slow":
            await asyncio.sleep(self.faults.slow_s)
            writer.write(_response(200, _completion("Answer: A")))
        elif fault == "malformed":
            writer.write(_response(200, b'{"choices": [ this is not json'))
        elif fault == "truncated":
            full = _completion("Answer: A")
            writer.write(_response(200, full[: len(full) // 2], length=len(full)))
            await writer.drain()
            return False
        else:  # dropped: close without a word
            return False
        await writer.drain()
        return True


async def _read_request(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return None
    length = 0
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    payload = await reader.readexactly(length) if length else b"{}"
    parsed: dict[str, Any] = json.loads(payload)
    return parsed


def main() -> None:
    """Serve until killed (for benchmarks that want the server in its own process)."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="fake OpenAI-compatible server")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    with FakeOpenAIServer(args.latency_ms / 1000, args.concurrency) as server:
        print(server.base_url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
