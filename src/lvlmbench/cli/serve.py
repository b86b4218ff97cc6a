"""`lvlmbench serve`: the web app over a store (browse, leaderboards, votes, submissions)."""

from __future__ import annotations

import errno
import functools
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from lvlmbench.cli._common import BadInput, StoreOption, console, friendly_errors, open_store
from lvlmbench.models import ChatModel, load_chat_model, register_secret

__all__ = ["TOKEN_ENV", "serve"]

TOKEN_ENV = "LVLMBENCH_WEB_TOKEN"


def _write_token(token_file: Path | None, on_command_line: str | None) -> str | None:
    """The write token from ``--token-file`` or the environment, never from the command line:
    every user of the machine can read a process's arguments (``ps``, /proc)."""
    if on_command_line is not None:
        raise BadInput(
            "--token would show the token to everyone on this machine (ps): "
            f"put it in the {TOKEN_ENV} environment variable or a file given with --token-file"
        )
    if token_file is not None:
        token = token_file.read_text(encoding="utf-8").strip()
        if not token:
            raise BadInput(f"{token_file}: the token file is empty")
        return token
    return os.environ.get(TOKEN_ENV, "").strip() or None


def _port_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port`` (checked with the socket options
    uvicorn binds with), or None. Checked before anything is printed: uvicorn reports a busy
    port only after the app has started, as a log line, with exit code 1."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is already in use (another server?); choose one with --port"
        return f"cannot listen on {host}:{port}: {reason}"
    return None


Host = Annotated[
    str, typer.Option(help="Address to bind; anything but loopback needs a write token.")
]
Port = Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")]
TokenFile = Annotated[
    Path | None,
    typer.Option(
        help=f"File holding the write token (votes, checks, submissions) for a server "
        f"others can reach; or set {TOKEN_ENV}.",
        show_default=False,
    ),
]
AllowHost = Annotated[
    list[str] | None,
    typer.Option(
        help="Host name the server answers besides the bound address's own (repeat; "
        "'*' for any). Other Host headers get 400, which stops DNS rebinding.",
        show_default=False,
    ),
]
HiddenToken = Annotated[str | None, typer.Option(hidden=True)]
Judge = Annotated[
    str | None,
    typer.Option(
        "--judge",
        "-j",
        help="Pairwise judge for open-ended submissions (metrics only without one).",
    ),
]
MaxUploadMb = Annotated[int, typer.Option(min=1, max=2048, help="Largest upload accepted, MiB.")]
Annotator = Annotated[
    str,
    typer.Option(
        help="Name your own votes are stored under (human:NAME): the local user's without "
        "a token, whoever signs in with the write token's with one."
    ),
]
VoteLimit = Annotated[
    int,
    typer.Option(
        min=0, help="Votes (and check forms) per minute per annotator, bursts of half; 0: none."
    ),
]
IpVoteLimit = Annotated[
    int,
    typer.Option(min=0, help="Votes per minute from one client address, whoever votes; 0: none."),
]


def _judge_factory(judge: str | None) -> Callable[[], ChatModel] | None:
    """The submissions' judge, loaded once now so a bad spec or a missing extra fails here, not
    in the background."""
    if judge is None:
        return None
    load_chat_model(judge)
    return functools.partial(load_chat_model, judge)


def _print_mode(annotator: str, shared: bool) -> None:
    mode = (
        "shared: people sign in with the write token (you, the owner) or an invite token "
        "(`lvlmbench annotators invite NAME`)"
        if shared
        else f"one trusted local user, votes stored as human:{annotator}"
    )
    console.print(f"mode: {mode}", markup=False, highlight=False)


@friendly_errors
def serve(
    host: Host = "127.0.0.1",
    port: Port = 8000,
    token_file: TokenFile = None,
    allow_host: AllowHost = None,
    token: HiddenToken = None,
    judge: Judge = None,
    max_upload_mb: MaxUploadMb = 20,
    annotator: Annotator = "owner",
    vote_limit: VoteLimit = 20,
    ip_vote_limit: IpVoteLimit = 120,
    store: StoreOption = None,
) -> None:
    """Serve the store in a browser: leaderboards with the report's charts, the item browser
    with filters, blind pairwise voting and alignment checks (stored as human judgments that
    `lvlmbench agreement` reads), and JSONL leaderboard submissions judged in the background.
    Without a token one trusted local user votes as --annotator; with one, people sign in with
    the invite tokens `lvlmbench annotators invite NAME` makes."""
    try:
        import uvicorn

        from lvlmbench.web import Rate, WebSettings, create_app, is_loopback
    except ImportError as exc:
        raise BadInput(
            f"the web app needs the web extra ({exc.name} is missing): pip install 'lvlmbench[web]'"
        ) from None
    write_token = _write_token(token_file, token)
    register_secret(write_token)  # masked in any message or log line that might quote it
    settings = WebSettings(
        host=host,
        token=write_token,
        max_upload_bytes=max_upload_mb * 1024 * 1024,
        allowed_hosts=tuple(allow_host or ()),
        owner=annotator,
        # Bursts of up to half a minute's worth: a person reading fast, never a script's flood.
        vote_limit=Rate(per_minute=vote_limit, burst=max(1, vote_limit // 2)),
        ip_vote_limit=Rate(per_minute=ip_vote_limit, burst=max(1, ip_vote_limit // 2)),
    )
    judge_factory = _judge_factory(judge)
    problem = _port_problem(host, port)
    if problem is not None:
        raise BadInput(problem)
    try:
        app = create_app(open_store(store), settings, judge_factory)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    _print_mode(annotator, shared=write_token is not None)
    console.print(f"lvlmbench web app on http://{host}:{port}/ (Ctrl-C stops it)")
    if not is_loopback(host) and not allow_host:
        console.print(
            "[yellow]only requests naming this machine's own address or localhost are answered "
            "(DNS-rebinding guard): add --allow-host NAME for each name others use[/]"
        )
    uvicorn.run(app, host=host, port=port, log_level="warning")
