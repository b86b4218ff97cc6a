"""HEAD for every GET route: link checkers, uptime probes and ``curl -I`` use it, and FastAPI's
routes answer only the methods they declare (405 for HEAD)."""

from __future__ import annotations

from lvlmbench.web.security import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HeadAsGet"]


class HeadAsGet:
    """ASGI middleware: a HEAD request runs as GET and its response goes out without a body.
    The status and headers (Content-Length included) are the GET's, as HTTP asks."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
