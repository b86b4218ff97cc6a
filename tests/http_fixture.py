"""A real HTTP server on 127.0.0.1 for provider tests: records requests, replies from a script.

The providers talk plain HTTP through httpx, so testing them against a real socket checks what
actually goes over the wire (paths, headers, JSON bodies) rather than what a mock was told.
"""

from __future__ import annotations

import json
import threading
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Answer", "ChatRecorder", "Recorded", "RecordingServer", "Reply", "chat_completion"]


@dataclass(frozen=True)
class Reply:
    """One scripted response. A dict or list body is sent as JSON, bytes as they are."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    """Send only this many body bytes (the Content-Length still announces them all), then
    drop the connection: a download that breaks off."""

    def encode(self) -> tuple[bytes, str]:
        """Body bytes and their content type."""
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode(), "text/plain; charset=utf-8"
        return json.dumps(self.body if self.body is not None else {}).encode(), "application/json"


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    """Path including any query string."""
    headers: dict[str, str]
    """Header names lower-cased."""
    body: bytes

    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


class RecordingServer:
    """``ThreadingHTTPServer`` on a free port in a background thread.

    Replies come from a FIFO queue filled with :meth:`reply`; a request with nothing queued gets
    HTTP 418 (not retried by the clients under test), so a missing script fails fast instead of
    hanging or retrying.
    """

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        # A short poll interval: shutdown() waits for the loop to notice, 0.5 s by default.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:54321``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def reply(
        self,
        body: Any = None,
        status: int = 200,
        headers: dict[str, str] | None = None,
        cut_after: int | None = None,
    ) -> None:
        """Queue a response for the next unanswered request."""
        with self._lock:
            self._replies.append(Reply(status, body, headers or {}, cut_after))

    @property
    def last(self) -> Recorded:
        """The most recent request."""
        with self._lock:
            return self.requests[-1]

    def start(self) -> RecordingServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> RecordingServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answer(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            if self._replies:
                return self._replies.popleft()
        message = f"no scripted reply for {recorded.method} {recorded.path}"
        return Reply(418, {"error": {"message": message}})

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as httpx pools connections

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = server._answer(Recorded(self.command, self.path, headers, body))
                payload, content_type = reply.encode()
                self.send_response(reply.status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload[: reply.cut_after])
                if reply.cut_after is not None:
                    self.close_connection = True

            do_GET = do_POST = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep pytest output clean

        return Handler


Answer = Callable[[dict[str, Any], int], tuple[str, str]]
"""(request body, how often this prompt was asked before) -> (reply text, finish reason)."""


class ChatRecorder(RecordingServer):
    """An OpenAI-compatible chat server: a RecordingServer that answers every chat completion
    from a function (and the preflight GET with a 404), so any number of requests needs no
    script."""

    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self.answer = answer
        self.asked: Counter[str] = Counter()
        self._count_lock = threading.Lock()

    def _answer(self, recorded: Recorded) -> Reply:
        if recorded.method == "GET":
            return Reply(404, {"error": {"message": "no such route"}})
        body = recorded.json()
        prompt = json.dumps(body["messages"], sort_keys=True)
        with self._count_lock:
            self.requests.append(recorded)
            seen = self.asked[prompt]
            self.asked[prompt] += 1
        text, finish = self.answer(body, seen)
        return Reply(200, chat_completion(text, finish))

    @property
    def chats(self) -> list[dict[str, Any]]:
        """Bodies of the chat requests so far."""
        return [r.json() for r in list(self.requests)]


def chat_completion(text: str, finish: str = "stop") -> dict[str, Any]:
    """An OpenAI chat completion body answering ``text``."""
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27},
    }
