"""``hf/…?ray=true`` against the same model in this process: what the Ray path costs.

The tiny random LLaVA of the tests answers N greedy prompts (``batch_size`` 8) in this process,
then on a local Ray cluster (``num_cpus`` 2, CPU actors) with 1 and 2 actors. Printed: the wall
time of each, the Ray/local ratio, and whether the answers are identical. On a 2-core machine
Ray cannot be faster (the actors share the cores the local run already uses); the figure is the
fixed cost of the path (cluster start excluded, actor start and weight load included), which a
GPU cluster pays once per actor per run (the actors live until the model is closed). No target:
reported only.

Run: ``python bench/bench_ray.py [--prompts N]``. Needs the ``hf`` and ``ray`` extras and pytest
(the model builder is the tests'). Figures also go to ``$LVLMBENCH_BENCH_JSON`` (bench/figures.py).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

from figures import emit

from lvlmbench.models import load_chat_model
from lvlmbench.types import GenerationConfig, Message

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
NAME = "ray"
CONFIG = GenerationConfig(max_tokens=16)


def _prompts(n: int) -> list[list[Message]]:
    from models.test_hf import _varied_prompts

    base = _varied_prompts()
    return [base[i % len(base)] for i in range(n)]


async def _timed(
    spec: str, prompts: list[list[Message]], rounds: int = 1
) -> tuple[list[float], list[str]]:
    """Wall time of each round of ``prompts`` on one model (a later round finds the model, or
    its Ray actors, already loaded), and the answers (empty when two rounds differed)."""
    model = load_chat_model(spec, device="cpu")
    times: list[float] = []
    texts: list[str] = []
    try:
        for _ in range(rounds):
            started = time.perf_counter()
            outputs = await asyncio.gather(*(model.generate(p, CONFIG) for p in prompts))
            times.append(time.perf_counter() - started)
            answers = [o.text for o in outputs]
            texts = answers if not times[1:] or answers == texts else []
    finally:
        await model.aclose()
    return times, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=64)
    args = parser.parse_args()
    if importlib.util.find_spec("ray") is None:
        print("bench_ray: ray is not installed (pip install 'lvlmbench[ray]'); skipped")
        return
    from models.test_hf import _build_tiny_llava
    from ray_cluster import local_ray_cluster

    directory = Path(tempfile.mkdtemp(prefix="tiny-llava-bench"))
    _build_tiny_llava(directory)
    prompts = _prompts(args.prompts)
    # A warm-up local run so the local figure does not include the first weight load either.
    asyncio.run(_timed(f"hf/{directory}", prompts[:8]))
    (local_s,), expected = asyncio.run(_timed(f"hf/{directory}?batch_size=8", prompts))
    load = "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.prompts} prompts, tiny LLaVA, CPU; local: {local_s:.2f} s ({load})")
    emit(NAME, "local wall time", round(local_s, 3), "s", "reported", None)
    with local_ray_cluster():
        for actors in (1, 2):
            spec = f"hf/{directory}?batch_size=8&ray=true&actors={actors}"
            (ray_s, warm_s), texts = asyncio.run(_timed(spec, prompts, rounds=2))
            same = texts == expected
            load = "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
            print(
                f"ray, {actors} actor(s): {ray_s:.2f} s, {ray_s / local_s:.2f}x local; "
                f"the same prompts again on the live actors: {warm_s:.2f} s; "
                f"answers identical: {same} ({load})"
            )
            emit(
                NAME,
                f"ray {actors} actors / local",
                round(ray_s / local_s, 2),
                "x",
                "reported (2 CPU cores)",
                None,
                note=f"answers identical: {same}; {load}",
            )
            emit(
                NAME,
                f"ray {actors} actors, second round on the live actors / local",
                round(warm_s / local_s, 2),
                "x",
                "reported (2 CPU cores)",
                None,
                note=f"{warm_s:.2f} s; {load}",
            )


if __name__ == "__main__":
    main()
