"""Anthropic's Messages API over plain HTTP (no SDK: one retry policy for every provider).

Options: ``base_url`` (default https://api.anthropic.com; the client appends ``/v1/messages``),
``api_key_env`` (environment variable holding the key, default ANTHROPIC_API_KEY; a custom
base_url such as a local proxy may run without one), ``timeout`` seconds.

Structured output: the classic Messages API has no JSON-schema response format, so a schema is
sent as one tool the model is forced to call; the tool's input, serialised as JSON, becomes the
output text that :class:`~lvlmbench.models.ModelClient` validates.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from lvlmbench.models.providers import (
    EncodedImages,
    ErrorKind,
    HttpClient,
    HttpResponse,
    ProviderError,
    base64_text,
    classify_response,
    error_payload,
    hosted_key,
    post_json,
    probe,
    redact_data,
    scrub_key,
    split_credentials,
    to_png,
)
from lvlmbench.types import (
    GenerationConfig,
    ImagePart,
    Message,
    ModelOutput,
    Status,
    TextPart,
    Usage,
)

__all__ = ["AnthropicChatModel", "create", "encode_messages"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
API_VERSION = "2023-06-01"
JSON_TOOL = "answer"
"""Name of the forced tool that carries structured output."""

_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
# Anthropic reports an exhausted spend cap as a 429 and an empty balance as a 400; neither heals
# by waiting, so both are re-labelled 402 (payment required) and stop the run.
_SPEND_CODES = frozenset({"enforced_spend_limit_reached"})
_PAYMENT_HINT = "the account has no credit or reached its spend limit"


def _encoded(part: ImagePart) -> tuple[str, str]:
    data, media_type = part.read_bytes(), part.media_type()
    if media_type not in _MEDIA_TYPES:
        # BMP, TIFF...: the API takes only four formats. Undecodable bytes go as they are and
        # the server's 400 records the item as failed.
        converted = to_png(data)
        if converted is not None:
            data, media_type = converted, "image/png"
    return media_type, base64_text(data)


_ENCODED = EncodedImages(_encoded)


def _image_block(part: ImagePart) -> dict[str, Any]:
    media_type, data = _ENCODED.get(part)
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def encode_messages(messages: list[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """The top-level ``system`` text (None if no system message) and the turns in the Messages
    wire format. Several system messages are joined by blank lines, in order."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message.text())
            continue
        blocks = [
            {"type": "text", "text": p.text} if isinstance(p, TextPart) else _image_block(p)
            for p in message.content
        ]
        turns.append({"role": message.role, "content": blocks})
    return ("\n\n".join(system) if system else None), turns


def _json_tool(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The forced tool for ``schema`` and whether the schema had to be wrapped: a tool's input
    must be an object, so any other schema becomes the ``value`` property of one."""
    wrapped = schema.get("type") != "object"
    input_schema = (
        {"type": "object", "properties": {"value": schema}, "required": ["value"]}
        if wrapped
        else schema
    )
    tool = {
        "name": JSON_TOOL,
        "description": "Give the answer as arguments that match the input schema exactly.",
        "input_schema": input_schema,
    }
    return tool, wrapped


def classify_anthropic(
    response: HttpResponse, what: str, unsupported: tuple[str, ...]
) -> ProviderError:
    """:func:`classify_response`, plus Anthropic's billing errors, which never heal by waiting."""
    error = classify_response(response, what, unsupported)
    payload = error_payload(response)
    details = payload.get("details")
    code = details.get("error_code") if isinstance(details, dict) else None
    message = str(payload.get("message", "")).lower()
    if code in _SPEND_CODES or "credit balance" in message:
        return ProviderError(
            str(error.args[0]), ErrorKind.FATAL, status_code=402, hint=_PAYMENT_HINT
        )
    return error


class AnthropicChatModel:
    """Claude models through ``POST {base_url}/v1/messages``."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str = DEFAULT_KEY_ENV,
        timeout: float = 120.0,
    ) -> None:
        self.name = name
        self.spec = f"anthropic/{name}"
        # Credentials in the URL are sent as basic auth and never shown, stored or keyed on.
        endpoint = split_credentials(base_url.rstrip("/"))
        self.base_url = endpoint.url
        self._auth = endpoint.auth
        self.endpoint = self.base_url
        self._api_key = hosted_key(
            self.spec,
            api_key_env,
            hosted=self.base_url == DEFAULT_BASE_URL,
            hint=f"set {api_key_env}, or pass base_url=... for a proxy that needs none",
        )
        self._api_key_env = api_key_env
        self._client = HttpClient(timeout)

    def cache_identity(self) -> dict[str, object]:
        return {"provider": "anthropic", "model": self.name, "base_url": self.base_url}

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", "anthropic-version": API_VERSION}
        headers.update(self._auth)
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def _payload(
        self, messages: list[Message], config: GenerationConfig
    ) -> tuple[dict[str, Any], bool]:
        """The request body and whether a structured answer is wrapped in ``value``."""
        system, turns = encode_messages(messages)
        payload: dict[str, Any] = {
            "model": self.name,
            "max_tokens": config.max_tokens,
            "messages": turns,
            "temperature": config.temperature,
        }
        if system is not None:
            payload["system"] = system
        if config.top_p is not None:
            payload["top_p"] = config.top_p
        if config.stop:
            payload["stop_sequences"] = list(config.stop)
        # config.seed: the API has no seed; it stays in the cache key, which is what matters.
        if config.params:  # --param: Anthropic's own fields (thinking...), unchecked
            payload.update(config.params)
        wrapped = False
        if config.json_schema is not None:
            tool, wrapped = _json_tool(config.json_schema)
            payload["tools"] = [tool]
            payload["tool_choice"] = {"type": "tool", "name": JSON_TOOL}
        return payload, wrapped

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        payload, wrapped = self._payload(messages, config)
        started = time.perf_counter()
        try:
            body = await post_json(
                self._client,
                f"{self.base_url}/v1/messages",
                payload,
                headers=self._headers(),
                what=self.spec,
                classify=classify_anthropic,
            )
        except ProviderError as exc:
            raise self._scrub(exc) from None
        body = redact_data(body)  # an echoed key, masked where it can be (see redact_data)
        tool = JSON_TOOL if config.json_schema is not None else None
        return _parse_message(body, time.perf_counter() - started, self.spec, tool, wrapped)

    def _scrub(self, exc: ProviderError) -> ProviderError:
        """``exc`` without the key in its message, with hints that fit this provider."""
        hint = "check the model name and that base_url does not end in /v1"
        return scrub_key(
            exc,
            self._api_key,
            self._api_key_env,
            not_found_hint=hint,
            url_credentials=bool(self._auth),
        )

    async def check(self) -> None:
        """Preflight: GET {base_url}/v1/models (any HTTP answer shows the server is up)."""
        await probe(
            self._client, f"{self.base_url}/v1/models", what=self.spec, headers=self._headers()
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def _answer_text(content: list[Any], tool: str | None, wrapped: bool) -> str:
    """The forced tool's input as JSON when asked for structure, else the text blocks joined."""
    blocks = [b for b in content if isinstance(b, dict)]
    if tool is not None:
        for block in blocks:
            if block.get("type") == "tool_use" and block.get("name") == tool:
                value = block.get("input")
                if wrapped and isinstance(value, dict):
                    value = value.get("value")
                return json.dumps(value, ensure_ascii=False)
    # No tool call (e.g. cut off by max_tokens): whatever text came back goes to the tolerant
    # extraction and re-ask in the client rather than being guessed at here.
    return "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def _parse_message(
    body: dict[str, Any], latency: float, what: str, tool: str | None, wrapped: bool
) -> ModelOutput:
    content = body.get("content")
    if not isinstance(content, list):
        raise ProviderError(f"{what}: reply has no content", ErrorKind.TRANSIENT)
    usage = body.get("usage") or {}
    stop = body.get("stop_reason")
    refused = stop == "refusal"
    return ModelOutput(
        text=_answer_text(content, tool, wrapped),
        usage=Usage(
            # Prompt-cache reads and writes are input tokens too, reported apart.
            input_tokens=int(usage.get("input_tokens") or 0)
            + int(usage.get("cache_creation_input_tokens") or 0)
            + int(usage.get("cache_read_input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
        ),
        latency_s=latency,
        finish_reason=stop,
        status=Status.REFUSED if refused else Status.OK,
        reason="the model declined to answer (stop_reason=refusal)" if refused else None,
        raw=body,
    )


def create(name: str, options: Mapping[str, str]) -> AnthropicChatModel:
    """Registry factory: ``anthropic/<model>`` with options base_url, api_key_env, timeout."""
    return AnthropicChatModel(
        name,
        base_url=options.get("base_url", DEFAULT_BASE_URL),
        api_key_env=options.get("api_key_env", DEFAULT_KEY_ENV),
        timeout=float(options.get("timeout", 120.0)),
    )
