"""`lvlmbench serve`: the web app over a store (browse, leaderboards, votes, submissions)."""

from __future__ import annotations

import functools
from typing import Annotated

import typer

from lvlmbench.cli._common import BadInput, StoreOption, console, friendly_errors, open_store
from lvlmbench.models import load_chat_model

__all__ = ["serve"]


@friendly_errors
def serve(
    host: Annotated[
        str, typer.Option(help="Address to bind; anything but loopback needs --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="LVLMBENCH_WEB_TOKEN",
            help="Write token (votes, checks, submissions) for a server others can reach.",
            show_default=False,
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            "-j",
            help="Pairwise judge for open-ended submissions (metrics only without one).",
        ),
    ] = None,
    max_upload_mb: Annotated[
        int, typer.Option(min=1, max=2048, help="Largest upload accepted, MiB.")
    ] = 20,
    store: StoreOption = None,
) -> None:
    """Serve the store in a browser: leaderboards with the report's charts, the item browser
    with filters, blind pairwise voting and alignment checks (stored as human judgments that
    `lvlmbench agreement` reads), and JSONL leaderboard submissions judged in the background."""
    try:
        import uvicorn

        from lvlmbench.web import WebSettings, create_app
    except ImportError as exc:
        raise BadInput(
            f"the web app needs the web extra ({exc.name} is missing): pip install 'lvlmbench[web]'"
        ) from None
    settings = WebSettings(host=host, token=token, max_upload_bytes=max_upload_mb * 1024 * 1024)
    judge_factory = None
    if judge is not None:
        spec = judge
        load_chat_model(spec)  # a bad spec or missing extra fails now, not in the background
        judge_factory = functools.partial(load_chat_model, spec)
    try:
        app = create_app(open_store(store), settings, judge_factory)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    console.print(f"lvlmbench web app on http://{host}:{port}/ (Ctrl-C stops it)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
