"""`lvlmbench models ...`: check that an endpoint answers before running anything on it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from lvlmbench.cli._common import BadInput, console, friendly_errors, print_json
from lvlmbench.models import CHAT_PROVIDERS, ModelClient, RetryPolicy, load_chat_model
from lvlmbench.types import GenerationConfig, ImagePart, Message

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
) -> dict[str, Any]:
    model = load_chat_model(spec, **options)
    # No cache and a short retry budget: a check must make a real request and answer fast.
    client = ModelClient(
        model, None, concurrency=1, retry=RetryPolicy(max_retries=1, base_delay=0.5)
    )
    parts: list[str | ImagePart] = [_image_part(image)] if image else []
    try:
        await client.check()
        output = await client.generate(
            [Message.user(*parts, prompt)], GenerationConfig(max_tokens=max_tokens)
        )
    finally:
        await client.aclose()
    cost = client.cost_of(output.usage)  # None without a price=IN,OUT in the spec
    return {
        "model": spec,
        "status": output.status.value,
        "reason": output.reason,
        "reply": output.text,
        "latency_s": round(output.latency_s, 3),
        "input_tokens": output.usage.input_tokens,
        "output_tokens": output.usage.output_tokens,
        "finish_reason": output.finish_reason,
        "attempts": output.attempts,
    } | ({} if cost is None else {"cost_usd": cost})


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
    result = asyncio.run(_check(spec, prompt, image, options, max_tokens))
    if as_json:
        print_json(result)
    else:
        table = Table(show_header=False, title=f"models check {spec}")
        for key, value in result.items():
            table.add_row(key, "" if value is None else str(value))
        console.print(table)
    if result["status"] != "ok":
        raise typer.Exit(1)


@models_app.command("providers")
def providers() -> None:
    """List the chat providers lvlmbench knows."""
    for name in CHAT_PROVIDERS:
        console.print(name)
