"""The fake server's heavy-tailed latency (bench/bench_heavy.py replays its draws for the ideal)."""

from __future__ import annotations

import json
import math
import random
import selectors
import time
import urllib.request

from fake_openai_server import FakeOpenAIServer, latency_draws

# bench/bench_heavy.py's setting: median 50 ms, p99 1 s.
SIGMA = math.log(1.0 / 0.05) / 2.3263


def test_draws_have_the_median_and_p99_the_bench_asks_for() -> None:
    draws = sorted(latency_draws(0.05, SIGMA, seed=0, n=20_000))
    assert 0.046 < draws[len(draws) // 2] < 0.054
    assert 0.85 < draws[int(len(draws) * 0.99)] < 1.15
    assert draws[-1] > 2.0  # a heavy tail, not a capped one


def test_no_sigma_means_the_fixed_latency() -> None:
    assert latency_draws(0.05, 0.0, seed=3, n=4) == [0.05] * 4


def _ask(base_url: str, i: int) -> str:
    body = {"model": "fake", "messages": [{"role": "user", "content": f"question {i}"}]}
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        text: str = json.loads(reply.read())["choices"][0]["message"]["content"]
    return text


def test_server_takes_its_latencies_from_the_seeded_sequence_in_order() -> None:
    with FakeOpenAIServer(latency_s=0.002, concurrency=4, seed=11, latency_sigma=0.5) as server:
        answers = [_ask(server.base_url, i) for i in range(5)]
        state = server._latency_rng.getstate()
    assert all(a.startswith("Answer: ") for a in answers)
    replay = random.Random(11)
    drawn = [replay.lognormvariate(math.log(0.002), 0.5) for _ in range(5)]
    # Five answers consumed exactly five draws of the seeded generator, and latency_draws
    # yields those same values: the bench's ideal schedule replays what the server used.
    assert state == replay.getstate()
    assert latency_draws(0.002, 0.5, 11, 5) == drawn


def test_fixed_latency_leaves_the_sequence_untouched() -> None:
    with FakeOpenAIServer(latency_s=0.001, concurrency=4, seed=2) as server:
        _ask(server.base_url, 0)
        state = server._latency_rng.getstate()
    assert state == random.Random(2).getstate()


def test_precise_timers_answer_from_a_select_loop_never_early() -> None:
    # The benchmarks' server process waits in select() (microsecond timeouts) rather than
    # epoll (millisecond ones); it must still answer every request, and never before its
    # latency is up.
    with FakeOpenAIServer(latency_s=0.03, concurrency=2, precise_timers=True) as server:
        selector = getattr(server._loop, "_selector", None)
        assert isinstance(selector, selectors.SelectSelector)
        started = time.perf_counter()
        answers = [_ask(server.base_url, i) for i in range(3)]
        elapsed = time.perf_counter() - started
    assert all(a.startswith("Answer: ") for a in answers)
    assert elapsed >= 3 * 0.03


def test_default_timers_keep_the_platform_loop() -> None:
    with FakeOpenAIServer(latency_s=0.0) as server:
        selector = getattr(server._loop, "_selector", None)
        assert not isinstance(selector, selectors.SelectSelector)
        assert _ask(server.base_url, 0).startswith("Answer: ")
