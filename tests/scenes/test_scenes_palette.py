"""The vectorised nearest-paint lookup is exactly the brute-force one, ties included."""

from __future__ import annotations

import numpy as np

from lvlmbench.scenes.palette import COLORS, nearest_color, nearest_rows


def test_nearest_rows_is_the_brute_force_argmin_ties_included() -> None:
    paints = np.array([*COLORS.values(), COLORS["red"]], dtype=np.int32)  # a tie
    pixels = np.random.default_rng(0).integers(0, 256, size=(40, 30, 3)).astype(np.int32)
    pixels[0, :3] = [COLORS["red"], (128, 128, 128), (0, 0, 0)]
    brute = ((pixels[:, :, None, :] - paints[None, None, :, :]) ** 2).sum(axis=3).argmin(axis=2)
    found = nearest_rows(pixels, paints)
    assert found.shape == (40, 30) and (found == brute).all()
    assert found[0, 0] == list(COLORS).index("red")  # the first of two equal rows
    names = list(COLORS)
    assert names[int(nearest_rows(pixels[5, 5], paints[:-1]))] == nearest_color(
        tuple(int(v) for v in pixels[5, 5])
    )
