"""OpenAI and every OpenAI-compatible chat server (vLLM, SGLang, Ollama, llama.cpp, LM Studio).

Options: ``base_url`` (default https://api.openai.com/v1), ``api_key_env`` (name of the
environment variable holding the key, default OPENAI_API_KEY; a local server needs none),
``timeout`` seconds, ``json_mode`` (``json_schema``, ``json_object`` or ``none``: how to ask for
structured output; by default json_schema first, falling back when the server refuses it).

``base_url`` may list several URLs joined by ``,``: replicas of one deployment (vLLM, SGLang).
Each call goes to the replica with the fewest calls in flight; one that fails server-side is
taken out for a cool-down and the call moves to another at once (:mod:`._replicas`). The
answers are one model's: its identity and cache key name the ``deployment=NAME`` when given,
else the first URL, never the replica that answered.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from lvlmbench.models._api import ErrorKind, ProviderError
from lvlmbench.models._endpoint import split_credentials
from lvlmbench.models._http import HttpClient, post_json, probe
from lvlmbench.models._replicas import Replica, ReplicaSet, replica_failed
from lvlmbench.models._secrets import read_secret, redact_text
from lvlmbench.models.providers import EncodedImages, base64_text, bearer_headers
from lvlmbench.types import (
    GenerationConfig,
    ImagePart,
    Message,
    ModelOutput,
    Status,
    TextPart,
    Usage,
)

__all__ = ["LOCAL_CONCURRENCY", "OpenAIChatModel", "create", "encode_messages", "is_local_url"]

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_CONCURRENCY = 128
"""Calls in flight per replica, unless ``--concurrency`` says otherwise, for a server on this
machine or a private network (vLLM, SGLang): such a server decodes every sequence it is sent
in one batch (vLLM up to ``--max-num-seqs``), so the 16 a remote API gets would starve it."""
_JSON_MODES = ("json_schema", "json_object", "none")


def _data_url(part: ImagePart) -> tuple[str, str]:
    media_type = part.media_type()
    return media_type, f"data:{media_type};base64,{base64_text(part.read_bytes())}"


_DATA_URLS = EncodedImages(_data_url)

# Stands in for a data URL in the payload until the body is serialised (see encode_messages).
# Random per process, so no text a user sends can contain it; plain ASCII letters, digits and
# dashes, so JSON writes it unescaped, exactly as it is looked for.
_PLACEHOLDER = f"lvlmbench-image-{secrets.token_hex(16)}-"


def _image_url(part: ImagePart, splices: dict[str, str] | None) -> str:
    _, url = _DATA_URLS.get(part)
    if splices is None:
        return url
    placeholder = f"{_PLACEHOLDER}{len(splices)}"
    splices[placeholder] = url
    return placeholder


def encode_messages(
    messages: list[Message], splices: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Messages in the chat-completions wire format; text-only turns stay plain strings so
    text-only servers (llama.cpp without a projector) accept them.

    With ``splices``, each image's data URL is left out: a short placeholder stands in its place
    and ``splices`` maps it to the URL, for the body writer to splice in verbatim. A 512² image
    is ~60 KB to 0.5 MB of base64 that JSON would otherwise scan for characters to escape in
    every request (the largest part of the client's CPU per request with images).
    """
    encoded: list[dict[str, Any]] = []
    for message in messages:
        if all(isinstance(p, TextPart) for p in message.content):
            encoded.append({"role": message.role, "content": message.text()})
            continue
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                parts.append({"type": "text", "text": part.text})
            else:
                url = _image_url(part, splices)
                parts.append({"type": "image_url", "image_url": {"url": url}})
        encoded.append({"role": message.role, "content": parts})
    return encoded


def _response_format(schema: dict[str, Any], mode: str) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": False},
        }
    if mode == "json_object":
        # llama.cpp's server constrains decoding with this "schema" extension field.
        return {"type": "json_object", "schema": schema}
    return None


class OpenAIChatModel:
    """Chat completions over HTTP."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 120.0,
        json_mode: str | None = None,
        max_tokens: int | None = None,
        deployment: str | None = None,
    ) -> None:
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer, got {max_tokens}")
        self.max_tokens_cap = max_tokens
        if json_mode is not None and json_mode not in _JSON_MODES:
            raise ValueError(
                f"json_mode must be one of {', '.join(_JSON_MODES)}, got {json_mode!r}"
            )
        self.name = name
        self.spec = f"openai/{name}"
        # Credentials in a URL are sent as basic auth and never shown, stored or keyed on.
        endpoints = [split_credentials(url.strip().rstrip("/")) for url in base_url.split(",")]
        urls = [endpoint.url for endpoint in endpoints]
        self._auth = {endpoint.url: endpoint.auth for endpoint in endpoints}
        self.base_url = urls[0]
        self.deployment = deployment
        self.replicas = ReplicaSet(urls)
        self.replica_count = len(urls)
        """Replicas serving this model: the client allows its concurrency on each."""
        self.default_concurrency = (
            LOCAL_CONCURRENCY if all(is_local_url(url) for url in urls) else None
        )
        """Calls in flight per replica when the caller names none (None: the client's)."""
        self.endpoint = ",".join(urls)
        self._api_key = read_secret(api_key_env)
        self._api_key_env = api_key_env
        self._json_modes = [json_mode] if json_mode else ["json_schema", "json_object", "none"]
        self._client = HttpClient(timeout)
        if self.base_url == DEFAULT_BASE_URL and not self._api_key:
            raise ProviderError(
                f"openai/{name}: no API key",
                ErrorKind.FATAL,
                hint=f"set {api_key_env}, or pass base_url=... for a local server",
            )

    def cache_identity(self) -> dict[str, object]:
        identity: dict[str, object] = {
            "provider": "openai",
            "model": self.name,
        }
        # The deployment, never the replica that answers: every replica gives one model's
        # answers, and a single URL keeps the key it always had.
        if self.deployment is not None:
            identity["deployment"] = self.deployment
        else:
            identity["base_url"] = self.base_url
        if self.max_tokens_cap is not None:  # a cap can cut replies short: part of the output
            identity["max_tokens_cap"] = self.max_tokens_cap
        return identity

    def _headers(self, url: str) -> dict[str, str]:
        return bearer_headers(self._api_key, self._auth[url])

    def _payload(
        self, messages: list[Message], config: GenerationConfig, splices: dict[str, str]
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.name,
            "messages": encode_messages(messages, splices),
            "temperature": config.temperature,
            "max_tokens": min(config.max_tokens, self.max_tokens_cap or config.max_tokens),
        }
        if config.top_p is not None:
            payload["top_p"] = config.top_p
        if config.seed is not None:
            payload["seed"] = config.seed
        if config.stop:
            payload["stop"] = list(config.stop)
        if config.params:  # --param: the server's own fields (reasoning_effort...), unchecked
            payload.update(config.params)
        return payload

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        splices: dict[str, str] = {}
        payload = self._payload(messages, config, splices)
        while True:
            mode = self._json_modes[0] if config.json_schema is not None else "none"
            fmt = _response_format(config.json_schema, mode) if config.json_schema else None
            if fmt is not None:
                payload["response_format"] = fmt
            else:
                payload.pop("response_format", None)
            try:
                return await self._post(payload, splices)
            except ProviderError as exc:
                # Remember a refused structured-output mode for the rest of this model's life so
                # later calls go straight to the one that works.
                if exc.kind is ErrorKind.UNSUPPORTED and len(self._json_modes) > 1 and fmt:
                    self._json_modes.pop(0)
                    continue
                if exc.kind is ErrorKind.UNSUPPORTED:
                    exc.kind = ErrorKind.FATAL
                raise

    async def _post(self, payload: dict[str, Any], splices: dict[str, str]) -> ModelOutput:
        """One request; a replica that fails server-side is taken out and the request goes to
        another in rotation at once (no backoff: the fault was that replica's). When none is
        left the error goes to the client's retries like a single endpoint's."""
        tried: set[str] = set()
        while True:
            replica = self.replicas.pick(frozenset(tried))
            try:
                return await self._post_to(replica, payload, splices)
            except ProviderError as exc:
                if self.replica_count == 1 or not replica_failed(exc):
                    raise
                self.replicas.failed(replica, str(exc.args[0]))
                tried.add(replica.url)
                if not self.replicas.has_other(frozenset(tried)):
                    raise

    async def _post_to(
        self, replica: Replica, payload: dict[str, Any], splices: dict[str, str]
    ) -> ModelOutput:
        started = time.perf_counter()
        replica.in_flight += 1
        try:
            body = await post_json(
                self._client,
                f"{replica.url}/chat/completions",
                payload,
                headers=self._headers(replica.url),
                what=self.spec,
                splices=splices,
                unsupported=("response_format", "json_schema")
                if "response_format" in payload
                else (),
            )
        except ProviderError as exc:
            exc.args = (redact_text(str(exc.args[0])),)
            if exc.status_code == 401 and self._auth[replica.url]:
                exc.hint = "check the user and password written into base_url"
            raise
        finally:
            replica.in_flight -= 1
        self.replicas.succeeded(replica)
        return _parse_completion(body, time.perf_counter() - started, self.spec)

    async def check(self) -> None:
        """Preflight: GET {base_url}/models on every replica; a server without that route
        answers 404, which still shows it is up. The run starts when one replica answers: the
        dead ones are named in a warning and taken out for their cool-down."""
        probes = [
            probe(self._client, f"{r.url}/models", what=self.spec, headers=self._headers(r.url))
            for r in self.replicas.replicas
        ]
        results = await asyncio.gather(*probes, return_exceptions=True)
        dead: list[tuple[Replica, ProviderError]] = []
        for replica, result in zip(self.replicas.replicas, results, strict=True):
            if isinstance(result, ProviderError):
                dead.append((replica, result))
            elif isinstance(result, BaseException):
                raise result
        if len(dead) == len(results):
            raise dead[0][1] if len(dead) == 1 else _none_reachable(self.spec, dead)
        for replica, error in dead:
            self.replicas.failed(replica, str(error))
        if dead:
            names = ", ".join(r.url for r, _ in dead)
            log.warning(
                "%s: %d of %d replicas unreachable, running on the others: %s",
                self.spec,
                len(dead),
                len(results),
                names,
            )

    async def aclose(self) -> None:
        await self._client.aclose()


def is_local_url(url: str) -> bool:
    """Whether ``url`` names this machine or a private network: ``localhost``, a loopback,
    private or link-local address (a host name is not resolved: only these are known local)."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:  # an unparsable URL is no known local server
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local


def _none_reachable(spec: str, dead: list[tuple[Replica, ProviderError]]) -> ProviderError:
    first = dead[0][1]
    urls = ", ".join(replica.url for replica, _ in dead)
    return ProviderError(
        f"{spec}: cannot reach any of its {len(dead)} replicas ({urls}); first: {first}",
        ErrorKind.FATAL,
        hint=first.hint,
    )


def _parse_completion(body: dict[str, Any], latency: float, what: str) -> ModelOutput:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ProviderError(f"{what}: reply has no choices", ErrorKind.TRANSIENT)
    choice = choices[0]
    message = choice.get("message") or {}
    text = message.get("content") or ""
    usage = body.get("usage") or {}
    finish = choice.get("finish_reason")
    refusal = message.get("refusal")
    return ModelOutput(
        text=text,
        usage=Usage(
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
        ),
        latency_s=latency,
        finish_reason=finish,
        status=Status.REFUSED if refusal or finish == "content_filter" else Status.OK,
        reason=str(refusal) if refusal else None,
        raw=body,
    )


def create(name: str, options: Mapping[str, str]) -> OpenAIChatModel:
    """Registry factory: ``openai/<model>`` with options base_url, api_key_env, timeout,
    json_mode, deployment (the name replicas listed in base_url are stored under) and
    max_tokens (a cap on every request's reply length: cost control, or a small
    local model that would otherwise ramble to the stage's limit)."""
    cap = options.get("max_tokens")
    if cap is not None and not cap.isdigit():
        raise ProviderError(
            f"openai/{name}: max_tokens must be a positive integer, got {cap!r}", ErrorKind.FATAL
        )
    return OpenAIChatModel(
        name,
        base_url=options.get("base_url", DEFAULT_BASE_URL),
        api_key_env=options.get("api_key_env", "OPENAI_API_KEY"),
        timeout=float(options.get("timeout", 120.0)),
        json_mode=options.get("json_mode"),
        max_tokens=int(cap) if cap is not None else None,
        deployment=options.get("deployment"),
    )
