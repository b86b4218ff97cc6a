"""Turning --examiner/--images/--mode into a pipeline backend and an image client: the
library's :mod:`lvlmbench.autobench.backends` (its ValueError is exit 2 in ``generate``)."""

from lvlmbench.autobench.backends import make_backend, make_images

__all__ = ["make_backend", "make_images"]
