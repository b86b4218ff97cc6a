"""Chat models (examinees, examiners, judges) behind one async interface.

Every call goes through :class:`ModelClient` (a :class:`CallClient`, which the image client
specialises too): cache, per-endpoint concurrency, retries, costs. Provider modules build on
:mod:`lvlmbench.models.providers`.
"""

from lvlmbench.models._api import ChatModel, ErrorKind, ProviderError
from lvlmbench.models._call import CallClient, CalledModel, CallOutput
from lvlmbench.models._client import (
    ModelClient,
    PreparedCall,
    RunAborted,
    Structured,
    preflight,
)
from lvlmbench.models._display import display_name, display_names, spec_label
from lvlmbench.models._generation import (
    EXAMINEE_MAX_TOKENS,
    GenerationSettings,
    as_settings,
    is_truncated,
    spec_with_settings,
    specs_with_settings,
)
from lvlmbench.models._image_check import ImageTokens, compare_image_tokens, without_images
from lvlmbench.models._loading import load_chat_model, load_model
from lvlmbench.models._meter import RequestMeter, metered
from lvlmbench.models._options import PRICE, parse_param
from lvlmbench.models._policy import (
    DEFAULT_CONCURRENCY,
    CallStats,
    CircuitBreaker,
    RetryEvent,
    RetryHook,
    RetryPolicy,
    cache_key,
    chat_cache_key,
)
from lvlmbench.models._registry import (
    CHAT_PROVIDERS,
    ModelSpec,
    Provider,
    ProviderTable,
    RegistryError,
    parse_spec,
    register_chat_provider,
)
from lvlmbench.models._resolved import (
    ResolvedModel,
    generation_options,
    model_identity,
    model_price,
    resolve_model,
    resolve_spec,
    spec_option,
)
from lvlmbench.models._secrets import (
    RedactingFilter,
    install_log_redaction,
    mask_url_credentials,
    redact_text,
    register_secret,
)
from lvlmbench.models._structured import extract_json
from lvlmbench.models._summary import OUTCOME, SAME_RUN, RunSummary

__all__ = [
    "CHAT_PROVIDERS",
    "DEFAULT_CONCURRENCY",
    "EXAMINEE_MAX_TOKENS",
    "OUTCOME",
    "PRICE",
    "SAME_RUN",
    "CallClient",
    "CallOutput",
    "CallStats",
    "CalledModel",
    "ChatModel",
    "CircuitBreaker",
    "ErrorKind",
    "GenerationSettings",
    "ImageTokens",
    "ModelClient",
    "ModelSpec",
    "PreparedCall",
    "Provider",
    "ProviderError",
    "ProviderTable",
    "RedactingFilter",
    "RegistryError",
    "RequestMeter",
    "ResolvedModel",
    "RetryEvent",
    "RetryHook",
    "RetryPolicy",
    "RunAborted",
    "RunSummary",
    "Structured",
    "as_settings",
    "cache_key",
    "chat_cache_key",
    "compare_image_tokens",
    "display_name",
    "display_names",
    "extract_json",
    "generation_options",
    "install_log_redaction",
    "is_truncated",
    "load_chat_model",
    "load_model",
    "mask_url_credentials",
    "metered",
    "model_identity",
    "model_price",
    "parse_param",
    "parse_spec",
    "preflight",
    "redact_text",
    "register_chat_provider",
    "register_secret",
    "resolve_model",
    "resolve_spec",
    "spec_label",
    "spec_option",
    "spec_with_settings",
    "specs_with_settings",
    "without_images",
]
