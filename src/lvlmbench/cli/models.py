"""`lvlmbench models ...`: check that an endpoint answers before running anything on it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from lvlmbench.cli._common import (
    EXIT_FAILURES,
    BadInput,
    console,
    fail,
    friendly_errors,
    print_json,
)
from lvlmbench.images import IMAGE_PROVIDERS
from lvlmbench.models import (
    CHAT_PROVIDERS,
    ImageTokens,
    ModelClient,
    ProviderTable,
    RetryPolicy,
    compare_image_tokens,
    load_chat_model,
)
from lvlmbench.types import GenerationConfig, ImagePart, Message, ModelOutput

__all__ = ["models_app"]

models_app = typer.Typer(help="Check and list model back-ends.", no_args_is_help=True)


def _image_part(path: Path) -> ImagePart:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise BadInput(f"--image {path}: not a readable image ({exc})") from None
    return ImagePart.from_path(path)


async def _check(
    spec: str, prompt: str, image: Path | None, options: dict[str, str], max_tokens: int
) -> tuple[dict[str, Any], ImageTokens | None]:
    model = load_chat_model(spec, **options)
    # No cache and a short retry budget: a check must make a real request and answer fast.
    client = ModelClient(
        model, None, concurrency=1, retry=RetryPolicy(max_retries=1, base_delay=0.5)
    )
    parts: list[str | ImagePart] = [_image_part(image)] if image else []
    messages = [Message.user(*parts, prompt)]
    tokens = None
    try:
        await client.check()
        output = await client.generate(messages, GenerationConfig(max_tokens=max_tokens))
        if image is not None and output.ok:  # the question without the image: did it count?
            tokens = await compare_image_tokens(client, messages, output.usage.input_tokens)
    finally:
        await client.aclose()
    cost = client.cost_of(output.usage)  # None without a price=IN,OUT in the spec
    result = {
        # The identity, never the spec as typed: credentials in its base_url stay unshown.
        "model": model.spec,
        "status": output.status.value,
        "reason": output.reason,
        "reply": output.text,
        "latency_s": round(output.latency_s, 3),
        "input_tokens": output.usage.input_tokens,
        "output_tokens": output.usage.output_tokens,
        "finish_reason": output.finish_reason,
        "attempts": output.attempts,
    } | ({} if cost is None else {"cost_usd": cost})
    if image is not None:
        result["input_tokens_without_image"] = None if tokens is None else tokens.without_images
        result["image_seen"] = _image_verdict(output, tokens)
    return result, tokens


def _image_verdict(output: ModelOutput, tokens: ImageTokens | None) -> str:
    """What the prompt tokens say about the image: ``yes``, ``no`` or why it is unknown."""
    if not output.ok:
        return "unknown (the request failed)"
    if output.usage.input_tokens <= 0:
        return "unknown (the server reports no prompt tokens)"
    if tokens is None:
        return "unknown (the question without the image got no token count back)"
    return "no" if tokens.images_ignored else "yes"


@models_app.command("check")
@friendly_errors
def check(
    spec: Annotated[str, typer.Argument(help="provider/name, e.g. openai/gpt-4o-mini")],
    image: Annotated[Path | None, typer.Option(help="Send this image with the prompt.")] = None,
    prompt: Annotated[str, typer.Option(help="What to ask.")] = "Say hello in five words.",
    base_url: Annotated[
        str | None, typer.Option(help="Server URL (OpenAI-compatible: .../v1).")
    ] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Env var holding the API key.")] = None,
    max_tokens: Annotated[int, typer.Option(help="Reply length cap.")] = 64,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Send one request to a model and print its reply, latency and token counts."""
    if image is not None and not image.is_file():
        raise BadInput(f"--image {image}: no such file")
    options = {k: v for k, v in {"base_url": base_url, "api_key_env": api_key_env}.items() if v}
    result, tokens = asyncio.run(_check(spec, prompt, image, options, max_tokens))
    if as_json:
        print_json(result)
    else:
        table = Table(show_header=False, title=f"models check {result['model']}")
        for key, value in result.items():
            table.add_row(key, "" if value is None else str(value))
        console.print(table)
    if result["status"] != "ok":
        raise typer.Exit(1)
    if tokens is not None and tokens.images_ignored:
        # The reply looks fine, but the model never saw the picture: an evaluation on this
        # endpoint would store text-only answers as answers about images.
        raise fail(
            f"{result['model']}: the image added no prompt tokens ({tokens.describe()}): the "
            "server dropped it. It serves a text-only model or chat format (llama.cpp needs the "
            "model's multimodal projector, --mmproj, and a chat template that takes images)",
            EXIT_FAILURES,
        )


def _provider_rows(kind: str, table: ProviderTable) -> list[dict[str, Any]]:
    return [
        {
            "kind": kind,
            "provider": name,
            "install": f"pip install 'lvlmbench[{p.extra}]'" if p.extra else "",
            "options": sorted(p.options),
            "identity_options": sorted(o for o, spec in p.options.items() if spec.changes_output),
        }
        for name, p in table.items()
    ]


@models_app.command("providers")
def providers(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the chat and text-to-image providers, what each needs installed and the options
    it takes (those marked * change the answers, so they are part of the stored identity)."""
    rows = _provider_rows("chat", CHAT_PROVIDERS) + _provider_rows("image", IMAGE_PROVIDERS)
    if as_json:
        print_json(rows)
        return
    table = Table("kind", "provider", "needs", "options (* part of the identity)")
    for row in rows:
        marked = [o + ("*" if o in row["identity_options"] else "") for o in row["options"]]
        # Escaped: 'lvlmbench[hf]' would otherwise be read as rich markup and vanish.
        install = escape(row["install"]) or "-"
        table.add_row(row["kind"], row["provider"], install, ", ".join(marked))
    console.print(table)
    console.print("Every chat spec also takes price=IN,OUT (USD per million tokens; not identity).")
