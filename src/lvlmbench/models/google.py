"""Google's Gemini API (``generateContent``) over plain HTTP.

Options: ``base_url`` (default https://generativelanguage.googleapis.com; the client appends
``/v1beta/models/<model>:generateContent``), ``api_key_env`` (default GOOGLE_API_KEY, with
GEMINI_API_KEY as a fallback when the default is used; a custom base_url may run without a key),
``timeout`` seconds, ``json_mode`` (``json_schema``: responseJsonSchema, ``openapi``:
responseSchema, ``json``: only responseMimeType; by default the first that the server accepts)
and ``thinking_budget`` (tokens a thinking model may spend before answering; 0 turns thinking
off where the model allows it).

The key travels in the ``x-goog-api-key`` header, never in the URL: URLs end up in logs,
tracebacks and error messages.
"""

from __future__ import annotations

import re
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
    parse_retry_after,
    post_json,
    probe,
    read_secret,
    redact_data,
    require_key,
    scrub_key,
    split_credentials,
    to_png,
)
from lvlmbench.types import GenerationConfig, ImagePart, Message, ModelOutput, Status, Usage

__all__ = ["GoogleChatModel", "classify_google", "create", "encode_messages"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
DEFAULT_KEY_ENV = "GOOGLE_API_KEY"
FALLBACK_KEY_ENV = "GEMINI_API_KEY"
JSON_MODES = ("json_schema", "openapi", "json")

_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})
# Finish and block reasons that mean "filtered", not "failed": recorded as refusals.
_REFUSAL_REASONS = frozenset(
    {"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION", "IMAGE_SAFETY"}
)
# Words in a 400 body that mean the server refused the structured-output field itself.
_SCHEMA_WORDS = (
    "responseJsonSchema",
    "response_json_schema",
    "responseSchema",
    "response_schema",
    "JSON schema",
)
# Keys the OpenAPI-subset ``responseSchema`` understands; anything else is a 400.
# fmt: off
_OPENAPI_KEYS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "items", "properties",
    "required", "anyOf", "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength",
    "pattern", "propertyOrdering",
})
# fmt: on


def _encoded(part: ImagePart) -> tuple[str, str]:
    data, media_type = part.read_bytes(), part.media_type()
    if media_type not in _MEDIA_TYPES:
        # GIF, BMP...: Gemini takes PNG/JPEG/WEBP/HEIC. Undecodable bytes go as they are and the
        # server's 400 records the item as failed.
        converted = to_png(data)
        if converted is not None:
            data, media_type = converted, "image/png"
    return media_type, base64_text(data)


_ENCODED = EncodedImages(_encoded)


def _image_part(part: ImagePart) -> dict[str, Any]:
    media_type, data = _ENCODED.get(part)
    return {"inline_data": {"mime_type": media_type, "data": data}}


def encode_messages(messages: list[Message]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The ``systemInstruction`` (None without system messages) and the ``contents`` turns;
    the assistant role is called ``model`` on this API."""
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append({"text": message.text()})
            continue
        parts = [
            _image_part(p) if isinstance(p, ImagePart) else {"text": p.text}
            for p in message.content
        ]
        role = "model" if message.role == "assistant" else "user"
        contents.append({"role": role, "parts": parts})
    return ({"parts": system} if system else None), contents


def openapi_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` reduced to the OpenAPI subset of ``responseSchema``: ``$ref`` inlined from
    ``$defs``, ``anyOf [X, null]`` turned into a nullable X, unknown keys dropped."""
    defs = schema.get("$defs", {})

    def convert(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return convert(defs.get(ref.rsplit("/", 1)[1], {}))
        options = node.get("anyOf")
        if isinstance(options, list):
            rest = [o for o in options if o != {"type": "null"}]
            if len(rest) == 1 and len(rest) < len(options):
                return {**convert(rest[0]), "nullable": True}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key not in _OPENAPI_KEYS:
                continue
            if key == "properties":
                out[key] = {name: convert(sub) for name, sub in value.items()}
            elif key == "anyOf":
                out[key] = [convert(sub) for sub in value]
            else:
                out[key] = convert(value)
        return out

    result: dict[str, Any] = convert(schema)
    return result


def _json_config(schema: dict[str, Any], mode: str) -> dict[str, Any]:
    config: dict[str, Any] = {"responseMimeType": "application/json"}
    if mode == "json_schema":
        config["responseJsonSchema"] = schema
    elif mode == "openapi":
        config["responseSchema"] = openapi_schema(schema)
    return config


def _retry_delay(details: list[Any]) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail (``"24s"``, ``"1.5s"``), if any."""
    for detail in details:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = re.fullmatch(r"\s*([0-9.]+)s\s*", str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def _is_daily_or_zero_quota(details: list[Any], message: str) -> bool:
    """A quota that waiting minutes will not restore: per-day, or a limit of 0 (the model is
    not available on this tier)."""
    if "limit: 0" in message:
        return True
    return any(
        "PerDay" in str(violation.get("quotaId", ""))
        for detail in details
        if isinstance(detail, dict)
        for violation in detail.get("violations", [])
        if isinstance(violation, dict)
    )


def classify_google(
    response: HttpResponse, what: str, unsupported: tuple[str, ...]
) -> ProviderError:
    """:func:`classify_response`, corrected with what Gemini's error details say.

    A 429's message always says "quota", which the generic rule reads as an empty account; on
    Gemini it is usually the per-minute limit, which heals after the RetryInfo delay. A bad key
    comes back as 400 API_KEY_INVALID; it is re-labelled 401 so the run stops like elsewhere.
    """
    error = classify_response(response, what, unsupported)
    payload = error_payload(response, unwrap_list=True)
    details = payload.get("details")
    details = details if isinstance(details, list) else []
    message = str(error.args[0])
    if any(isinstance(d, dict) and d.get("reason") == "API_KEY_INVALID" for d in details):
        return ProviderError(message, ErrorKind.FATAL, status_code=401)
    if response.status_code == 429:
        if _is_daily_or_zero_quota(details, str(payload.get("message", ""))):
            return ProviderError(
                message,
                ErrorKind.FATAL,
                status_code=402,
                hint="the daily quota of this key is spent (or the model is not on its tier)",
            )
        retry_after = _retry_delay(details)
        if retry_after is None:
            retry_after = parse_retry_after(response.headers.get("retry-after"))
        return ProviderError(message, ErrorKind.TRANSIENT, status_code=429, retry_after=retry_after)
    return error


class GoogleChatModel:
    """Gemini models through ``POST {base_url}/v1beta/models/{model}:generateContent``."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str = DEFAULT_KEY_ENV,
        timeout: float = 120.0,
        json_mode: str | None = None,
        thinking_budget: int | None = None,
    ) -> None:
        if json_mode is not None and json_mode not in JSON_MODES:
            raise ValueError(f"json_mode must be one of {', '.join(JSON_MODES)}, got {json_mode!r}")
        self.name = name.removeprefix("models/")
        self.spec = f"google/{self.name}"
        # Credentials in the URL are sent as basic auth and never shown, stored or keyed on.
        endpoint = split_credentials(base_url.rstrip("/"))
        self.base_url = endpoint.url
        self._auth = endpoint.auth
        self.endpoint = self.base_url
        self.thinking_budget = thinking_budget
        self._api_key_env = api_key_env
        self._api_key = read_secret(api_key_env)
        if not self._api_key and api_key_env == DEFAULT_KEY_ENV:
            self._api_key_env = FALLBACK_KEY_ENV
            self._api_key = read_secret(FALLBACK_KEY_ENV)
        hint = f"set {api_key_env}"
        if api_key_env == DEFAULT_KEY_ENV:
            hint += f" (or {FALLBACK_KEY_ENV})"
        hosted = self.base_url == DEFAULT_BASE_URL
        require_key(self.spec, self._api_key, hosted=hosted, hint=f"{hint}, or pass base_url=...")
        self._json_modes = [json_mode] if json_mode else list(JSON_MODES)
        self._client = HttpClient(timeout)

    def cache_identity(self) -> dict[str, object]:
        identity: dict[str, object] = {
            "provider": "google",
            "model": self.name,
            "base_url": self.base_url,
        }
        if self.thinking_budget is not None:  # changes the answer, so it splits the cache
            identity["thinking_budget"] = self.thinking_budget
        return identity

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json", **self._auth}
        if self._api_key:
            headers["x-goog-api-key"] = self._api_key
        return headers

    def _generation_config(self, config: GenerationConfig, mode: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "temperature": config.temperature,
            "maxOutputTokens": config.max_tokens,
        }
        if config.top_p is not None:
            out["topP"] = config.top_p
        if config.seed is not None:
            out["seed"] = config.seed
        if config.stop:
            out["stopSequences"] = list(config.stop)
        if config.json_schema is not None:
            out.update(_json_config(config.json_schema, mode))
        if self.thinking_budget is not None:
            out["thinkingConfig"] = {"thinkingBudget": self.thinking_budget}
        if config.params:  # --param: generationConfig fields (thinkingConfig...), unchecked
            out.update(config.params)
        return out

    def _payload(
        self, messages: list[Message], config: GenerationConfig, mode: str
    ) -> dict[str, Any]:
        system, contents = encode_messages(messages)
        payload: dict[str, Any] = {
            "contents": contents,
            "generationConfig": self._generation_config(config, mode),
        }
        if system is not None:
            payload["systemInstruction"] = system
        return payload

    async def generate(self, messages: list[Message], config: GenerationConfig) -> ModelOutput:
        while True:
            mode = self._json_modes[0]
            payload = self._payload(messages, config, mode)
            structured = config.json_schema is not None
            try:
                return await self._post(payload, structured)
            except ProviderError as exc:
                # Remember a refused schema field for this model's life, so later calls go
                # straight to the form the server takes.
                if exc.kind is ErrorKind.UNSUPPORTED and structured and len(self._json_modes) > 1:
                    self._json_modes.pop(0)
                    continue
                if exc.kind is ErrorKind.UNSUPPORTED:
                    exc.kind = ErrorKind.FATAL
                raise

    async def _post(self, payload: dict[str, Any], structured: bool) -> ModelOutput:
        started = time.perf_counter()
        try:
            body = await post_json(
                self._client,
                f"{self.base_url}/v1beta/models/{self.name}:generateContent",
                payload,
                headers=self._headers(),
                what=self.spec,
                unsupported=_SCHEMA_WORDS if structured else (),
                classify=classify_google,
            )
        except ProviderError as exc:
            raise self._scrub(exc) from None
        body = redact_data(body)  # an echoed key, masked where it can be (see redact_data)
        return _parse_reply(body, time.perf_counter() - started, self.spec)

    def _scrub(self, exc: ProviderError) -> ProviderError:
        """``exc`` without the key in its message, with hints that fit this provider."""
        hint = "check the model name and that base_url does not end in /v1beta"
        return scrub_key(
            exc,
            self._api_key,
            self._api_key_env,
            auth_codes=(401, 403),
            not_found_hint=hint,
            url_credentials=bool(self._auth),
        )

    async def check(self) -> None:
        """Preflight: GET {base_url}/v1beta/models (any HTTP answer shows the server is up)."""
        await probe(
            self._client, f"{self.base_url}/v1beta/models", what=self.spec, headers=self._headers()
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def _usage(body: dict[str, Any]) -> Usage:
    meta = body.get("usageMetadata") or {}
    return Usage(
        input_tokens=int(meta.get("promptTokenCount") or 0),
        # Thinking tokens are billed as output.
        output_tokens=int(meta.get("candidatesTokenCount") or 0)
        + int(meta.get("thoughtsTokenCount") or 0),
    )


def _parse_reply(body: dict[str, Any], latency: float, what: str) -> ModelOutput:
    usage = _usage(body)
    blocked = (body.get("promptFeedback") or {}).get("blockReason")
    candidates = body.get("candidates")
    if blocked and not candidates:
        return ModelOutput(
            usage=usage,
            latency_s=latency,
            finish_reason=str(blocked),
            status=Status.REFUSED,
            reason=f"the prompt was blocked ({blocked})",
            raw=body,
        )
    if not isinstance(candidates, list) or not candidates:
        raise ProviderError(f"{what}: reply has no candidates", ErrorKind.TRANSIENT)
    candidate = candidates[0]
    parts = (candidate.get("content") or {}).get("parts") or []
    # Thought summaries are not the answer.
    text = "".join(
        str(p.get("text", "")) for p in parts if isinstance(p, dict) and not p.get("thought")
    )
    finish = candidate.get("finishReason")
    refused = finish in _REFUSAL_REASONS
    return ModelOutput(
        text=text,
        usage=usage,
        latency_s=latency,
        finish_reason=finish,
        status=Status.REFUSED if refused else Status.OK,
        reason=f"the answer was filtered (finishReason={finish})" if refused else None,
        raw=body,
    )


def create(name: str, options: Mapping[str, str]) -> GoogleChatModel:
    """Registry factory: ``google/<model>`` with options base_url, api_key_env, timeout,
    json_mode, thinking_budget."""
    budget = options.get("thinking_budget")
    return GoogleChatModel(
        name,
        base_url=options.get("base_url", DEFAULT_BASE_URL),
        api_key_env=options.get("api_key_env", DEFAULT_KEY_ENV),
        timeout=float(options.get("timeout", 120.0)),
        json_mode=options.get("json_mode"),
        thinking_budget=int(budget) if budget is not None else None,
    )
