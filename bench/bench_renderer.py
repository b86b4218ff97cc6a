"""Renderer throughput: images per second on one core, per difficulty, at 512x512.

Programs come from the procedural examiner (a spread of fine aspects), are sampled once up
front, and then rendered repeatedly, so only drawing (and, separately, PNG encoding) is timed.
The target is 50 images/s for medium scenes; the script prints each difficulty's rate and its
ratio to that target. Run: ``.venv/bin/python bench/bench_renderer.py [--seconds 3] [--size 512]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from figures import emit

from lvlmbench.scenes import (
    CAPABILITIES,
    DIFFICULTIES,
    ProceduralExaminer,
    SceneProgram,
    fine_aspects,
    render,
    render_png,
)

TARGET = 50.0


def programs(difficulty: str, count: int) -> list[SceneProgram]:
    """``count`` programs spread over every capability's fine aspects."""
    examiner = ProceduralExaminer()
    aspects = [(c, g, f) for c in CAPABILITIES for g, f, _ in fine_aspects(c)]
    step = max(1, len(aspects) // count)
    out = []
    for k, (capability, general, fine) in enumerate(aspects[::step][:count]):
        out.append(examiner.sample(capability, general, fine, difficulty, seed=k).program)
    return out


def rate(scenes: list[SceneProgram], seconds: float, size: int, encode: bool) -> float:
    """Images per second, rendering the programs round-robin for about ``seconds``."""
    draw = render_png if encode else render
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for program in scenes:
            draw(program, size, size)
        done += len(scenes)
    return done / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--size", type=int, default=512, help="image width and height")
    parser.add_argument("--programs", type=int, default=40, help="programs per difficulty")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says
    print(f"renderer benchmark, {args.size}x{args.size}, one core, target {TARGET:.0f} images/s")
    print(f"{'difficulty':<10} {'objects':>7} {'render/s':>9} {'x target':>9} {'+png/s':>8}")
    for difficulty in DIFFICULTIES:
        scenes = programs(difficulty, args.programs)
        objects = statistics.fmean(len(p.objects) for p in scenes)
        render(scenes[0], args.size, args.size)  # warm caches (fonts, lookup tables)
        drawn = rate(scenes, args.seconds, args.size, encode=False)
        encoded = rate(scenes, args.seconds, args.size, encode=True)
        print(
            f"{difficulty:<10} {objects:>7.1f} {drawn:>9.1f} {drawn / TARGET:>8.2f}x "
            f"{encoded:>8.1f}"
        )
        size = f"{args.size}x{args.size}"
        target = f"≥ {TARGET:.0f}" if difficulty == "medium" else "—"
        for label, value in (("draw only", drawn), ("draw + PNG encode", encoded)):
            emit(
                "renderer",
                f"{difficulty} scenes ({objects:.1f} objects), {size}, one core, {label}",
                value,
                "images/s",
                target,
                value >= TARGET if difficulty == "medium" else None,
            )


if __name__ == "__main__":
    main()
