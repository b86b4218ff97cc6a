"""`lvlmbench serve` on a port it cannot listen on: one error line and exit 2, before it says
where the app is (it used to print "web app on http://…" and then fail in uvicorn, exit 1)."""

from __future__ import annotations

import socket

import pytest
from web.conftest import Fixture
from web.test_hardening import _serve


def test_serve_on_a_busy_port_says_so_before_announcing_anything(
    web_store: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["--port", str(port), "--store", web_store.store.url]
        result, served = _serve(args, {}, monkeypatch)
    assert result.exit_code == 2 and served is None
    assert f"cannot listen on 127.0.0.1:{port}: the port is already in use" in result.output
    assert "--port" in result.output
    assert "web app on" not in result.output


def test_serve_on_a_free_port_announces_it(
    web_store: Fixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    result, served = _serve(["--port", str(port), "--store", web_store.store.url], {}, monkeypatch)
    assert result.exit_code == 0 and served is not None
    assert f"web app on http://127.0.0.1:{port}/" in result.output
