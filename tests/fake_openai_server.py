"""A local OpenAI-compatible chat server with fixed latency, a concurrency cap and injected faults.

Used by the orchestration benchmarks (``bench/``) and the reliability tests. It speaks plain
HTTP/1.1 with keep-alive straight on asyncio protocols and timers, no stream or task per
request (it shares the benchmark machine's cores with the client it measures), and it
misbehaves on purpose at configurable rates: 429 with Retry-After, 500, replies slower than the
client's timeout, malformed JSON, truncated bodies and dropped connections. ``GET .../models``
(the client's preflight) is answered with a model list and counted apart (``stats.probes``).
With ``echo_key=True`` every answer carries the request's Authorization header back, in the
text and in a debug field, like a misconfigured gateway would. ``prompt_tokens`` computes the
usage each answer reports from the request's messages (default: 20 for any request), so a
server that drops images can be told from one that reads them.
Faults are drawn from a seeded generator, and a prompt that already failed
``max_faults_per_prompt`` times is answered normally, so a client that retries always gets
through eventually.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import selectors
import threading
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

__all__ = ["FakeOpenAIServer", "Faults", "latency_draws"]


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
    probes: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    per_prompt: Counter[str] = field(default_factory=Counter)
    answered: Counter[str] = field(default_factory=Counter)


def _answer(prompt: str) -> str:
    letter = "ABCD"[int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 4]
    return f"Answer: {letter}"


@cache
def _completion(text: str, prompt_tokens: int = 20) -> bytes:
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
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 3,
            "total_tokens": prompt_tokens + 3,
        },
    }
    return json.dumps(body).encode()


@cache
def _response(status: int, body: bytes, extra: str = "", length: int | None = None) -> bytes:
    reason = {200: "OK", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Busy"}[
        status
    ]
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body) if length is None else length}\r\n{extra}\r\n"
    )
    return head.encode() + body


def latency_draws(latency_s: float, sigma: float, seed: int, n: int) -> list[float]:
    """The latencies a server with these settings gives its first ``n`` answers, in order."""
    if sigma <= 0:
        return [latency_s] * n
    rng = random.Random(seed)
    return [rng.lognormvariate(math.log(latency_s), sigma) for _ in range(n)]


class FakeOpenAIServer:
    """Run with ``with FakeOpenAIServer(latency_s=0.05, concurrency=64) as server:``; the
    server lives on its own thread and event loop; ``server.base_url`` is the /v1 URL."""

    def __init__(
        self,
        latency_s: float = 0.0,
        concurrency: int = 64,
        faults: Faults | None = None,
        seed: int = 0,
        echo_key: bool = False,
        server_error_status: int = 500,
        answer: Callable[[str], str] = _answer,
        latency_sigma: float = 0.0,
        precise_timers: bool = False,
        prompt_tokens: Callable[[list[Any]], int] | None = None,
    ) -> None:
        self.latency_s = latency_s
        self.prompt_tokens = prompt_tokens
        # sigma > 0: each answer's latency is lognormal with median ``latency_s`` (a heavy
        # tail, like a shared GPU endpoint). The draws come from their own generator seeded
        # with ``seed``, in the order answers start, so a benchmark can replay the same
        # sequence to compute the ideal schedule (see latency_draws).
        self.latency_sigma = latency_sigma
        self._latency_rng = random.Random(seed)
        self.echo_key = echo_key
        self.server_error_status = server_error_status
        # Two servers with different rules stand for one model name on two endpoints.
        self.answer = answer
        self.concurrency = concurrency
        self.faults = faults or Faults()
        self.stats = _Stats()
        self._rng = random.Random(seed)
        self._loop = _event_loop(precise_timers)
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.AbstractServer | None = None
        self._connections: set[_Connection] = set()
        # Answers waiting for one of the ``concurrency`` slots, oldest first.
        self._queued: deque[tuple[_Connection, str, str]] = deque()
        # Prompt tokens to report per prompt (only with ``prompt_tokens``).
        self._tokens: dict[str, int] = {}
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
        self._server = await self._loop.create_server(
            lambda: _Connection(self), "127.0.0.1", 0, backlog=1024
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        assert self._server is not None
        self._server.close()
        # Connections still open (keep-alive, a slow reply) are closed here rather than left to
        # die with the loop, which would spray "Event loop is closed" warnings.
        for connection in list(self._connections):
            connection.close()
        self._queued.clear()

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

    def _handle(self, request: _Request, connection: _Connection) -> None:
        """Answer one request on ``connection``, now or from a timer."""
        if request.method == "GET" and request.path.endswith("/models"):
            self.stats.probes += 1
            listing = json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}]})
            connection.reply(_response(200, listing.encode()))
            return
        body = request.body
        echo = request.headers.get("authorization", "") if self.echo_key else ""
        messages = body.get("messages", [])
        prompt = json.dumps(messages[-1] if messages else {}, sort_keys=True)
        if self.prompt_tokens is not None:
            self._tokens[prompt] = self.prompt_tokens(messages)
        self.stats.requests += 1
        self.stats.per_prompt[prompt] += 1
        fault = self._fault(prompt)
        if fault is not None:
            self.stats.faults[fault] += 1
            self._misbehave(fault, connection)
        elif self.stats.in_flight < self.concurrency:
            self._begin(connection, prompt, echo)
        else:
            self._queued.append((connection, prompt, echo))

    def _begin(self, connection: _Connection, prompt: str, echo: str) -> None:
        self.stats.in_flight += 1
        self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
        latency = self.latency_s
        if self.latency_sigma > 0:
            latency = self._latency_rng.lognormvariate(math.log(latency), self.latency_sigma)
        connection.later(latency, self._finish, connection, prompt, echo)

    def _finish(self, connection: _Connection, prompt: str, echo: str) -> None:
        self.stats.in_flight -= 1
        self.stats.answered[prompt] += 1
        tokens = self._tokens.get(prompt, 20)
        if echo:
            body = json.loads(_completion(f"{self.answer(prompt)} (you sent {echo})", tokens))
            body["debug"] = {"request_headers": {"authorization": echo}}
            connection.reply(_response(200, json.dumps(body).encode()))
        else:
            connection.reply(_response(200, _completion(self.answer(prompt), tokens)))
        if self._queued:
            self._begin(*self._queued.popleft())

    def _misbehave(self, fault: str, connection: _Connection) -> None:
        if fault == "rate_limit":
            error = json.dumps({"error": {"message": "rate limited", "type": "requests"}})
            retry = f"retry-after: {self.faults.retry_after_s}\r\n"
            connection.reply(_response(429, error.encode(), retry))
        elif fault == "server_error":
            status = self.server_error_status
            connection.reply(_response(status, b'{"error": {"message": "boom"}}'))
        elif fault == "slow":
            reply = _response(200, _completion("Answer: A"))
            connection.later(self.faults.slow_s, connection.reply, reply)
        elif fault == "malformed":
            connection.reply(_response(200, b'{"choices": [ this is not json'))
        elif fault == "truncated":
            full = _completion("Answer: A")
            connection.reply(_response(200, full[: len(full) // 2], length=len(full)), keep=False)
        else:  # dropped: close without a word
            connection.close()


def _event_loop(precise_timers: bool) -> asyncio.AbstractEventLoop:
    """The server's loop. ``precise_timers``: wait in ``select()``, whose timeout is counted in
    microseconds, rather than in epoll's, which is rounded up to the next millisecond: every
    answer then left up to 1 ms late, 2-3 % of a 50 ms latency that no client could win back,
    so a benchmark measuring a client against the ideal N·L/C charged the server's clock to the
    client. select() takes descriptors below 1024 only: enough for a benchmark's connections,
    not the default for tests that may hold many descriptors open."""
    if precise_timers:
        return asyncio.SelectorEventLoop(selectors.SelectSelector())
    return asyncio.new_event_loop()


class _Connection(asyncio.Protocol):
    """One keep-alive connection: parses requests as bytes arrive and answers them in order."""

    def __init__(self, server: FakeOpenAIServer) -> None:
        self._server = server
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._requests: deque[_Request] = deque()
        self._busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._server._connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        # Timers still pending for this connection fire anyway and find it closed: an answer
        # whose client left must still give its concurrency slot back.
        self._server._connections.discard(self)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while (request := _take_request(self._buffer)) is not None:
            self._requests.append(request)
        self._next()

    def later(self, delay: float, callback: Any, *args: Any) -> None:
        """Run ``callback(*args)`` after ``delay`` seconds."""
        self._server._loop.call_later(delay, callback, *args)

    def reply(self, data: bytes, keep: bool = True) -> None:
        """Send one response; then close, or go on with the next request on this connection."""
        if self._transport is None or self._transport.is_closing():
            return
        self._transport.write(data)
        self._busy = False
        if keep:
            self._next()
        else:
            self.close()

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def _next(self) -> None:
        if self._busy or not self._requests:
            return
        self._busy = True
        self._server._handle(self._requests.popleft(), self)


@dataclass(frozen=True)
class _Request:
    method: str
    path: str
    headers: dict[str, str]
    """Names lower-cased."""
    body: dict[str, Any]


def _take_request(buffer: bytearray) -> _Request | None:
    """The first complete request (removed from ``buffer``), or None."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None
    request_line, *lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    method, path, *_ = request_line.split(" ")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length") or 0)
    start = end + 4
    if len(buffer) < start + length:
        return None
    payload = bytes(buffer[start : start + length]) if length else b"{}"
    del buffer[: start + length]
    parsed: dict[str, Any] = json.loads(payload)
    return _Request(method, path, headers, parsed)


def main() -> None:
    """Serve until killed (for benchmarks that want the server in its own process)."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="fake OpenAI-compatible server")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency-sigma", type=float, default=0.0, help="lognormal sigma")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--precise-timers",
        action="store_true",
        help="answer on microsecond timers (select) instead of epoll's millisecond ones",
    )
    args = parser.parse_args()
    latency = args.latency_ms / 1000
    with FakeOpenAIServer(
        latency,
        args.concurrency,
        seed=args.seed,
        latency_sigma=args.latency_sigma,
        precise_timers=args.precise_timers,
    ) as server:
        print(server.base_url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
