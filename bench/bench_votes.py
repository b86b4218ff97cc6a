"""How much one client can stuff the vote page of a shared server (a real uvicorn server, a
plain HTTP client): an invited annotator votes claiming 100 names, then floods votes for
``--seconds``; another client tries 200 wrong tokens at /login.

Figures: annotators stored for the 100 claimed names (target 1), votes accepted per second
from one client during the flood (target: at most the limit, 20 a minute after a burst of 10),
and wrong tokens checked of 200 (target: at most 1 + log2(seconds + 1), the doubling back-off).
Before the fix (main at 03d4752, 2 cores): 100 names stored 100; 66.1 votes/s accepted; 200 of
200 wrong tokens checked in 0.41 s.

Run: ``python bench/bench_votes.py [--seconds S]``. Figures also go to
``$LVLMBENCH_BENCH_JSON`` (see bench/figures.py).
"""

from __future__ import annotations

import argparse
import math
import re
import socket
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI
from figures import emit

from lvlmbench.store import (
    Store,
    invite_annotator,
    iter_judgments,
    put_benchmark,
    put_items,
    put_responses,
)
from lvlmbench.types import BenchmarkItem, Response
from lvlmbench.web import WebSettings, create_app

NAME = "votes"
BENCHMARK = "open"
TOKEN = "the-owners-write-token"
_FIELDS = re.compile(r'name="(ballot|csrf)" value="([^"]+)"')


def _store(folder: Path) -> Store:
    """300 open-ended items answered by three models: 900 pairs to vote on."""
    store = Store.open(str(folder / "votes.db"))
    put_benchmark(store, BENCHMARK, "open", {})
    items = [
        BenchmarkItem(id=f"i{i:04d}", benchmark=BENCHMARK, kind="open", question=f"q{i}")
        for i in range(300)
    ]
    put_items(store, items)
    put_responses(
        store,
        [
            Response(item_id=item.id, model=model, text=f"{model} on {item.id}")
            for item in items
            for model in ("a/x", "b/y", "c/z")
        ],
    )
    return store


def _serve(app: FastAPI) -> tuple[uvicorn.Server, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def _sign_in(client: httpx.Client, token: str) -> int:
    client.get("/login")
    form = {"token": token, "csrf": client.cookies.get("lvlmbench_csrf", "")}
    return client.post("/login", data=form).status_code


def _vote(client: httpx.Client, claimed: str) -> int:
    fields = dict(_FIELDS.findall(client.get(f"/b/{BENCHMARK}/vote").text))
    form = {**fields, "choice": "left", "annotator": claimed}
    return client.post(f"/b/{BENCHMARK}/vote", data=form).status_code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the vote flood")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = _store(Path(folder))
        invite = invite_annotator(store, "mallory")
        settings = WebSettings(host="0.0.0.0", token=TOKEN)
        server, base = _serve(create_app(store, settings))
        with httpx.Client(base_url=base) as client:
            _sign_in(client, invite)
            started = time.perf_counter()
            names = [_vote(client, f"sock{i}") for i in range(100)].count(200)
            names_s = time.perf_counter() - started
            stored = {j.judge for j in iter_judgments(store, protocol="human")}
            started, accepted, tried = time.perf_counter(), 0, 0
            while time.perf_counter() - started < args.seconds:
                tried += 1
                accepted += _vote(client, "mallory") == 200
            flood_s = time.perf_counter() - started
        with httpx.Client(base_url=base) as guesser:
            started = time.perf_counter()
            codes = [_sign_in(guesser, f"guess-{i}") for i in range(200)]
            guess_s = time.perf_counter() - started
        server.should_exit = True
        store.close()
    checked = codes.count(403)
    per_s = accepted / flood_s
    print(f"100 claimed names: {names} votes accepted in {names_s:.2f} s, stored as {stored}")
    print(f"flood: {accepted} of {tried} votes accepted in {flood_s:.1f} s = {per_s:.2f}/s")
    print(f"200 wrong tokens: {checked} checked, {codes.count(429)} got 429, in {guess_s:.2f} s")
    emit(NAME, "annotators stored for 100 claimed names", len(stored), "", "1", len(stored) == 1)
    bound = (10 + flood_s * 20 / 60) / flood_s
    target = f"≤ {bound:.2f}"
    emit(NAME, "votes accepted per second, one client", per_s, "/s", target, per_s <= bound)
    allowed = 1 + math.log2(guess_s + 1)
    ok = checked <= allowed
    emit(NAME, "wrong tokens checked of 200", checked, "", f"≤ {allowed:.1f}", ok)


if __name__ == "__main__":
    main()
